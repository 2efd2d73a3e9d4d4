package dev.berth.agent.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.agent.contract.LeaseTable.Event;
import dev.berth.agent.contract.LeaseTable.Phase;
import dev.berth.core.error.IllegalTransitionException;
import dev.berth.core.transition.TransitionTable.Transition;
import org.junit.jupiter.api.Test;

class LeaseTableTest {

  @Test
  void declaresExactlyTheLeaseMoves() {
    assertThat(LeaseTable.TABLE.transitions())
        .containsExactlyInAnyOrder(
            new Transition<>(Phase.NONE, Event.RENEW, Phase.HELD),
            new Transition<>(Phase.HELD, Event.RENEW, Phase.HELD),
            new Transition<>(Phase.HELD, Event.EXPIRE, Phase.EXPIRED),
            new Transition<>(Phase.EXPIRED, Event.RENEW, Phase.HELD));
  }

  @Test
  void refusesEveryOtherMoveNamingStateEventAndRule() {
    for (Phase phase : Phase.values()) {
      for (Event event : Event.values()) {
        if (LeaseTable.TABLE.allows(phase, event)) {
          continue;
        }
        assertThatThrownBy(() -> LeaseTable.TABLE.next("control lease", phase, event))
            .isInstanceOf(IllegalTransitionException.class)
            .hasMessageContaining("control lease")
            .hasMessageContaining(phase.name())
            .hasMessageContaining(event.name())
            .hasMessageContaining(LeaseTable.TABLE.ruleFor(phase));
      }
    }
  }
}
