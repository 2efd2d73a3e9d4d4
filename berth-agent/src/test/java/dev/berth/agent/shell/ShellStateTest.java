package dev.berth.agent.shell;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.agent.isolation.LaunchPlan;
import dev.berth.agent.isolation.ResourceLimits;
import dev.berth.agent.isolation.Sandbox;
import dev.berth.agent.isolation.WritablePaths;
import dev.berth.agent.testing.CollectingSink;
import dev.berth.agent.testing.HostProcesses;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A real bash on a real PTY under this host's real sandbox (and under none), whose state is
 * captured, and a new bash started on the runtime directory afterwards, as a restore from an
 * archive would start it: the archive brings back the runtime directory, usually at another path.
 */
class ShellStateTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static Sandbox host;

  @TempDir Path root;
  private final List<Running> started = new ArrayList<>();
  private final List<Path> hostPaths = new ArrayList<>();

  /** One shell on one runtime directory. */
  private record Running(
      ShellState state, LaunchPlan plan, ShellProcess shell, CollectingSink out) {
    void type(String line) {
      shell.write((line + "\n").getBytes(UTF_8));
    }

    void stop() {
      shell.terminate(Duration.ofMillis(300));
      plan.close();
    }
  }

  @BeforeAll
  static void detectSandbox() {
    host = Sandbox.detect(Path.of("/sys/fs/cgroup"));
  }

  static Stream<Sandbox> sandboxes() {
    return Stream.of(host, Sandbox.none());
  }

  @AfterEach
  void stopEverything() throws IOException {
    for (Running running : started) {
      running.stop();
      assertThat(running.plan().processes()).as("processes left by the test").isEmpty();
    }
    for (Path path : hostPaths) {
      deleteTree(path);
    }
  }

  private Running start(Sandbox sandbox, Path runtime) {
    ShellState state = ShellState.prepare(runtime, ShellSpec.defaults(runtime.resolve("home")));
    LaunchPlan plan =
        sandbox.plan(
            "test-shellstate-" + ThreadLocalRandom.current().nextInt(1 << 30),
            state.spec().command(),
            WritablePaths.of(runtime.resolve("home"), state.directory())
                .withTmp(runtime.resolve("tmp")),
            ResourceLimits.defaults());
    CollectingSink out = new CollectingSink();
    Running running = new Running(state, plan, ShellProcess.start(state.spec(), plan, out), out);
    started.add(running);
    return running;
  }

  private Running start(Path runtime) {
    return start(host, runtime);
  }

  /** Waits for the shell's first capture: it has read its rcfile and shows a prompt. */
  private static ShellState.Capture awaitCapture(Running running) {
    await().atMost(WAIT).until(() -> running.state().latest().isPresent());
    return running.state().latest().orElseThrow();
  }

  private static String unique() {
    return Integer.toString(100_000 + ThreadLocalRandom.current().nextInt(800_000));
  }

  @ParameterizedTest
  @MethodSource("sandboxes")
  void aNewShellOnTheRestoredDirectoryGetsBackWhatTheOldOneHadButNotItsProcesses(Sandbox sandbox)
      throws IOException {
    String n = unique();
    String sleeper = "3" + n;
    Path before = root.resolve("rt-1");
    Running old = start(sandbox, before);
    hostPaths.add(Path.of("/tmp", "x-" + n));
    old.type("export MARKER=42");
    old.type("FOO=bar");
    old.type("alias ll='ls -l'");
    old.type("greet() { echo hi-$1; }");
    old.type("echo kept > ~/file-in-home");
    old.type("sleep " + sleeper + " &");
    old.type("mkdir -p /tmp/x-" + n + " && cd /tmp/x-" + n);
    old.type("echo history-" + n);
    old.type("echo ready-$((40+2))");
    old.out().awaitText("ready-42", WAIT);
    await().atMost(WAIT).until(() -> HostProcesses.withArgument(sleeper).size() == 1);

    Optional<ShellState.Capture> capture = old.state().capture(old.shell(), WAIT);
    long oldPid = old.shell().pid();
    old.stop();
    started.remove(old);
    Path after = root.resolve("rt-2");
    copyTree(before, after);
    Running restored = start(sandbox, after);
    restored.type("echo \"m=$MARKER f=$FOO t=$TERM r=$BERTH_RUNTIME\"; echo \"cwd=$(pwd)\"");
    restored.type("type ll; greet you; cat ~/file-in-home; jobs; history | tail -n 12");
    restored.type("echo done-$((2+3))");
    String text = restored.out().awaitText("done-5", WAIT);

    assertThat(capture).hasValueSatisfying(c -> assertThat(c.fresh()).isTrue());
    assertThat(restored.state().restoring()).isTrue();
    assertThat(text)
        .contains("[berth] session restored; running processes were not preserved")
        .contains("m=42 f=bar t=xterm-256color r=" + restored.plan().name())
        .contains("cwd=/tmp/x-" + n)
        .contains("ll is aliased to `ls -l'")
        .contains("hi-you")
        .contains("kept")
        .contains("echo history-" + n)
        .contains("greet() { echo hi-$1; }")
        .doesNotContain("[1]");
    assertThat(restored.shell().pid()).isNotEqualTo(oldPid);
    assertThat(HostProcesses.withArgument(sleeper)).as("the old shell's job").isEmpty();
    if (sandbox.isolation().sandbox().equals("bwrap")) {
      assertThat(before.resolve("tmp").resolve("x-" + n)).as("/tmp is the runtime's").isDirectory();
      assertThat(Path.of("/tmp", "x-" + n)).doesNotExist();
    }
  }

  @Test
  void pathsUnderTheRuntimeDirectoryFollowItToItsNewPlace() throws IOException {
    Path before = root.resolve("rt-1");
    Running old = start(before);
    old.type("mkdir -p ~/project/src ~/bin && cd ~/project/src && export PATH=$HOME/bin:$PATH");
    old.type("alias p=\"cd $HOME/project\"; echo ready-$((40+2))");
    old.out().awaitText("ready-42", WAIT);
    old.state().capture(old.shell(), WAIT);
    old.stop();
    started.remove(old);

    Path after = root.resolve("moved").resolve("rt-2");
    copyTree(before, after);
    Running restored = start(after);
    restored.type("echo \"cwd=$(pwd) path=${PATH%%:*} hist=$HISTFILE\"; alias p");
    restored.type("echo done-$((2+3))");
    String text = restored.out().awaitText("done-5", WAIT);

    Path home = after.resolve("home");
    assertThat(text)
        .contains("cwd=" + home.resolve("project/src"))
        .contains("path=" + home.resolve("bin"))
        .contains("hist=" + after.resolve("shell-state/history"))
        .contains("alias p='cd " + home.resolve("project") + "'");
  }

  @Test
  void aCaptureAtThePromptIsFreshWithinMillisecondsAndSilent() {
    Running running = start(root.resolve("rt"));
    ShellState.Capture first = awaitCapture(running);
    running.shell().write("echo par".getBytes(UTF_8));
    await().atMost(WAIT).until(() -> running.out().text().endsWith("echo par"));
    int size = running.out().size();

    long began = System.nanoTime();
    Optional<ShellState.Capture> capture = running.state().capture(running.shell(), WAIT);
    Duration took = Duration.ofNanos(System.nanoTime() - began);

    assertThat(capture).isPresent();
    assertThat(capture.get().fresh()).isTrue();
    assertThat(capture.get().generation()).isGreaterThan(first.generation());
    assertThat(took).isLessThan(Duration.ofSeconds(1));
    running.shell().write("tial-$((1+1))\n".getBytes(UTF_8));
    String text = running.out().awaitText("partial-2", WAIT);
    assertThat(text.substring(size)).as("what came after the capture").startsWith("tial-$((1+1))");
  }

  @Test
  void aCaptureDuringAForegroundJobAnswersTheLastPromptsStateAndTheJobsEndBringsANewOne()
      throws IOException {
    Running running = start(root.resolve("rt"));
    running.type("export BEFORE=1; echo go-$((1+1))");
    running.out().awaitText("go-2", WAIT);
    await().atMost(WAIT).until(() -> slotsMention(running, "BEFORE"));
    ShellState.Capture atPrompt = running.state().latest().orElseThrow();
    running.type("sleep 3");
    await().atMost(WAIT).until(running.shell()::busy);

    long began = System.nanoTime();
    Optional<ShellState.Capture> capture =
        running.state().capture(running.shell(), Duration.ofMillis(400));
    Duration took = Duration.ofNanos(System.nanoTime() - began);

    assertThat(capture).contains(atPrompt);
    assertThat(took).isBetween(Duration.ofMillis(400), Duration.ofMillis(2500));
    await()
        .atMost(WAIT)
        .until(
            () ->
                running.state().latest().orElseThrow().generation() > atPrompt.generation()
                    && !running.shell().busy());
  }

  @Test
  void aCorruptStateStartsACleanShellWithANotice() throws IOException {
    Path runtime = root.resolve("rt");
    Path states = Files.createDirectories(runtime.resolve(ShellState.DIRECTORY));
    Files.write(states.resolve("state.0"), new byte[] {0, 1, 2, (byte) 0xff, '\n', 'x'});
    Files.writeString(
        states.resolve("state.1"), "# berth-shell-state 1 7 1.5\nexit 3\ndeclare -x CUT=\"");

    Running running = start(runtime);
    running.type("echo \"ok-$((1+1)) cut=[$CUT]\"");

    String text = running.out().awaitText("ok-2 cut=[]", WAIT);
    assertThat(text)
        .contains("[berth] the saved shell state could not be read; this is a fresh shell");
    assertThat(running.shell().isAlive()).isTrue();
    assertThat(awaitCapture(running).generation()).isPositive();
  }

  @Test
  void aShorterCaptureWrittenOverALongerOneIsReadUpToItsOwnTrailer() throws IOException {
    Path before = root.resolve("rt-1");
    Running old = start(before);
    old.type("BIG=$(printf 'x%.0s' {1..20000}); echo big-$((1+1))");
    old.out().awaitText("big-2", WAIT);
    ShellState.Capture big = old.state().capture(old.shell(), WAIT).orElseThrow();
    old.type("unset BIG; SMALL=1; echo small-$((2+2))");
    old.out().awaitText("small-4", WAIT);
    // The newest capture must be in the slot the big one was in (generations alternate between
    // two slots): captured again until it is, so the restore reads that slot.
    ShellState.Capture last = old.state().capture(old.shell(), WAIT).orElseThrow();
    for (int i = 0; i < 4 && (last.generation() - big.generation()) % 2 != 0; i++) {
      last = old.state().capture(old.shell(), WAIT).orElseThrow();
    }
    assertThat((last.generation() - big.generation()) % 2).isZero();
    long newestGeneration = last.generation();
    old.stop();
    started.remove(old);

    Path states = before.resolve(ShellState.DIRECTORY);
    Path newest = states.resolve("state." + (last.generation() % 2));
    String content = Files.readString(newest);
    String trailer =
        content
            .lines()
            .filter(l -> l.startsWith("# end " + newestGeneration + " "))
            .findFirst()
            .orElseThrow();
    assertThat(newestGeneration).isGreaterThan(big.generation() + 1);
    assertThat(content.indexOf(trailer) + trailer.length() + 1)
        .as("written in place: the longer capture's rest follows the trailer")
        .isLessThan(content.length());
    Path after = root.resolve("rt-2");
    copyTree(before, after);
    Running restored = start(after);
    restored.type("echo \"big=${#BIG} small=$SMALL\"");
    assertThat(restored.out().awaitText("small=1", WAIT)).contains("big=0 small=1");
    assertThat(restored.state().latest()).isPresent();
  }

  @Test
  void aCaptureCutShortIsNotMadeWholeByATrailerOfAnotherNonceNorByAFormerCapturesRest()
      throws IOException {
    // Generation 5 (state.1) is cut short after its first line; what follows is the end of a
    // longer capture of another nonce, and a value that forges its trailer with the wrong nonce.
    Running running =
        restoredFrom(
            "# berth-shell-state 2 4 1.5 111\nGOOD=four\n#berth:options\n# end 4 111\n",
            "# berth-shell-state 2 5 2.5 222\nGOOD=five\nFAKE='\n# end 5 999\n'\n# end 3 333\n");
    running.type("echo \"good=$GOOD\"");

    assertThat(running.out().awaitText("good=four", WAIT))
        .contains("[berth] session restored; running processes were not preserved");
    assertThat(awaitCapture(running).generation()).isGreaterThan(4);
  }

  @Test
  void aCaptureOfTheFormerFormatStillRestores() throws IOException {
    Running running =
        restoredFrom("", "# berth-shell-state 1 9 1.5\nOLD=format1\n#berth:options\n# end 9\n");
    running.type("echo \"old=$OLD\"");

    assertThat(running.out().awaitText("old=format1", WAIT))
        .contains("[berth] session restored; running processes were not preserved");
    assertThat(awaitCapture(running).generation()).isGreaterThan(9);
  }

  /** A shell started on a runtime whose two slots hold {@code slot0} and {@code slot1}. */
  private Running restoredFrom(String slot0, String slot1) throws IOException {
    Path runtime = root.resolve("rt");
    Path states = Files.createDirectories(runtime.resolve(ShellState.DIRECTORY));
    Files.writeString(states.resolve("state.0"), slot0);
    Files.writeString(states.resolve("state.1"), slot1);
    return start(runtime);
  }

  @Test
  void aMissingStateStartsACleanShellWithANotice() throws IOException {
    Path runtime = root.resolve("rt");
    Files.createDirectories(runtime.resolve(ShellState.DIRECTORY));

    Running running = start(runtime);
    running.type("echo ok-$((1+1))");

    assertThat(running.out().awaitText("ok-2", WAIT))
        .contains("[berth] no saved shell state was found; this is a fresh shell");
  }

  @Test
  void aNewRuntimeStartsSilently() {
    Running running = start(root.resolve("rt"));
    running.type("echo ok-$((1+1))");

    assertThat(running.out().awaitText("ok-2", WAIT)).doesNotContain("[berth]");
    assertThat(running.state().restoring()).isFalse();
  }

  @Test
  void aSavedWorkingDirectoryThatIsGoneLeavesTheShellInHomeAndSaysSo() throws IOException {
    Path runtime = root.resolve("rt");
    Running old = start(runtime);
    old.type("mkdir ~/gone && cd ~/gone && echo ready-$((40+2))");
    old.out().awaitText("ready-42", WAIT);
    old.state().capture(old.shell(), WAIT);
    old.stop();
    started.remove(old);
    Files.delete(runtime.resolve("home/gone"));

    Running restored = start(runtime);
    restored.type("echo \"cwd=$(pwd)\"");

    Path home = runtime.resolve("home");
    assertThat(restored.out().awaitText("cwd=" + home + "\r", WAIT))
        .contains(
            "[berth] session restored; running processes were not preserved; "
                + home.resolve("gone")
                + " no longer exists, starting in "
                + home);
  }

  @Test
  void theUsersBashrcIsReadFirstAndItsPromptCommandKeepsRunning() throws IOException {
    Path runtime = root.resolve("rt");
    Files.createDirectories(runtime.resolve("home"));
    Files.writeString(
        runtime.resolve("home/.bashrc"),
        "PROMPT_COMMAND='prompts=$((prompts+1))'\nalias hello='echo hello-from-bashrc'\n");

    Running running = start(runtime);
    running.type("hello");
    running.type("PROMPT_COMMAND=\"extra=1; $PROMPT_COMMAND\"");
    running.type("echo \"prompts=$prompts extra=$extra\"");

    String text = running.out().awaitText("extra=1\r", WAIT);
    assertThat(text).contains("hello-from-bashrc").containsPattern("prompts=[1-9]");
    long generation = awaitCapture(running).generation();
    running.type("true");
    await()
        .atMost(WAIT)
        .until(() -> running.state().latest().orElseThrow().generation() > generation);
  }

  @Test
  void theCaptureNeitherEndsAShellUnderErrexitNorChangesTheStatus() {
    Running running = start(root.resolve("rt"));
    running.type("set -e; ! true");
    running.type("echo \"alive-$?\"");

    running.out().awaitText("alive-1", WAIT);
    assertThat(running.shell().isAlive()).isTrue();
  }

  @Test
  void aBashrcWithErrexitNounsetAndAReadonlyVariableDoesNotStopTheRestore() throws IOException {
    Path runtime = root.resolve("rt");
    Files.createDirectories(runtime.resolve("home"));
    Files.writeString(runtime.resolve("home/.bashrc"), "set -eu\ndeclare -r FIXED=1\nfalse\n");
    Running old = start(runtime);
    old.type("KEPT=yes; echo ready-$((40+2))");
    old.out().awaitText("ready-42", WAIT);
    old.state().capture(old.shell(), WAIT);
    old.stop();
    started.remove(old);

    Running restored = start(runtime);
    restored.type("echo \"kept=$KEPT fixed=$FIXED flags=$-\"");

    assertThat(restored.out().awaitText("kept=yes fixed=1", WAIT))
        .contains("[berth] session restored")
        .containsPattern("flags=[a-zA-Z]*e")
        .containsPattern("flags=[a-zA-Z]*u");
  }

  @Test
  void anotherShellThanBashRunsAsItIsWithNothingToRestore() {
    Path runtime = root.resolve("rt");
    ShellSpec sh = ShellSpec.defaults(runtime.resolve("home"), "/bin/sh");

    ShellState state = ShellState.prepare(runtime, sh);

    assertThat(state.integrated()).isFalse();
    assertThat(state.spec()).isEqualTo(sh);
    assertThat(state.contents()).isEmpty();
    assertThat(runtime.resolve(ShellState.DIRECTORY)).doesNotExist();
  }

  @Test
  void bashStartsWithTheAgentsRcfileAndListsWhatItPreserves() {
    Path runtime = root.resolve("rt");

    ShellState state = ShellState.prepare(runtime, ShellSpec.defaults(runtime.resolve("home")));

    Path rc = runtime.resolve(ShellState.DIRECTORY).resolve(ShellState.RC_FILE);
    assertThat(state.spec().command()).containsExactly("/bin/bash", "--rcfile", rc.toString());
    assertThat(rc).isRegularFile();
    assertThat(state.contents())
        .contains("cwd", "environment", "shell variables", "functions", "aliases", "history")
        .doesNotContain("processes");
  }

  private static boolean slotsMention(Running running, String text) throws IOException {
    for (String slot : ShellState.SLOTS) {
      Path file = running.state().directory().resolve(slot);
      if (Files.exists(file) && Files.readString(file).contains(text)) {
        return true;
      }
    }
    return false;
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path path : paths.toList()) {
        Path target = to.resolve(from.relativize(path).toString());
        if (Files.isDirectory(path)) {
          Files.createDirectories(target);
        } else {
          Files.copy(path, target);
        }
      }
    }
  }

  private static void deleteTree(Path path) throws IOException {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(path)) {
      for (Path each : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(each);
      }
    }
  }
}
