package dev.berth.agent.archive;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which symlinks an archive keeps: only in the workload's trees, absolute or staying inside their
 * tree as the kernel would resolve them.
 */
class LinkTargetsTest {
  private static final ArchiveLimits LIMITS = ArchiveLimits.defaults();

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "home/l, x",
    "home/l, ./x/./y/",
    "home/l, x//y",
    "home/a/l, ../../home",
    "tmp/l, x/../y",
    "home/l, .",
    "home/venv/bin/python3, /usr/bin/python3",
    "tmp/l, /",
  })
  void aTargetInsideTheLinksOwnTreeOrAnAbsoluteOneFromHomeOrTmpIsAccepted(
      String path, String target) {
    assertThat(LinkTargets.problem(path, target, Set.of(), LIMITS)).isEmpty();
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "l, /etc",
    "l, x",
    "output/seg, ../home/x",
    "shell-state/rc.bash, /etc/passwd",
    "home, tmp/l",
    "home/l, ..",
    "home/l, ../..",
    "home/l, ../output/log",
    "home/l, ../tmp/x",
    "home/l, x/../../..",
    "home/a/l, ../../../etc",
  })
  void aLinkOutsideHomeAndTmpOrOneLeavingItsTreeIsRefused(String path, String target) {
    assertThat(violation(path, target, Set.of())).contains(Violation.LINK_ESCAPES);
  }

  @Test
  void aTargetMayEndInAnotherLinkButNotPassThroughOne() {
    Set<String> links = Set.of("home/a/b/up");

    assertThat(violation("home/l", "a/b/up", links)).isEmpty();
    assertThat(violation("home/l", "a/b/up/x", links)).contains(Violation.LINK_ESCAPES);
    assertThat(violation("home/l", "a/b/up/..", links)).contains(Violation.LINK_ESCAPES);
  }

  @Test
  void anEmptyOrControlCharacterTargetIsABadName() {
    assertThat(violation("home/l", "", Set.of())).contains(Violation.BAD_NAME);
    assertThat(violation("home/l", "a\nb", Set.of())).contains(Violation.BAD_NAME);
  }

  private static Optional<Violation> violation(String path, String target, Set<String> links) {
    return LinkTargets.problem(path, target, links, LIMITS).map(EntryNames.Problem::violation);
  }
}
