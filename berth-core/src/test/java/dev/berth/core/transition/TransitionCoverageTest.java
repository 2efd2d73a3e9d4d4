package dev.berth.core.transition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.berth.core.session.Phase;
import dev.berth.core.session.PhaseEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The transition coverage check: what it reads, and how it names a move no test takes. */
class TransitionCoverageTest {
  @TempDir Path dir;

  /** A table of this test only, so that what it takes is known. */
  enum Lamp {
    OFF,
    ON
  }

  enum Flip {
    FLIP
  }

  private static final TransitionTable<Lamp, Flip> LAMP =
      TransitionTable.of("lamp", Lamp.class, Flip.class)
          .state(Lamp.OFF, "an off lamp is switched on")
          .on(Flip.FLIP, Lamp.ON)
          .state(Lamp.ON, "an on lamp is switched off")
          .on(Flip.FLIP, Lamp.OFF)
          .build();

  private static List<String> lines(String kind, TransitionTable<?, ?> table) {
    List<String> lines = new ArrayList<>();
    for (TransitionTable.Transition<?, ?> move : table.transitions()) {
      lines.add(TransitionRecorder.line(kind, table, move));
    }
    return lines;
  }

  private Path write(String module, String file, List<String> lines) throws IOException {
    Path records = Files.createDirectories(dir.resolve(module));
    Files.write(records.resolve(file), lines);
    return records;
  }

  @Test
  void aMoveTakenInAnyModulesJvmCountsAndOneTakenNowhereIsNamed() throws IOException {
    List<String> declared = lines(TransitionRecorder.DECLARED, Phase.TABLE);
    List<String> taken = lines(TransitionRecorder.TAKEN, Phase.TABLE);
    String abort =
        TransitionRecorder.line(
            TransitionRecorder.TAKEN,
            Phase.TABLE,
            new TransitionTable.Transition<>(
                Phase.SUSPENDING, PhaseEvent.SUSPEND_ABORTED, Phase.READY));
    taken.remove(abort);
    Path core = write("core", "jvm-1.tsv", declared);
    List<String> firstHalf = new ArrayList<>(taken.subList(0, taken.size() / 2));
    List<String> secondHalf = new ArrayList<>(taken.subList(taken.size() / 2, taken.size()));
    Files.write(core.resolve("jvm-2.tsv"), firstHalf);
    Path server = write("server", "jvm-3.tsv", secondHalf);

    TransitionCoverage coverage = TransitionCoverage.read(List.of(core, server));

    assertThat(coverage.untaken()).hasSize(1);
    assertThat(coverage.report())
        .isEqualTo(
            "1 of "
                + Phase.TABLE.transitions().size()
                + " declared transitions are taken by no test:\n"
                + "  transition SUSPENDING -> READY (SUSPEND_ABORTED) of Phase (the session table)"
                + " is declared but no test takes it: add a test that takes it, or remove it from"
                + " the table");
  }

  @Test
  void aModuleWhoseTestsRecordedNothingFailsTheCheckRatherThanPassingIt() throws IOException {
    Path core = write("core", "jvm-1.tsv", lines(TransitionRecorder.DECLARED, LAMP));
    Path missing = dir.resolve("server");
    assertThatThrownBy(() -> TransitionCoverage.read(List.of(core, missing)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no transitions were recorded in " + missing);
  }

  @Test
  void aNestedStateEnumIsNamedWithItsEnclosingClass() {
    TransitionCoverage.Move move =
        new TransitionCoverage.Move(
            "dev.berth.agent.contract.LeaseTable$Phase", "control lease", "NONE", "RENEW", "HELD");
    assertThat(move.table()).isEqualTo("LeaseTable.Phase");
  }

  @Test
  void thisJvmRecordsAMoveTakenThroughNextButNotOneOnlyQueried() throws IOException {
    assumeTrue(TransitionRecorder.RECORDING, "the build records transitions in test JVMs");
    Path file = TransitionRecorder.file().orElseThrow();
    String offToOn =
        TransitionRecorder.line(TransitionRecorder.TAKEN, LAMP, LAMP.transitions().get(0));
    assertThat(Files.readAllLines(file)).contains(lines(TransitionRecorder.DECLARED, LAMP).get(0));

    assertThat(LAMP.find(Lamp.OFF, Flip.FLIP)).contains(Lamp.ON);
    assertThat(LAMP.allows(Lamp.OFF, Flip.FLIP)).isTrue();
    assertThat(Files.readAllLines(file)).doesNotContain(offToOn);

    assertThat(LAMP.next("lamp-1", Lamp.OFF, Flip.FLIP)).isEqualTo(Lamp.ON);
    assertThat(LAMP.next("lamp-1", Lamp.ON, Flip.FLIP)).isEqualTo(Lamp.OFF);
    assertThat(Files.readAllLines(file)).contains(offToOn);
  }
}
