package dev.berth.archive.s3;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * Builds the synchronous S3 client that {@link S3ArchiveSettings} describe, on the JDK's
 * HttpURLConnection: the store blocks its caller's thread anyway, and this client brings no
 * connection pool library and no event-loop threads.
 */
public final class S3Clients {
  private S3Clients() {}

  /** A client for {@code settings}; the caller closes it. */
  public static S3Client create(S3ArchiveSettings settings) {
    S3ClientBuilder builder =
        S3Client.builder()
            .httpClientBuilder(UrlConnectionHttpClient.builder())
            .credentialsProvider(credentials(settings))
            .forcePathStyle(settings.pathStyle());
    settings.region().ifPresent(name -> builder.region(Region.of(name)));
    settings.endpoint().ifPresent(builder::endpointOverride);
    return builder.build();
  }

  private static AwsCredentialsProvider credentials(S3ArchiveSettings settings) {
    return settings
        .credentials()
        .<AwsCredentialsProvider>map(
            keys ->
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(keys.accessKeyId(), keys.secretAccessKey())))
        .orElseGet(() -> DefaultCredentialsProvider.builder().build());
  }
}
