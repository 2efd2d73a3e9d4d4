package dev.berth.agent.archive;

import dev.berth.agent.archive.EntryNames.Problem;
import java.text.Normalizer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.jspecify.annotations.Nullable;

/**
 * The checks an entry must pass, from its header alone and what came before it, before a byte of it
 * reaches the disk: count, type, name, mode, duplicates, the directories above it, sizes, and a
 * symlink's target. Remembers what it admitted so that later entries are judged against it.
 */
final class EntryGate {

  /** An admitted entry: its type, its path without a trailing slash, its permission bits. */
  record Admitted(EntryType type, String path, int mode) {}

  /** An admitted symlink, created only after the whole archive verified. */
  record Link(String target, long index) {}

  private final ArchiveLimits limits;
  private final Map<String, EntryType> types = new HashMap<>();
  private final Set<String> normalized = new HashSet<>();
  private final Map<String, Link> links = new LinkedHashMap<>();
  private long totalBytes;

  EntryGate(ArchiveLimits limits) {
    this.limits = limits;
  }

  Admitted admit(TarArchiveEntry entry, long index) {
    String name = entry.getName();
    if (types.size() >= limits.maxEntries()) {
      throw fail(
          Violation.ENTRY_COUNT_LIMIT,
          index,
          name,
          "the archive has more than " + limits.maxEntries() + " entries");
    }
    EntryType type = type(entry, index);
    String path =
        type == EntryType.DIR && name.endsWith("/") ? name.substring(0, name.length() - 1) : name;
    refuse(EntryNames.problem(path, limits), index, name);
    if (path.equals(ArchiveFormat.MANIFEST_NAME)) {
      throw fail(Violation.BAD_NAME, index, name, "the name is reserved for the manifest");
    }
    int mode = mode(entry, type, index);
    if (types.containsKey(path)
        || !normalized.add(Normalizer.normalize(path, Normalizer.Form.NFC))) {
      throw fail(
          Violation.DUPLICATE_PATH,
          index,
          name,
          "the path (or its Unicode-normalized form) appeared earlier");
    }
    checkAncestors(path, index, name);
    checkSize(entry, type, index);
    if (type == EntryType.SYMLINK) {
      refuse(LinkTargets.problem(path, entry.getLinkName(), links.keySet(), limits), index, name);
      links.put(path, new Link(entry.getLinkName(), index));
    }
    types.put(path, type);
    return new Admitted(type, path, mode);
  }

  /** The admitted symlinks, each checked again against all of them (later ones included). */
  Map<String, Link> links() {
    links.forEach(
        (path, link) ->
            refuse(
                LinkTargets.problem(path, link.target(), links.keySet(), limits),
                link.index(),
                path));
    return links;
  }

  /** The entry's type, or a refusal for hardlinks, devices, FIFOs, sparse and unknown entries. */
  private static EntryType type(TarArchiveEntry entry, long index) {
    String name = entry.getName();
    if (entry.isSparse()) {
      throw fail(Violation.SPECIAL_FILE, index, name, "sparse entries are not accepted");
    }
    byte flag = entry.getLinkFlag();
    return switch (flag) {
      case TarConstants.LF_DIR -> EntryType.DIR;
      case TarConstants.LF_NORMAL, TarConstants.LF_OLDNORM -> EntryType.FILE;
      case TarConstants.LF_SYMLINK -> EntryType.SYMLINK;
      case TarConstants.LF_LINK ->
          throw fail(
              Violation.HARDLINK,
              index,
              name,
              "hard links are never written by Berth and never accepted (to \""
                  + entry.getLinkName()
                  + "\")");
      case TarConstants.LF_CHR, TarConstants.LF_BLK ->
          throw fail(Violation.SPECIAL_FILE, index, name, "device files are not accepted");
      case TarConstants.LF_FIFO ->
          throw fail(Violation.SPECIAL_FILE, index, name, "FIFOs are not accepted");
      default ->
          throw fail(
              Violation.SPECIAL_FILE,
              index,
              name,
              "entry type '" + (char) flag + "' is not accepted");
    };
  }

  /** Permission bits; setuid, setgid, sticky and world-write are refused, not stripped. */
  private static int mode(TarArchiveEntry entry, EntryType type, long index) {
    int mode = entry.getMode() & 07777;
    if (type != EntryType.SYMLINK
        && (mode & (ArchiveFormat.SPECIAL_BITS | ArchiveFormat.WORLD_WRITE)) != 0) {
      throw fail(
          Violation.SPECIAL_MODE,
          index,
          entry.getName(),
          "mode "
              + ArchiveFormat.octal(mode)
              + " sets setuid, setgid, sticky or world-write; Berth refuses rather than strips them");
    }
    return mode & ArchiveFormat.PERMISSION_BITS;
  }

  /** Every ancestor is an earlier directory entry; a symlink among them is a write through it. */
  private void checkAncestors(String path, long index, String name) {
    String parent = EntryNames.parent(path);
    for (String prefix = parent; !prefix.isEmpty(); prefix = EntryNames.parent(prefix)) {
      if (types.get(prefix) == EntryType.SYMLINK) {
        throw fail(
            Violation.WRITE_THROUGH_LINK,
            index,
            name,
            "the path goes through the symlink \"" + prefix + "\" of an earlier entry");
      }
    }
    if (!parent.isEmpty() && types.get(parent) != EntryType.DIR) {
      throw fail(
          Violation.MISSING_PARENT,
          index,
          name,
          "the parent directory \"" + parent + "\" is not an earlier directory entry");
    }
  }

  private void checkSize(TarArchiveEntry entry, EntryType type, long index) {
    String name = entry.getName();
    long size = entry.getSize();
    if (type != EntryType.FILE) {
      if (size != 0) {
        throw fail(
            Violation.BAD_FRAMING,
            index,
            name,
            "a " + type.json() + " entry carries " + size + " bytes of content");
      }
      return;
    }
    if (size > limits.maxEntryBytes()) {
      throw fail(
          Violation.ENTRY_SIZE_LIMIT,
          index,
          name,
          "the file is " + size + " bytes; the limit is " + limits.maxEntryBytes());
    }
    if (size > limits.maxTotalBytes() - totalBytes) {
      throw fail(
          Violation.TOTAL_BYTES_LIMIT,
          index,
          name,
          "the files add up to more than " + limits.maxTotalBytes() + " bytes");
    }
    totalBytes += size;
  }

  private static void refuse(Optional<Problem> problem, long index, String name) {
    if (problem.isPresent()) {
      throw fail(problem.get().violation(), index, name, problem.get().detail());
    }
  }

  static ArchiveException fail(
      Violation violation, long index, @Nullable String name, String detail) {
    return ArchiveException.of(violation, index, name, detail, null);
  }
}
