package dev.berth.server.health;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Objects;
import java.util.Properties;

/**
 * What this server is ({@code GET /api/v1/version}): its release, the commit it was built from, and
 * the kinds of store and runtime it runs with.
 *
 * @param version the release, such as {@code 0.1.0}
 * @param commit the abbreviated commit id, suffixed {@code -dirty} when the build had uncommitted
 *     changes, or {@code unknown} for a build without git
 * @param store {@code sqlite} or {@code postgres}
 * @param runtime {@code local} or {@code kubernetes}
 */
public record BuildVersion(String version, String commit, String store, String runtime) {

  /** Where the build writes the commit (berth-server's pom, git-commit-id-maven-plugin). */
  static final String RESOURCE = "/dev/berth/server/git.properties";

  public BuildVersion {
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(commit, "commit");
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(runtime, "runtime");
  }

  /** The version and commit the build recorded, with these kinds. */
  public static BuildVersion of(String store, String runtime) {
    Properties build = new Properties();
    try (InputStream in = BuildVersion.class.getResourceAsStream(RESOURCE)) {
      if (in != null) {
        build.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE + " from the server's jar", e);
    }
    String commit = build.getProperty("git.commit.id.abbrev", "");
    String version =
        build.getProperty(
            "git.build.version",
            Objects.requireNonNullElse(
                BuildVersion.class.getPackage().getImplementationVersion(), "unknown"));
    return new BuildVersion(
        version,
        commit.isBlank()
            ? "unknown"
            : commit + ("true".equals(build.getProperty("git.dirty")) ? "-dirty" : ""),
        store,
        runtime);
  }
}
