package dev.berth.agent.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Walks a platform directory for what group or others may reach (issue 11), leaving out what the
 * sandboxed workload owns: a runtime's {@code home}, {@code tmp} and {@code shell-state} under its
 * {@code state/} (or a restore's staging copy of it), and everything in them.
 */
public final class PrivateTree {

  private static final Set<String> WORKLOAD = Set.of("home", "tmp", "shell-state");

  private PrivateTree() {}

  /** Each exposed path, relative to {@code root}, with its mode: {@code "node.log rw-r--r--"}. */
  public static List<String> exposed(Path root) {
    List<String> found = new ArrayList<>();
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.toList()) {
        Path relative = root.relativize(path);
        if (isWorkloads(relative) || Files.isSymbolicLink(path)) {
          continue;
        }
        Set<PosixFilePermission> mode =
            Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS);
        String text = PosixFilePermissions.toString(mode);
        if (!text.endsWith("------")) {
          found.add((relative.toString().isEmpty() ? "." : relative) + " " + text);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot walk " + root, e);
    }
    return found;
  }

  /** How many regular files the walk saw outside the workload's directories (to show it looked). */
  public static long platformFiles(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      return paths
          .filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
          .filter(p -> !isWorkloads(root.relativize(p)))
          .count();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot walk " + root, e);
    }
  }

  private static boolean isWorkloads(Path relative) {
    for (int i = 1; i < relative.getNameCount(); i++) {
      String parent = relative.getName(i - 1).toString();
      boolean inState = parent.equals("state") || parent.startsWith(".state.restore-");
      if (inState && WORKLOAD.contains(relative.getName(i).toString())) {
        return true;
      }
    }
    return false;
  }
}
