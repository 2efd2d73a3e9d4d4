package dev.berth.agent.proxy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A name to bind the proxy's Unix socket under that says nothing of the host: a symbolic link
 * {@code /tmp/berth-proxy-<random>} to the socket's directory, there only while the socket is
 * bound.
 *
 * <p>Why: a Unix socket keeps the path it was bound with as its address, and each connection the
 * proxy accepts from the session's forwarder is a socket of the session's network namespace that
 * carries that address: {@code ss -xa} (or {@code /proc/net/unix}) in the session shows it. Bound
 * at its real path, under the node's data directory, it would tell the workload where the node
 * keeps its data. Bound through this link, it shows {@code /tmp/berth-proxy-<random>/<name>}, a
 * name that is gone once the socket is bound; the socket itself stays where it was asked to be (the
 * kernel resolves the link at bind time), in the node's private directory, reached by the forwarder
 * there.
 *
 * <p>Why not the alternatives: an abstract socket of the node's network namespace could be reached
 * by every process of any user in that namespace, with no file permission in the way, so any local
 * user could use the token through it; an abstract socket of the session's namespace only would
 * need the node to bind inside that namespace ({@code setns} on a thread of the JVM). The link is
 * safe: {@code /tmp} is sticky, so only this node can remove or replace its link before the bind,
 * the random name cannot be taken in advance (creating the link fails if it exists, and then
 * another name is tried), and the socket's own directory keeps its permissions.
 */
final class SocketAlias implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(SocketAlias.class);
  private static final Path TMP = Path.of("/tmp");
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Path socket;
  private final Optional<Path> link;

  private SocketAlias(Path socket, Optional<Path> link) {
    this.socket = socket;
    this.link = link;
  }

  /** An alias for {@code socket}; its real path when no link can be made (logged). */
  static SocketAlias of(Path socket) {
    Path directory = socket.toAbsolutePath().getParent();
    if (directory == null || socket.getFileName() == null) {
      return new SocketAlias(socket, Optional.empty());
    }
    IOException last = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      byte[] name = new byte[12];
      RANDOM.nextBytes(name);
      Path link = TMP.resolve("berth-proxy-" + HexFormat.of().formatHex(name));
      try {
        Files.createSymbolicLink(link, directory);
        return new SocketAlias(socket, Optional.of(link));
      } catch (IOException | UnsupportedOperationException e) {
        last = e instanceof IOException io ? io : new IOException(e);
      }
    }
    LOG.warn(
        "cannot link {} to {} ({}); the credential proxy's socket is bound at its real path,"
            + " which its session can see in its socket table",
        TMP,
        directory,
        last);
    return new SocketAlias(socket, Optional.empty());
  }

  /** The path to bind: through the link, or the socket's own. */
  Path bindPath() {
    Path name = socket.getFileName();
    return link.map(l -> l.resolve(name.toString())).orElse(socket);
  }

  /** Removes the link; the bound socket keeps its address and its file. */
  @Override
  public void close() {
    link.ifPresent(
        l -> {
          try {
            Files.deleteIfExists(l);
          } catch (IOException e) {
            LOG.warn("cannot remove the socket link {}: {}", l, e.toString());
          }
        });
  }
}
