package dev.berth.agent.isolation;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * The programs a sandbox is built with, found on {@code PATH} (and the sbin directories, which an
 * ordinary user's PATH often lacks; nothing else, so that an operator decides with PATH what the
 * node uses): bubblewrap, util-linux's unshare, nsenter and setpriv, iproute2's ip, nftables' nft,
 * slirp4netns and socat (which brings an agent session's credential proxy into its namespace). Each
 * is optional; what is missing narrows what is in force.
 */
record SandboxTools(
    Optional<String> bwrap,
    Optional<String> unshareTool,
    Optional<String> nsenterTool,
    Optional<String> setprivTool,
    Optional<String> ipTool,
    Optional<String> slirp4netnsTool,
    Optional<String> nftTool,
    Optional<String> socatTool) {

  static SandboxTools find() {
    return new SandboxTools(
        which("bwrap"),
        which("unshare"),
        which("nsenter"),
        which("setpriv"),
        which("ip"),
        which("slirp4netns"),
        which("nft"),
        which("socat"));
  }

  /** Without bubblewrap: nothing but cgroups and rlimits. */
  SandboxTools withoutBwrap() {
    return new SandboxTools(
        Optional.empty(),
        unshareTool,
        nsenterTool,
        setprivTool,
        ipTool,
        slirp4netnsTool,
        nftTool,
        socatTool);
  }

  boolean canEgress() {
    return unshareTool.isPresent()
        && nsenterTool.isPresent()
        && ipTool.isPresent()
        && slirp4netnsTool.isPresent()
        && nftTool.isPresent();
  }

  /**
   * Whether an agent session's proxy-only network can be made: a namespace and socat, and setpriv
   * to tie the forwarder's life to the node's.
   */
  boolean canProxy() {
    return unshareTool.isPresent()
        && nsenterTool.isPresent()
        && setprivTool.isPresent()
        && ipTool.isPresent()
        && socatTool.isPresent();
  }

  String socat() {
    return socatTool.orElseThrow();
  }

  String nft() {
    return nftTool.orElseThrow();
  }

  String unshare() {
    return unshareTool.orElseThrow();
  }

  String nsenter() {
    return nsenterTool.orElseThrow();
  }

  String setpriv() {
    return setprivTool.orElseThrow();
  }

  String ip() {
    return ipTool.orElseThrow();
  }

  String slirp4netns() {
    return slirp4netnsTool.orElseThrow();
  }

  static Optional<String> which(String name) {
    String path = Objects.requireNonNullElse(System.getenv("PATH"), "/usr/bin:/bin");
    for (String entry : (path + ":/usr/sbin:/sbin").split(File.pathSeparator)) {
      // An empty entry means the current directory to a shell: never a place to find bwrap in.
      if (entry.isEmpty() || !entry.startsWith("/")) {
        continue;
      }
      Path candidate = Path.of(entry, name);
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate.toString());
      }
    }
    return Optional.empty();
  }
}
