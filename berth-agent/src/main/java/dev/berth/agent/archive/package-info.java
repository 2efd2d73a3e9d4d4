/**
 * Archives of a runtime's state directory: {@link dev.berth.agent.archive.ArchiveWriter} writes
 * one, {@link dev.berth.agent.archive.ArchiveRestorer} restores one over a directory, all or
 * nothing, and refuses anything hostile (reliability §5.1, §5.2).
 *
 * <h2>Format 1</h2>
 *
 * A POSIX (PAX) tar stream, compressed as zstd level 3 with a frame checksum and a window of at
 * most 8 MiB. Entries are relative {@code /}-separated paths, directories with a trailing slash,
 * owned by 0:0 (ownership is never restored), with permission bits (never setuid, setgid, sticky or
 * world-write) and a modification time in whole seconds. Directories and regular files come first,
 * depth first with siblings sorted by name, parents before children; symlinks follow; the manifest
 * {@code BERTH-MANIFEST.json} is the last entry, so the writer hashes while it streams and holds
 * only the list of paths:
 *
 * <pre>{@code
 * {"format":1,"session":"…","generation":7,"createdAt":"2026-…Z",
 *  "files":[{"path":"home","type":"dir","size":0,"mode":"0755"},
 *           {"path":"home/a.txt","type":"file","size":5,"mode":"0644","sha256":"…"},
 *           {"path":"home/l","type":"symlink","size":0,"mode":"0777","target":"a.txt"}],
 *  "totalBytes":5,"digest":"…"}
 * }</pre>
 *
 * {@code digest} is SHA-256 over the canonical file list (defined in {@code ArchiveFormat}). Only
 * directories, regular files and symlinks are archived; the writer leaves out, and lists in its
 * {@link dev.berth.agent.archive.ArchiveSummary}, sockets, FIFOs, devices, unreadable files, names
 * the restorer would refuse, and symlinks that are absolute or leave the tree (so a Python venv's
 * {@code bin/python -> /usr/bin/python3} does not survive). Lock files ({@code *.lock}) are never
 * archived.
 *
 * <h2>Safety rules of a restore</h2>
 *
 * Reject, never sanitize. Any of these refuses the whole archive with {@code ARCHIVE_UNSAFE}: an
 * absolute path or drive letter, a {@code ..}, {@code .} or empty segment, a control character, a
 * path over 1024 bytes, 64 segments or a segment over 255 bytes; a duplicate path, also after
 * Unicode NFC normalization; a hardlink (Berth never writes one); a device, FIFO, sparse or unknown
 * entry; setuid, setgid, sticky or world-write bits; a symlink whose target is absolute, leaves the
 * root, is the root itself, or passes through another symlink of the archive; an entry below a
 * symlink of the archive (a write through a link); more entries, bytes per file or bytes in total
 * than {@link dev.berth.agent.archive.ArchiveLimits} allow; a decoded/compressed ratio above the
 * limit after the first MiB; a header (PAX, long name) over 64 KiB; a zstd frame asking for a
 * window over 8 MiB. {@code ARCHIVE_CORRUPT}: broken zstd or tar framing, data after the tar end,
 * an entry whose parent directory did not come before it, no manifest, an entry after the manifest,
 * an unreadable manifest, a digest that does not match the manifest's list, an entry the manifest
 * does not list or lists differently, a listed entry that is missing, or a manifest of another
 * session or generation than the expected one.
 *
 * <p>Extraction goes into a fresh {@code .NAME.restore-staging} directory beside the target. Sizes
 * are checked from the header before a byte is written. Files are created with {@code CREATE_NEW}
 * and {@code NOFOLLOW_LINKS} (O_EXCL|O_NOFOLLOW) below a parent whose real path is checked;
 * symlinks are created only after the whole archive verified, so nothing is ever written through
 * one. Files are forced to disk, directories get their modes and times last, and then the staging
 * directory is swapped in by two renames; {@code StagingSwap} describes the crash states and their
 * recovery. Java has no {@code openat2(RESOLVE_BENEATH)}: the real-path check and the
 * final-component O_NOFOLLOW leave a race against a process that swaps a staging directory for a
 * symlink mid-restore, which is why the workload must not run while its state is restored
 * and the staging directory is private (0700).
 */
@NullMarked
package dev.berth.agent.archive;

import org.jspecify.annotations.NullMarked;
