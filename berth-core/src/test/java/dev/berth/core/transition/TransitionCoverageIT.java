package dev.berth.core.transition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/**
 * The transition coverage check of the build (see {@link TransitionCoverage}): berth-server's
 * failsafe runs it after the tests of berth-core, berth-agent and berth-server recorded the moves
 * they took.
 */
class TransitionCoverageIT {

  @Test
  void everyDeclaredTransitionIsTakenBySomeTest() {
    // A run that picks tests by pattern (-Dtest='!Foo') may pick this one up outside the check.
    assumeTrue(
        System.getProperty(TransitionCoverage.DIRECTORIES) != null,
        "only berth-server's transition-coverage execution runs the check");
    TransitionCoverage coverage =
        TransitionCoverage.read(TransitionCoverage.directoriesFromSystemProperty());
    assertThat(coverage.declared()).isNotEmpty();
    assertThat(coverage.untaken()).withFailMessage(coverage::report).isEmpty();
  }
}
