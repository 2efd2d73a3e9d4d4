package dev.berth.agent.isolation;

import dev.berth.protocol.files.PrivateFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collection;

/**
 * The host uids an agent running as root gives its sessions, one per launch plan: uids from {@link
 * #BASE} on, far above any account a distribution creates and above the usual {@code /etc/subuid}
 * ranges, claimed by creating a file named after the uid (creation is atomic, so two plans never
 * get one uid). A plan's uid starts from a hash of its name and probes upwards, so a plan that is
 * created again (a restarted agent adopting its runtime) finds its own claim and keeps its uid.
 */
final class UidClaims {
  /** The first uid handed out: 2^30. */
  static final long BASE = 1L << 30;

  /** How many uids the claims range over. */
  static final long SIZE = 1L << 20;

  private final Path directory;

  UidClaims(Path directory) {
    this.directory = directory;
  }

  /** The uid {@code plan} holds, claimed now if it held none. */
  long claim(String plan) {
    try {
      PrivateFiles.createDirectories(directory);
      long start = Math.floorMod(plan.hashCode(), SIZE);
      for (long i = 0; i < SIZE; i++) {
        long uid = BASE + (start + i) % SIZE;
        Path file = directory.resolve(Long.toString(uid));
        try (FileChannel channel =
            PrivateFiles.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
          channel.write(ByteBuffer.wrap(plan.getBytes(StandardCharsets.UTF_8)));
          return uid;
        } catch (FileAlreadyExistsException taken) {
          if (owner(file).equals(plan)) {
            return uid;
          }
        }
      }
      throw new IllegalStateException(
          "all " + SIZE + " session uids in " + directory + " are claimed; remove stale claims");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot claim a session uid in " + directory, e);
    }
  }

  /** Gives up {@code uid} when {@code plan} holds it. */
  void release(String plan, long uid) {
    Path file = directory.resolve(Long.toString(uid));
    try {
      if (owner(file).equals(plan)) {
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot release session uid " + uid + " in " + directory, e);
    }
  }

  /** Gives up every uid the plans {@code plans} hold (plans that will not be launched again). */
  void releaseAll(Collection<String> plans) {
    if (!Files.isDirectory(directory)) {
      return;
    }
    try (var files = Files.list(directory)) {
      for (Path file : files.toList()) {
        if (plans.contains(owner(file))) {
          Files.deleteIfExists(file);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot release the uids of " + plans + " in " + directory, e);
    }
  }

  private static String owner(Path file) throws IOException {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return "";
    }
  }
}
