package dev.berth.archive.s3;

import java.util.List;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.MultipartUpload;

/** What a prefix of the test bucket holds, read straight from the server. */
record BucketContents(List<String> keys, List<MultipartUpload> uploads) {

  static BucketContents of(S3Client client, String prefix) {
    List<String> keys =
        client
            .listObjectsV2Paginator(b -> b.bucket(S3TestServer.BUCKET).prefix(prefix))
            .contents()
            .stream()
            .map(o -> o.key().substring(prefix.length()))
            .sorted()
            .toList();
    List<MultipartUpload> uploads =
        client
            .listMultipartUploadsPaginator(b -> b.bucket(S3TestServer.BUCKET).prefix(prefix))
            .uploads()
            .stream()
            .toList();
    return new BucketContents(keys, uploads);
  }

  List<String> markers() {
    return keys.stream().filter(k -> k.endsWith(ArchiveKeys.MARKER_SUFFIX)).toList();
  }

  List<String> data() {
    return keys.stream().filter(k -> k.endsWith(ArchiveKeys.DATA_SUFFIX)).toList();
  }

  /** Uploads in flight plus data objects whose generation has no marker. */
  long leftovers() {
    long orphans =
        data().stream()
            .filter(d -> !markers().contains(d.substring(0, d.indexOf('.')) + ".json"))
            .count();
    return uploads.size() + orphans;
  }
}
