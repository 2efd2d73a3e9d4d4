/**
 * The archive store on S3-compatible object storage: {@link dev.berth.archive.s3.S3ArchiveStore},
 * configured by {@link dev.berth.archive.s3.S3ArchiveSettings} (from a URI by {@link
 * dev.berth.archive.s3.S3ArchiveUri}).
 *
 * <p><b>Layout.</b> Under the store's prefix, one folder per session; in it, for each committed
 * generation, the marker {@code <generation>.json} and the data object {@code
 * <generation>.<owner>.<token>.tar.zst} that the marker names. The token is random for every
 * upload, so two uploads of one generation write different data objects and the loser of a race
 * never overwrites the winner's bytes.
 *
 * <p><b>Upload.</b> {@code begin} refuses a generation whose marker exists and starts a multipart
 * upload of a new data object, with SHA-256 checksums. The bytes go through one buffer per upload
 * that grows up to a part (8 MiB by default) and is sent as a part when full, with the part's
 * SHA-256 for the server to check; meanwhile the whole archive's SHA-256 and size are counted, for
 * the {@code ArchiveRef}. An archive is never held in memory beyond one part.
 *
 * <p><b>Commit,</b> in this order: send the last part (possibly short, or empty for an empty
 * archive); look for the marker again (refused if it exists, before the data object is made);
 * complete the multipart upload; write the marker with {@code If-None-Match: *}. The marker is the
 * commit point: {@code list} and {@code open} go by markers only, so before it nothing is visible,
 * and after it the archive is whole and described. A crash anywhere before it leaves a multipart
 * upload or a data object that no marker names: invisible, and a leftover.
 *
 * <p><b>Immutability.</b> The conditional put decides a race between two uploads of a generation:
 * the second is answered 412 and refused with {@code AlreadyExistsException}, and it deletes its
 * own data object. A server that ignores {@code If-None-Match} on PutObject would let the later of
 * two commits that pass the check at the same moment replace the marker (the data objects stay
 * apart); AWS S3 honours it since 2024, and the adapter's tests check that the test server does.
 *
 * <p><b>Delete</b> goes as the filesystem store's does: marker first (the archive is gone at once),
 * then the data object. Deleting a missing archive does nothing.
 *
 * <p><b>Leftovers, and the rule for sweeping them.</b> In a cluster several control-plane replicas
 * share one bucket, so a process that starts must not take another replica's upload in flight for a
 * leftover. Each store instance is given an <em>owner</em> id, written into the name of every data
 * object it uploads; it must be unique among the running replicas and stay the same when one of
 * them restarts (a StatefulSet pod name, a host name). A sweep (at construction, and whenever
 * {@code sweep()} is called) removes a multipart upload or a data object that no marker names when:
 *
 * <ul>
 *   <li>its owner is this store's and this instance does not have it in flight: a restarted process
 *       owns no upload in flight, so what its predecessor of the same id left is swept at once, as
 *       the port's contract asks; or
 *   <li>it is older than the stale age (a day by default; multipart uploads by their initiation
 *       time, data objects by their last modification): a replica that never comes back, or whose
 *       id changed, has its leftovers removed by the others, long after any upload would have
 *       finished.
 * </ul>
 *
 * Another owner's younger upload is never touched, nor is any object whose name is not of this
 * layout. Ages compare the server's times with the store's clock, so a clock skew shortens or
 * lengthens the stale age by as much; the age is kept at a minute at least. Two running replicas
 * given the same owner id would sweep each other's uploads: the id is what keeps them apart. A
 * bucket lifecycle rule that aborts incomplete multipart uploads after some days is a good second
 * line, and does not conflict with this one.
 */
@NullMarked
package dev.berth.archive.s3;

import org.jspecify.annotations.NullMarked;
