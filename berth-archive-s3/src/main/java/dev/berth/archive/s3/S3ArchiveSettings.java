package dev.berth.archive.s3;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where an {@link S3ArchiveStore} keeps its archives and how it reaches them. Immutable; {@link
 * S3ArchiveUri#parse} builds one from a URI such as {@code
 * s3://bucket/prefix?endpoint=http://127.0.0.1:9000&region=us-east-1&pathStyle=true}.
 *
 * @param bucket the bucket, which must exist: the store never creates one
 * @param prefix put before every key, empty or ending in {@code /}, e.g. {@code berth/archives/}
 * @param region the signing region; empty takes the SDK's default region chain ({@code AWS_REGION},
 *     the profile, instance metadata)
 * @param endpoint an S3-compatible server instead of AWS, e.g. {@code http://127.0.0.1:9000}
 * @param pathStyle address the bucket in the path ({@code host/bucket/key}) rather than the host
 *     name, which most S3-compatible servers need
 * @param credentials a fixed key pair; empty takes the SDK's default credentials chain
 *     (environment, profile, web identity, container and instance roles)
 * @param partSizeBytes the size of an upload's parts, each held in memory once while it is sent
 * @param staleAfter how old another owner's unfinished upload must be before a sweep removes it
 */
public record S3ArchiveSettings(
    String bucket,
    String prefix,
    Optional<String> region,
    Optional<URI> endpoint,
    boolean pathStyle,
    Optional<StaticCredentials> credentials,
    int partSizeBytes,
    Duration staleAfter) {

  /** 8 MiB: few requests for archives of gigabytes, little memory per upload in flight. */
  public static final int DEFAULT_PART_SIZE = 8 * 1024 * 1024;

  /** S3's smallest part (the last part of an upload may be smaller). */
  public static final int MIN_PART_SIZE = 5 * 1024 * 1024;

  /** S3's largest part. */
  public static final int MAX_PART_SIZE = 512 * 1024 * 1024;

  /**
   * A day: far longer than any upload takes, so another replica's upload is never taken for a
   * leftover while it runs.
   */
  public static final Duration DEFAULT_STALE_AFTER = Duration.ofHours(24);

  // S3's rules for bucket names (general purpose buckets), without the reserved prefixes.
  private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

  public S3ArchiveSettings {
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(region, "region");
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(credentials, "credentials");
    Objects.requireNonNull(staleAfter, "staleAfter");
    if (!BUCKET.matcher(bucket).matches() || bucket.contains("..")) {
      throw invalid(
          "bucket",
          bucket,
          "3 to 63 lowercase letters, digits, dots and hyphens, starting and ending with a letter"
              + " or digit",
          "name an existing bucket, e.g. s3://berth-archives/");
    }
    if (!prefix.isEmpty() && (!prefix.endsWith("/") || prefix.startsWith("/"))) {
      throw invalid(
          "prefix",
          prefix,
          "empty, or ending in / and not starting with /",
          "write it as a folder, e.g. berth/archives/");
    }
    if (prefix.contains("//")) {
      throw invalid("prefix", prefix, "no empty folder (//)", "remove the doubled slash");
    }
    if (region.isPresent() && region.get().isBlank()) {
      throw invalid("region", region.get(), "not blank", "name a region, e.g. us-east-1");
    }
    if (partSizeBytes < MIN_PART_SIZE || partSizeBytes > MAX_PART_SIZE) {
      throw invalid(
          "part size",
          Integer.toString(partSizeBytes),
          "from " + MIN_PART_SIZE + " (5 MiB) to " + MAX_PART_SIZE + " (512 MiB) bytes",
          "take the default of " + DEFAULT_PART_SIZE + " (8 MiB)");
    }
    if (staleAfter.compareTo(Duration.ofMinutes(1)) < 0) {
      throw invalid(
          "stale-after age",
          staleAfter.toString(),
          "at least a minute (an upload in flight must never look stale)",
          "take the default of " + DEFAULT_STALE_AFTER);
    }
  }

  /** Settings for {@code bucket} and {@code prefix}, everything else by default (AWS, chains). */
  public static S3ArchiveSettings of(String bucket, String prefix) {
    return new S3ArchiveSettings(
        bucket,
        prefix,
        Optional.empty(),
        Optional.empty(),
        false,
        Optional.empty(),
        DEFAULT_PART_SIZE,
        DEFAULT_STALE_AFTER);
  }

  public S3ArchiveSettings withPrefix(String other) {
    return new S3ArchiveSettings(
        bucket, other, region, endpoint, pathStyle, credentials, partSizeBytes, staleAfter);
  }

  public S3ArchiveSettings withRegion(String name) {
    return new S3ArchiveSettings(
        bucket,
        prefix,
        Optional.of(name),
        endpoint,
        pathStyle,
        credentials,
        partSizeBytes,
        staleAfter);
  }

  /** These settings against an S3-compatible server at {@code uri}, addressed path-style or not. */
  public S3ArchiveSettings withEndpoint(URI uri, boolean byPath) {
    return new S3ArchiveSettings(
        bucket, prefix, region, Optional.of(uri), byPath, credentials, partSizeBytes, staleAfter);
  }

  public S3ArchiveSettings withStaticCredentials(StaticCredentials keys) {
    return new S3ArchiveSettings(
        bucket, prefix, region, endpoint, pathStyle, Optional.of(keys), partSizeBytes, staleAfter);
  }

  public S3ArchiveSettings withPartSize(int bytes) {
    return new S3ArchiveSettings(
        bucket, prefix, region, endpoint, pathStyle, credentials, bytes, staleAfter);
  }

  public S3ArchiveSettings withStaleAfter(Duration age) {
    return new S3ArchiveSettings(
        bucket, prefix, region, endpoint, pathStyle, credentials, partSizeBytes, age);
  }

  /** Where the settings point, for logs and messages: never the credentials. */
  public String describe() {
    return "s3://" + bucket + "/" + prefix + endpoint.map(e -> " at " + e).orElse("");
  }

  @Override
  public String toString() {
    return "S3ArchiveSettings["
        + describe()
        + ", region="
        + region.orElse("(default chain)")
        + ", pathStyle="
        + pathStyle
        + ", credentials="
        + (credentials.isPresent() ? "static" : "(default chain)")
        + ", partSizeBytes="
        + partSizeBytes
        + ", staleAfter="
        + staleAfter
        + "]";
  }

  static IllegalArgumentException invalid(String subject, String value, String rule, String out) {
    return new IllegalArgumentException(
        "S3 archive store: the "
            + subject
            + " must be "
            + rule
            + ", was \""
            + value
            + "\"; "
            + out);
  }

  /** A fixed access key pair. Its {@code toString} hides the secret, so settings can be logged. */
  public record StaticCredentials(String accessKeyId, String secretAccessKey) {
    public StaticCredentials {
      Objects.requireNonNull(accessKeyId, "accessKeyId");
      Objects.requireNonNull(secretAccessKey, "secretAccessKey");
      if (accessKeyId.isBlank() || secretAccessKey.isBlank()) {
        throw new IllegalArgumentException(
            "S3 archive store: static credentials need an access key id and a secret key, both"
                + " not blank; leave them out to use the SDK's default credentials chain");
      }
    }

    @Override
    public String toString() {
      return "StaticCredentials[accessKeyId=" + accessKeyId + ", secretAccessKey=***]";
    }
  }
}
