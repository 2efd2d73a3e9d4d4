package dev.berth.core.transition;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Records, for the transition coverage check, which moves the tables of this JVM declare and which
 * moves are taken. Off unless the system property {@value #PROPERTY} names a directory (the build
 * sets it for test JVMs only); then {@link #RECORDING} is true, and each JVM appends to its own
 * file there, {@code jvm-<pid>.tsv}, one line per move the first time the JVM declares or takes it:
 *
 * <pre>
 * {@code declared|taken <TAB> state enum class <TAB> table entity <TAB> FROM <TAB> EVENT <TAB> TO}
 * </pre>
 *
 * <p>Lines are written when first seen rather than at exit, so a JVM that is killed or exits
 * abruptly has still recorded what it did; one file per JVM means JVMs running side by side never
 * interleave their lines. A failure to record fails the caller loudly: a coverage check over
 * silently lost lines would report moves as untaken that were taken.
 *
 * <p>When off, {@link #RECORDING} is a constant false, so {@link TransitionTable} skips recording
 * at the cost of one constant branch.
 */
final class TransitionRecorder {
  static final String PROPERTY = "berth.transitions.record";

  /** The first field of a line: the table declares the move, or a test took it. */
  static final String DECLARED = "declared";

  static final String TAKEN = "taken";

  private static final Optional<Path> FILE =
      Optional.ofNullable(System.getProperty(PROPERTY))
          .filter(dir -> !dir.isBlank())
          .map(dir -> Path.of(dir, "jvm-" + ProcessHandle.current().pid() + ".tsv"));

  /** Whether this JVM records (the property is set). */
  static final boolean RECORDING = FILE.isPresent();

  private static final Set<String> WRITTEN = ConcurrentHashMap.newKeySet();
  private static final ReentrantLock LOCK = new ReentrantLock();

  private TransitionRecorder() {}

  static void declared(TransitionTable<?, ?> table) {
    for (TransitionTable.Transition<?, ?> move : table.transitions()) {
      record(DECLARED, table, move);
    }
  }

  static void taken(TransitionTable<?, ?> table, TransitionTable.Transition<?, ?> move) {
    record(TAKEN, table, move);
  }

  /** The file this JVM records in, when it records. */
  static Optional<Path> file() {
    return FILE;
  }

  /** The line that records {@code move} of {@code table} as {@code kind} (declared or taken). */
  static String line(
      String kind, TransitionTable<?, ?> table, TransitionTable.Transition<?, ?> move) {
    return String.join(
        "\t",
        kind,
        ((Enum<?>) move.from()).getDeclaringClass().getName(),
        table.entity(),
        move.from().toString(),
        move.event().toString(),
        move.to().toString());
  }

  private static void record(
      String kind, TransitionTable<?, ?> table, TransitionTable.Transition<?, ?> move) {
    String line = line(kind, table, move);
    if (WRITTEN.add(line)) {
      append(line + "\n");
    }
  }

  private static void append(String line) {
    Path file = FILE.orElseThrow();
    LOCK.lock();
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(
          file, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot record a transition in " + file, e);
    } finally {
      LOCK.unlock();
    }
  }
}
