package dev.berth.archive.s3;

import static dev.berth.archive.s3.S3ArchiveSettings.invalid;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads {@link S3ArchiveSettings} from a URI, the form a server flag takes:
 *
 * <pre>
 * s3://BUCKET[/PREFIX][?endpoint=URL&amp;region=NAME&amp;pathStyle=true|false
 *                      &amp;partSizeMiB=N&amp;staleAfter=ISO-8601-DURATION]
 * </pre>
 *
 * <p>The prefix is the path without its leading slash, with a trailing slash added ({@code
 * s3://b/berth/archives} keeps its keys under {@code berth/archives/}). {@code pathStyle} defaults
 * to true when an {@code endpoint} is given (S3-compatible servers rarely have a DNS name per
 * bucket) and to false otherwise (AWS). Credentials never come from the URI: a URI lands in logs,
 * process lists and shell histories, so a key in it is refused, and the store takes the SDK's
 * default credentials chain (or static keys given through {@link
 * S3ArchiveSettings#withStaticCredentials}).
 *
 * <p>Every refusal is an {@link IllegalArgumentException} naming the part of the URI, the rule, the
 * value given and what to write instead.
 */
public final class S3ArchiveUri {
  static final String ENDPOINT = "endpoint";
  static final String REGION = "region";
  static final String PATH_STYLE = "pathStyle";
  static final String PART_SIZE = "partSizeMiB";
  static final String STALE_AFTER = "staleAfter";
  private static final Set<String> OPTIONS =
      Set.of(ENDPOINT, REGION, PATH_STYLE, PART_SIZE, STALE_AFTER);
  private static final String EXAMPLE =
      "s3://bucket/prefix?endpoint=http://127.0.0.1:9000&region=us-east-1&pathStyle=true";

  private S3ArchiveUri() {}

  /** Parses {@code text}, e.g. a flag's value. */
  public static S3ArchiveSettings parse(String text) {
    URI uri;
    try {
      uri = new URI(text);
    } catch (URISyntaxException e) {
      throw invalid("archive URI", text, "a URI (" + e.getReason() + ")", "write it as " + EXAMPLE);
    }
    return parse(uri);
  }

  public static S3ArchiveSettings parse(URI uri) {
    String text = uri.toString();
    if (uri.getScheme() == null || !uri.getScheme().equalsIgnoreCase("s3")) {
      throw invalid("archive URI's scheme", text, "s3", "write it as " + EXAMPLE);
    }
    String authority = uri.getRawAuthority();
    if (uri.getRawUserInfo() != null || (authority != null && authority.contains("@"))) {
      throw invalid(
          "archive URI",
          redacted(uri),
          "free of credentials (they would show in logs and process lists)",
          "leave them to the SDK's default chain, e.g. AWS_ACCESS_KEY_ID and"
              + " AWS_SECRET_ACCESS_KEY");
    }
    String bucket = authority;
    if (bucket == null || bucket.isEmpty()) {
      throw invalid("archive URI's bucket", text, "given after s3://", "write it as " + EXAMPLE);
    }
    if (uri.getPort() != -1 || bucket.contains(":")) {
      throw invalid(
          "archive URI's bucket",
          bucket,
          "a bucket name without a port",
          "name the server in ?endpoint=, e.g. ?endpoint=http://" + bucket);
    }
    if (uri.getRawFragment() != null) {
      throw invalid(
          "archive URI", text, "without a #fragment", "remove the part from # on, or encode #");
    }
    Map<String, String> options = options(uri);
    S3ArchiveSettings settings = S3ArchiveSettings.of(bucket, prefix(uri));
    return configure(settings, options);
  }

  private static S3ArchiveSettings configure(S3ArchiveSettings base, Map<String, String> options) {
    S3ArchiveSettings settings = base;
    String endpoint = options.get(ENDPOINT);
    if (endpoint != null) {
      boolean byPath = !options.containsKey(PATH_STYLE) || bool(options.get(PATH_STYLE));
      settings = settings.withEndpoint(endpoint(endpoint), byPath);
    } else if (options.containsKey(PATH_STYLE)) {
      settings =
          new S3ArchiveSettings(
              settings.bucket(),
              settings.prefix(),
              settings.region(),
              settings.endpoint(),
              bool(options.get(PATH_STYLE)),
              settings.credentials(),
              settings.partSizeBytes(),
              settings.staleAfter());
    }
    String region = options.get(REGION);
    if (region != null) {
      settings = settings.withRegion(region);
    }
    String partSize = options.get(PART_SIZE);
    if (partSize != null) {
      settings = settings.withPartSize(partSizeMiB(partSize) * 1024 * 1024);
    }
    String staleAfter = options.get(STALE_AFTER);
    if (staleAfter != null) {
      settings = settings.withStaleAfter(duration(staleAfter));
    }
    return settings;
  }

  private static String prefix(URI uri) {
    String path = uri.getPath();
    if (path == null || path.isEmpty() || path.equals("/")) {
      return "";
    }
    String prefix = path.substring(1);
    return prefix.endsWith("/") ? prefix : prefix + "/";
  }

  private static Map<String, String> options(URI uri) {
    Map<String, String> options = new LinkedHashMap<>();
    String query = uri.getRawQuery();
    if (query == null || query.isEmpty()) {
      return options;
    }
    for (String pair : query.split("&")) {
      int eq = pair.indexOf('=');
      String name = decode(eq < 0 ? pair : pair.substring(0, eq));
      String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
      if (!OPTIONS.contains(name)) {
        throw invalid(
            "archive URI's option",
            name,
            "one of " + String.join(", ", OPTIONS.stream().sorted().toList()),
            "remove it, or check its spelling (the names are case-sensitive)");
      }
      if (value.isEmpty()) {
        throw invalid(
            "archive URI's option " + name, pair, "given a value", "write it as " + name + "=…");
      }
      if (options.put(name, value) != null) {
        throw invalid("archive URI's option " + name, value, "given once", "keep one of them");
      }
    }
    return options;
  }

  private static URI endpoint(String value) {
    URI endpoint;
    try {
      endpoint = new URI(value);
    } catch (URISyntaxException e) {
      throw invalid(
          "archive URI's endpoint",
          value,
          "a URL (" + e.getReason() + ")",
          "e.g. endpoint=http://127.0.0.1:9000");
    }
    String scheme =
        endpoint.getScheme() == null ? "" : endpoint.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("http") || scheme.equals("https")) || endpoint.getHost() == null) {
      throw invalid(
          "archive URI's endpoint",
          value,
          "an http or https URL with a host",
          "e.g. endpoint=http://127.0.0.1:9000");
    }
    if (endpoint.getRawUserInfo() != null) {
      throw invalid(
          "archive URI's endpoint",
          "(redacted)",
          "free of credentials (they would show in logs and process lists)",
          "leave them to the SDK's default chain");
    }
    return endpoint;
  }

  private static boolean bool(String value) {
    return switch (value) {
      case "true" -> true;
      case "false" -> false;
      default ->
          throw invalid(
              "archive URI's option " + PATH_STYLE, value, "true or false", "e.g. pathStyle=true");
    };
  }

  private static int partSizeMiB(String value) {
    try {
      int mib = Integer.parseInt(value);
      if (mib >= S3ArchiveSettings.MIN_PART_SIZE >> 20
          && mib <= S3ArchiveSettings.MAX_PART_SIZE >> 20) {
        return mib;
      }
    } catch (NumberFormatException e) {
      // Refused below, with the same message as a number out of range.
    }
    throw invalid(
        "archive URI's option " + PART_SIZE,
        value,
        "a whole number of MiB from 5 to 512",
        "leave it out for 8 MiB parts");
  }

  private static Duration duration(String value) {
    try {
      return Duration.parse(value);
    } catch (DateTimeParseException e) {
      throw invalid(
          "archive URI's option " + STALE_AFTER,
          value,
          "an ISO-8601 duration",
          "e.g. staleAfter=PT24H, or leave it out for a day");
    }
  }

  private static String decode(String raw) {
    return URLDecoder.decode(raw, StandardCharsets.UTF_8);
  }

  /** The URI with its user information replaced, so that a refusal does not print a secret. */
  private static String redacted(URI uri) {
    String authority = String.valueOf(uri.getRawAuthority());
    String host = authority.substring(authority.lastIndexOf('@') + 1);
    return uri.getScheme() + "://***@" + host + (uri.getRawPath() == null ? "" : uri.getRawPath());
  }
}
