package dev.berth.archive.s3;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.pagination.sync.SdkIterable;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * The S3 requests the store makes, on one bucket. Every failure of the SDK or the server leaves as
 * an {@link UncheckedIOException} saying what was being done, as the filesystem store's do; a
 * missing object is an empty answer, and a refused conditional put is {@code false}.
 */
final class Bucket {
  private static final int NOT_FOUND = 404;
  private static final int PRECONDITION_FAILED = 412;

  /** S3 answers 409 when conditional writes of one key overlap; the write may be tried again. */
  private static final int CONDITIONAL_CONFLICT = 409;

  private static final int CONFLICT_TRIES = 3;

  private final S3Client client;
  private final String name;

  Bucket(S3Client client, String name) {
    this.client = client;
    this.name = name;
  }

  String name() {
    return name;
  }

  boolean exists(String key) {
    return call(
            "look for " + key,
            () -> unlessMissing(() -> client.headObject(b -> b.bucket(name).key(key))))
        .isPresent();
  }

  Optional<byte[]> read(String key) {
    return call(
        "read " + key,
        () ->
            unlessMissing(
                () -> client.getObjectAsBytes(b -> b.bucket(name).key(key)).asByteArray()));
  }

  /** A stream of the object's bytes, or empty when it does not exist. */
  Optional<InputStream> open(String key) {
    return call(
        "open " + key,
        () -> unlessMissing(() -> (InputStream) client.getObject(b -> b.bucket(name).key(key))));
  }

  /**
   * Writes a small object only if no object has its key ({@code If-None-Match: *}).
   *
   * @return false when the key was taken
   */
  boolean putIfAbsent(String key, byte[] body) {
    String checksum = sha256(body, body.length);
    return call(
        "write " + key,
        () -> {
          for (int tries = 1; ; tries++) {
            try {
              client.putObject(
                  b ->
                      b.bucket(name)
                          .key(key)
                          .ifNoneMatch("*")
                          .contentType("application/json")
                          .checksumSHA256(checksum),
                  RequestBody.fromBytes(body));
              return true;
            } catch (S3Exception e) {
              if (e.statusCode() == PRECONDITION_FAILED) {
                return false;
              }
              if (e.statusCode() != CONDITIONAL_CONFLICT || tries == CONFLICT_TRIES) {
                throw e;
              }
            }
          }
        });
  }

  void delete(String key) {
    call("delete " + key, () -> client.deleteObject(b -> b.bucket(name).key(key)));
  }

  /** Starts a multipart upload whose parts carry SHA-256 checksums; returns its upload id. */
  String startUpload(String key) {
    return call(
        "start an upload to " + key,
        () ->
            client
                .createMultipartUpload(
                    b ->
                        b.bucket(name)
                            .key(key)
                            .contentType("application/octet-stream")
                            .checksumAlgorithm(ChecksumAlgorithm.SHA256))
                .uploadId());
  }

  /**
   * Sends {@code length} bytes of {@code buffer} as part {@code number}, with their SHA-256 for the
   * server to check. The body is read from the buffer, not copied, and again on a retry.
   */
  CompletedPart uploadPart(String key, String uploadId, int number, byte[] buffer, int length) {
    String checksum = sha256(buffer, length);
    UploadPartResponse response =
        call(
            "send part " + number + " of " + key,
            () ->
                client.uploadPart(
                    b ->
                        b.bucket(name)
                            .key(key)
                            .uploadId(uploadId)
                            .partNumber(number)
                            .contentLength((long) length)
                            .checksumSHA256(checksum),
                    RequestBody.fromContentProvider(
                        () -> new ByteArrayInputStream(buffer, 0, length),
                        length,
                        "application/octet-stream")));
    return CompletedPart.builder()
        .partNumber(number)
        .eTag(response.eTag())
        .checksumSHA256(checksum)
        .build();
  }

  void completeUpload(String key, String uploadId, List<CompletedPart> parts) {
    call(
        "complete the upload to " + key,
        () ->
            client.completeMultipartUpload(
                b ->
                    b.bucket(name)
                        .key(key)
                        .uploadId(uploadId)
                        .multipartUpload(m -> m.parts(parts))));
  }

  /** Aborts a multipart upload; one aborted already (by a sweep, or an earlier try) is fine. */
  void abortUpload(String key, String uploadId) {
    call(
        "abort the upload to " + key,
        () ->
            unlessMissing(
                () ->
                    client.abortMultipartUpload(b -> b.bucket(name).key(key).uploadId(uploadId))));
  }

  /** Hands every object under {@code prefix} to {@code each}, in key order, page by page. */
  void forEachObject(String prefix, Consumer<S3Object> each) {
    forEach(
        "list " + prefix,
        () -> client.listObjectsV2Paginator(b -> b.bucket(name).prefix(prefix)).contents(),
        each);
  }

  /** Hands every multipart upload in flight under {@code prefix} to {@code each}. */
  void forEachUpload(String prefix, Consumer<MultipartUpload> each) {
    forEach(
        "list the uploads under " + prefix,
        () -> client.listMultipartUploadsPaginator(b -> b.bucket(name).prefix(prefix)).uploads(),
        each);
  }

  /** Pages are fetched as they are read, so a failure can come from inside the iteration. */
  private <T> void forEach(String what, Supplier<SdkIterable<T>> pages, Consumer<T> each) {
    call(
        what,
        () -> {
          pages.get().forEach(each);
          return true;
        });
  }

  /** The answer, or empty when the server says the object (or upload) does not exist. */
  private static <T> Optional<T> unlessMissing(Supplier<T> request) {
    try {
      return Optional.of(request.get());
    } catch (S3Exception e) {
      if (e.statusCode() == NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private <T> T call(String what, Supplier<T> request) {
    try {
      return request.get();
    } catch (SdkException e) {
      String message = "cannot " + what + " in bucket " + name + ": " + e.getMessage();
      throw new UncheckedIOException(message, new IOException(message, e));
    }
  }

  /** The base64 SHA-256 of {@code length} bytes of {@code bytes}, as S3 headers carry it. */
  static String sha256(byte[] bytes, int length) {
    MessageDigest digest = dev.berth.core.digest.Sha256.newDigest();
    digest.update(bytes, 0, length);
    return Base64.getEncoder().encodeToString(digest.digest());
  }
}
