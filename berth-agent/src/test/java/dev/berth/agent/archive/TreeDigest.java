package dev.berth.agent.archive;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A byte-for-byte description of a tree, for comparing before and after: every path (links not
 * followed) with its type, permission bits, and content hash, size and mtime, or link target.
 */
final class TreeDigest {

  private TreeDigest() {}

  static Map<String, String> of(Path root) {
    Map<String, String> tree = new TreeMap<>();
    try (Stream<Path> paths = Files.walk(root)) {
      paths.forEach(p -> tree.put(root.relativize(p).toString(), describe(p)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return tree;
  }

  @SuppressWarnings("EnumOrdinal") // PosixFilePermission is declared in the mode's bit order
  static int mode(Set<PosixFilePermission> perms) {
    int mode = 0;
    for (PosixFilePermission p : perms) {
      mode |= 0400 >> p.ordinal();
    }
    return mode;
  }

  static String sha256(Path file) throws IOException {
    MessageDigest sha = ArchiveFormat.sha256();
    try (InputStream in = new DigestInputStream(Files.newInputStream(file, NOFOLLOW_LINKS), sha)) {
      in.transferTo(OutputStream.nullOutputStream());
    }
    return ArchiveFormat.hex(sha.digest());
  }

  private static String describe(Path p) {
    try {
      PosixFileAttributes a = Files.readAttributes(p, PosixFileAttributes.class, NOFOLLOW_LINKS);
      String mode = ArchiveFormat.octal(mode(a.permissions()));
      if (a.isSymbolicLink()) {
        return "link -> " + Files.readSymbolicLink(p);
      } else if (a.isDirectory()) {
        return "dir " + mode;
      } else if (a.isRegularFile()) {
        long mtime = a.lastModifiedTime().toMillis() / 1000;
        return "file " + mode + " " + a.size() + " " + sha256(p) + " @" + mtime;
      }
      return "other " + mode;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
