package dev.berth.agent.archive;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which symlink targets stay inside the root, resolved the way the kernel would. */
class LinkTargetsTest {
  private static final ArchiveLimits LIMITS = ArchiveLimits.defaults();

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "home/l, x",
    "home/l, ../output/log",
    "home/l, ./x/./y/",
    "home/l, x//y",
    "home/a/l, ../../home",
    "l, home/x/../y",
    "home/l, .",
  })
  void aTargetBelowTheRootIsAccepted(String path, String target) {
    assertThat(LinkTargets.problem(path, target, Set.of(), LIMITS)).isEmpty();
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "l, /etc",
    "l, ..",
    "l, .",
    "l, x/..",
    "home/l, ..",
    "home/l, ../..",
    "home/l, x/../../..",
    "home/a/l, ../../../etc",
  })
  void aTargetThatIsAbsoluteLeavesTheRootOrIsTheRootIsRefused(String path, String target) {
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
    assertThat(violation("l", "", Set.of())).contains(Violation.BAD_NAME);
    assertThat(violation("l", "a\nb", Set.of())).contains(Violation.BAD_NAME);
  }

  private static Optional<Violation> violation(String path, String target, Set<String> links) {
    return LinkTargets.problem(path, target, links, LIMITS).map(EntryNames.Problem::violation);
  }
}
