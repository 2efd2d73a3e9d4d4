package dev.berth.archive.s3;

import com.adobe.testing.s3mock.S3MockApplication;
import dev.berth.archive.s3.S3ArchiveSettings.StaticCredentials;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A real S3-compatible server (Adobe's S3Mock) in the test JVM, on free ports and a directory under
 * the module's {@code target/}: started by the first test that asks, shared by the rest, stopped
 * when the JVM exits. Other modules' tests (a server archiving to S3) use it through the test jar.
 */
public final class S3TestServer {
  public static final String BUCKET = "berth-test";
  private static final Path WORK = Path.of("target", "s3mock").toAbsolutePath();

  private static S3TestServer running;

  private final S3MockApplication app;
  private final S3Client client;

  private S3TestServer(S3MockApplication app) {
    this.app = app;
    this.client = S3Clients.create(settings("any/"));
  }

  public static synchronized S3TestServer get() {
    if (running == null) {
      Path root;
      try {
        Files.createDirectories(WORK);
        root = Files.createTempDirectory(WORK, "root-");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      S3MockApplication app =
          S3MockApplication.start(
              // start() removes entries from the map it is given: it must be mutable.
              new HashMap<>(
                  Map.of(
                      S3MockApplication.PROP_HTTP_PORT,
                      S3MockApplication.RANDOM_PORT,
                      S3MockApplication.PROP_HTTPS_PORT,
                      S3MockApplication.RANDOM_PORT,
                      S3MockApplication.PROP_INITIAL_BUCKETS,
                      BUCKET,
                      S3MockApplication.PROP_ROOT_DIRECTORY,
                      root.toString(),
                      S3MockApplication.PROP_SILENT,
                      true,
                      // Spring Boot's Tomcat would otherwise leave a tomcat.* directory in /tmp.
                      "server.tomcat.basedir",
                      WORK.resolve("tomcat").toString())));
      running = new S3TestServer(app);
      java.time.Instant started = java.time.Instant.now().minusSeconds(1);
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    app.stop();
                    sweepRefusedUploads(started);
                  },
                  "s3mock-stop"));
    }
    return running;
  }

  /**
   * S3Mock spools each upload to a temporary file in java.io.tmpdir and leaves it there when it
   * refuses the upload (the tests send bad checksums on purpose): those this JVM's S3Mock made are
   * removed at exit, so that a test run leaves nothing in /tmp.
   */
  private static void sweepRefusedUploads(java.time.Instant since) {
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    try (var entries = Files.newDirectoryStream(tmp, "ObjectService*toTempFile")) {
      for (Path entry : entries) {
        if (Files.getLastModifiedTime(entry).toInstant().isAfter(since)) {
          Files.deleteIfExists(entry);
        }
      }
    } catch (IOException e) {
      // at exit, nothing else to do
    }
  }

  // S3Mock 4 marks its port getters for removal (5.x, on Spring Boot 4, replaces them); they are
  // the one way to learn the free port it took.
  @SuppressWarnings("removal")
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + app.getHttpPort());
  }

  /** Settings on the test bucket under {@code prefix}, as the URI of a server flag gives them. */
  public S3ArchiveSettings settings(String prefix) {
    return S3ArchiveUri.parse(archiveUrl(prefix))
        .withStaticCredentials(new StaticCredentials("test-key", "test-secret"));
  }

  /** The {@code --archive} value of the test bucket under {@code prefix} (keys come apart). */
  public String archiveUrl(String prefix) {
    return "s3://" + BUCKET + "/" + prefix + "?region=us-east-1&endpoint=" + endpoint();
  }

  /** A prefix no other test uses. */
  public static String freshPrefix() {
    return "t-" + UUID.randomUUID() + "/";
  }

  /** A client of the test server, for the tests to look into the bucket. */
  public S3Client client() {
    return client;
  }
}
