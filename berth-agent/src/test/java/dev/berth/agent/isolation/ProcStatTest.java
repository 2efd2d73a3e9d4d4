package dev.berth.agent.isolation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ProcStatTest {

  @Test
  void parsesACommandNameWithSpacesAndParentheses() {
    ProcStat stat = ProcStat.parse("4242 (a) b (c)) S 1 4240 4200 34816 4250 4194560 0 0");

    assertThat(stat.pid()).isEqualTo(4242);
    assertThat(stat.comm()).isEqualTo("a) b (c)");
    assertThat(stat.state()).isEqualTo('S');
    assertThat(stat.ppid()).isEqualTo(1);
    assertThat(stat.pgrp()).isEqualTo(4240);
    assertThat(stat.session()).isEqualTo(4200);
    assertThat(stat.tpgid()).isEqualTo(4250);
  }

  @Test
  void readsTheAgentsOwnProcess() {
    long self = ProcessHandle.current().pid();

    assertThat(ProcStat.read(self)).hasValueSatisfying(s -> assertThat(s.pid()).isEqualTo(self));
  }

  @Test
  void readsNothingForAProcessThatDoesNotExist() {
    assertThat(ProcStat.read(Integer.MAX_VALUE)).isEmpty();
  }

  @Test
  void refusesALineThatIsNotAStatLine() {
    assertThatThrownBy(() -> ProcStat.parse("garbage"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void readsTheStartTimeFromField22EvenBehindATrickyCommandName() {
    String line =
        "4242 (a) b (c)) S 1 4240 4200 34816 4250 4194560 0 0 0 0 7 3 0 0 20 0 1 0 987654 1 2";

    assertThat(ProcStat.startTicksOf(line)).isEqualTo(987654);
    assertThatThrownBy(() -> ProcStat.startTicksOf("4242 (a) S 1 4240"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theStartTimeOfALiveProcessStaysAndAMissingOneHasNone() {
    long self = ProcessHandle.current().pid();

    assertThat(ProcStat.startTicks(self)).isPresent();
    assertThat(ProcStat.startTicks(self)).isEqualTo(ProcStat.startTicks(self));
    assertThat(ProcStat.startTicks(Integer.MAX_VALUE)).isEmpty();
  }
}
