package dev.berth.agent.archive;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Decides what an archive of a root holds, before any byte is written: directories and regular
 * files in depth-first order with siblings sorted by name, then the symlinks that pass {@link
 * LinkTargets}. Nothing is followed. It leaves out, and lists why: sockets, FIFOs and devices,
 * names the restorer would refuse ({@link EntryNames}), a second name equal to another after
 * Unicode normalization, unreadable directories, symlinks outside home/ and tmp/ or whose relative
 * target leaves their tree, and a top-level file named like the manifest. Lock files ({@code
 * *.lock}) and excluded paths are left out silently; an excluded directory is not entered.
 */
final class TreeScan {
  private static final ArchiveLimits RULES = ArchiveLimits.defaults();

  /** One path to archive; {@code target} only for a symlink. */
  record Item(
      Path file,
      String path,
      EntryType type,
      long size,
      int mode,
      FileTime mtime,
      @Nullable String target) {}

  record Result(List<Item> items, List<String> skipped) {}

  private final Predicate<String> exclude;
  private final List<Item> items = new ArrayList<>();
  private final List<Item> links = new ArrayList<>();
  private final List<String> skipped = new ArrayList<>();
  private final Set<String> normalized = new HashSet<>();

  private TreeScan(Predicate<String> exclude) {
    this.exclude = exclude;
  }

  static Result scan(Path root, Predicate<String> exclude) throws IOException {
    TreeScan scan = new TreeScan(exclude);
    scan.walk(root, "");
    scan.addLinks();
    return new Result(List.copyOf(scan.items), List.copyOf(scan.skipped));
  }

  private void walk(Path dir, String rel) throws IOException {
    for (Path child : sortedChildren(dir, rel)) {
      String name = child.getFileName().toString();
      String path = rel.isEmpty() ? name : rel + "/" + name;
      if (rel.isEmpty() && name.equals(ArchiveFormat.MANIFEST_NAME)) {
        skipped.add(path + ": the name is reserved for the manifest");
      } else if (!exclude.test(path)) {
        visit(child, path);
      }
    }
  }

  private void visit(Path file, String path) throws IOException {
    Map<String, Object> a =
        Files.readAttributes(file, "unix:mode,size,lastModifiedTime", NOFOLLOW_LINKS);
    int mode = (Integer) attribute(a, "mode");
    String kind = kind(mode);
    if (!kind.equals("dir") && path.endsWith(".lock")) {
      return;
    }
    Optional<String> problem = problem(path, kind);
    if (problem.isPresent()) {
      skipped.add(path + ": " + problem.get());
      return;
    }
    int perms = mode & ArchiveFormat.PERMISSION_BITS & ~ArchiveFormat.WORLD_WRITE;
    FileTime mtime = (FileTime) attribute(a, "lastModifiedTime");
    switch (kind) {
      case "dir" -> {
        items.add(new Item(file, path, EntryType.DIR, 0, perms, mtime, null));
        walk(file, path);
      }
      case "file" ->
          items.add(
              new Item(
                  file, path, EntryType.FILE, (Long) attribute(a, "size"), perms, mtime, null));
      default -> {
        String target = Files.readSymbolicLink(file).toString();
        links.add(
            new Item(file, path, EntryType.SYMLINK, 0, ArchiveFormat.SYMLINK_MODE, mtime, target));
      }
    }
  }

  /** One of the attributes asked for: readAttributes returns every one it is asked for. */
  private static Object attribute(Map<String, Object> attributes, String name) {
    return Objects.requireNonNull(attributes.get(name), name);
  }

  private Optional<String> problem(String path, String kind) {
    if (!kind.equals("dir") && !kind.equals("file") && !kind.equals("symlink")) {
      return Optional.of(kind);
    }
    Optional<String> name = EntryNames.problem(path, RULES).map(EntryNames.Problem::detail);
    if (name.isPresent()) {
      return name;
    }
    if (!normalized.add(Normalizer.normalize(path, Normalizer.Form.NFC))) {
      return Optional.of("the name equals another one after Unicode normalization");
    }
    return Optional.empty();
  }

  private void addLinks() {
    Set<String> all = links.stream().map(Item::path).collect(Collectors.toSet());
    for (Item link : links) {
      Optional<EntryNames.Problem> p =
          LinkTargets.problem(link.path(), Objects.requireNonNull(link.target()), all, RULES);
      if (p.isPresent()) {
        skipped.add(link.path() + ": " + p.get().detail());
      } else {
        items.add(link);
      }
    }
  }

  private List<Path> sortedChildren(Path dir, String rel) throws IOException {
    List<Path> children = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
      stream.forEach(children::add);
    } catch (AccessDeniedException e) {
      skipped.add(
          (rel.isEmpty() ? "." : rel)
              + ": the directory cannot be read, its contents are left out");
    }
    children.sort(Comparator.comparing(p -> p.getFileName().toString()));
    return children;
  }

  private static String kind(int mode) {
    return switch (mode & 0170000) {
      case 0040000 -> "dir";
      case 0100000 -> "file";
      case 0120000 -> "symlink";
      case 0140000 -> "socket";
      case 0010000 -> "fifo";
      case 0020000 -> "character device";
      case 0060000 -> "block device";
      default -> "unknown file type";
    };
  }
}
