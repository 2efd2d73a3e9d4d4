package dev.berth.core.transition;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The transition coverage check: every move a transition table declares must be taken by some test,
 * or the build fails naming it. Temporal's state machine tests do this per machine; here the moves
 * of one table are taken by tests of several modules (a session's phases move in core's lifecycle
 * tests and in the server's), so the check runs once, over what all of them recorded.
 *
 * <p>How it works.
 *
 * <ol>
 *   <li>Recording. The surefire configuration of the parent pom sets {@code
 *       berth.transitions.record=${project.build.directory}/transitions} in every test JVM, and
 *       clears that directory before the module's tests run (so it holds only this build's
 *       records). In such a JVM, {@link TransitionTable} writes every move a table declares when it
 *       is built and every move taken through {@code next} (each JVM its own file; see {@link
 *       TransitionRecorder}). Queries ({@code find}, {@code allows}) are not taking a move.
 *   <li>Checking. berth-server, the last module whose tests take moves, runs {@link
 *       TransitionCoverageIT} (from this module's test jar) with failsafe after its own tests, over
 *       the directories of berth-core, berth-agent and berth-server (the system property {@value
 *       #DIRECTORIES}). It fails listing each declared move that no file records as taken.
 * </ol>
 *
 * <p>So {@code ./mvnw verify} (and {@code make test}) runs it; a targeted run ({@code -Dtest=…})
 * skips it, as its few tests take only a few moves. A table counts as declared once any test JVM
 * built it, which every test of its entity does.
 */
final class TransitionCoverage {
  /** The system property that lists, comma-separated, the directories to check. */
  static final String DIRECTORIES = "berth.transitions.check";

  /** One move of one table, as recorded. */
  record Move(String states, String entity, String from, String event, String to) {

    /** The state enum as written in code: {@code Phase}, {@code LeaseTable.Phase}. */
    String table() {
      return states.substring(states.lastIndexOf('.') + 1).replace('$', '.');
    }

    String describe() {
      return "transition "
          + from
          + " -> "
          + to
          + " ("
          + event
          + ") of "
          + table()
          + " (the "
          + entity
          + " table) is declared but no test takes it: add a test that takes it, or remove it"
          + " from the table";
    }
  }

  private final Set<Move> declared = new LinkedHashSet<>();
  private final Set<Move> taken = new LinkedHashSet<>();

  private TransitionCoverage() {}

  /** The directories named by {@value #DIRECTORIES}. */
  static List<Path> directoriesFromSystemProperty() {
    String value = System.getProperty(DIRECTORIES, "");
    if (value.isBlank()) {
      throw new IllegalStateException(
          "set " + DIRECTORIES + " to the directories the test JVMs recorded transitions in");
    }
    return Arrays.stream(value.split(","))
        .map(String::strip)
        .map(dir -> Path.of(dir).toAbsolutePath().normalize())
        .toList();
  }

  /**
   * Reads every record file in {@code directories}.
   *
   * @throws IllegalStateException when a directory holds no records: its module's tests did not run
   *     in this build, and the check would report moves they take as untaken
   */
  static TransitionCoverage read(List<Path> directories) {
    TransitionCoverage coverage = new TransitionCoverage();
    for (Path dir : directories) {
      List<Path> files = recordFiles(dir);
      if (files.isEmpty()) {
        throw new IllegalStateException(
            "no transitions were recorded in "
                + dir
                + ": the coverage check needs the tests of every module it reads to run in the"
                + " same build (./mvnw verify, make test)");
      }
      files.forEach(coverage::readFile);
    }
    return coverage;
  }

  private static List<Path> recordFiles(Path dir) {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".tsv")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + dir, e);
    }
  }

  private void readFile(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    for (String line : lines) {
      String[] f = line.split("\t", -1);
      if (f.length != 6) {
        throw new IllegalStateException("not a transition record in " + file + ": " + line);
      }
      Move move = new Move(f[1], f[2], f[3], f[4], f[5]);
      switch (f[0]) {
        case TransitionRecorder.DECLARED -> declared.add(move);
        case TransitionRecorder.TAKEN -> taken.add(move);
        default ->
            throw new IllegalStateException("not a transition record in " + file + ": " + line);
      }
    }
  }

  Set<Move> declared() {
    return declared;
  }

  /** The declared moves no test took, table by table, each table in declaration order. */
  List<Move> untaken() {
    List<Move> missing = new ArrayList<>();
    for (Move move : declared) {
      if (!taken.contains(move)) {
        missing.add(move);
      }
    }
    // Stable: sorting by table keeps the declaration order within each table.
    missing.sort(Comparator.comparing(Move::states));
    return missing;
  }

  /** What the check says when it fails: one line per untaken move. */
  String report() {
    List<Move> missing = untaken();
    StringBuilder out =
        new StringBuilder()
            .append(missing.size())
            .append(" of ")
            .append(declared.size())
            .append(" declared transitions are taken by no test:");
    missing.forEach(m -> out.append("\n  ").append(m.describe()));
    return out.toString();
  }
}
