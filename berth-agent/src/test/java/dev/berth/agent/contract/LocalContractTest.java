package dev.berth.agent.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.BerthException;
import dev.berth.core.error.DeadlineExceededException;
import dev.berth.core.error.StaleIntentException;
import dev.berth.core.error.TerminalIntentException;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationType;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.SessionId;
import dev.berth.core.testing.MutableClock;
import dev.berth.protocol.contract.CommandHeaders;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class LocalContractTest {
  private static final SessionId SESSION = new SessionId("0123456789abcdef0123456789abcdef");
  private static final SessionId OTHER = new SessionId("fedcba9876543210fedcba9876543210");

  @TempDir Path dir;
  private final MutableClock clock = MutableClock.at("2030-01-01T00:00:00Z");
  private final AtomicInteger effects = new AtomicInteger();
  private LocalContract contract;

  @BeforeEach
  void open() {
    contract = LocalContract.open(dir, SESSION, clock);
  }

  private CommandHeaders headers(long version, OperationType type) {
    return new CommandHeaders(
        version, clock.instant().plusSeconds(30), OperationId.of(SESSION, type, version));
  }

  private Supplier<String> effect(String reply) {
    return () -> {
      effects.incrementAndGet();
      return reply;
    };
  }

  private CommandOutcome put(long version) {
    return contract.accept(
        "put", headers(version, OperationType.PROVISION), DesiredState.RUNNING, effect("created"));
  }

  private LocalContract reopened() {
    return LocalContract.open(dir, SESSION, clock);
  }

  private byte[] fileBytes() throws IOException {
    return Files.readAllBytes(dir.resolve("contract.json"));
  }

  @Nested
  class Versions {
    @Test
    void aFreshContractAcceptsVersionZeroAndWritesNothingUntilThen() {
      assertThat(contract.record()).isEqualTo(ContractRecord.fresh(SESSION));
      assertThat(dir.resolve("contract.json")).doesNotExist();

      assertThat(put(0)).isEqualTo(new CommandOutcome("created", false));
      assertThat(dir.resolve("contract.json")).exists();
    }

    @Test
    void anEqualVersionIsAccepted() {
      put(3);

      var outcome =
          contract.accept(
              "put", headers(3, OperationType.RESUME), DesiredState.RUNNING, effect("again"));

      assertThat(outcome).isEqualTo(new CommandOutcome("again", false));
      assertThat(effects).hasValue(2);
      assertThat(contract.record().acceptedIntentVersion()).isEqualTo(3);
    }

    @Test
    void aHigherVersionRaisesTheAcceptedVersionAndDesiredStateDurably() {
      put(3);

      contract.accept(
          "delete", headers(5, OperationType.SUSPEND), DesiredState.SUSPENDED, effect("removed"));

      assertThat(contract.record().acceptedIntentVersion()).isEqualTo(5);
      assertThat(contract.record().acceptedDesired()).isEqualTo(DesiredState.SUSPENDED);
      assertThat(reopened().record()).isEqualTo(contract.record());
    }

    @Test
    void aStaleVersionIsRefusedWithoutRunningTheEffectOrTouchingTheFile() throws IOException {
      put(5);
      byte[] before = fileBytes();
      var recordBefore = contract.record();

      assertThatThrownBy(
              () ->
                  contract.accept(
                      "put",
                      headers(4, OperationType.RESUME),
                      DesiredState.RUNNING,
                      effect("nope")))
          .isInstanceOf(StaleIntentException.class)
          .hasMessageContaining("session " + SESSION)
          .hasMessageContaining("rejected intent version 4")
          .hasMessageContaining("version 5 was already accepted")
          .hasMessageContaining("re-read the session");

      assertThat(effects).hasValue(1);
      assertThat(fileBytes()).isEqualTo(before);
      assertThat(contract.record()).isEqualTo(recordBefore);
    }

    @Test
    void aStaleVersionIsStillRefusedAfterTheHostRestarts() {
      put(5);

      var afterRestart = reopened();

      assertThatThrownBy(
              () ->
                  afterRestart.accept(
                      "put",
                      headers(4, OperationType.RESUME),
                      DesiredState.RUNNING,
                      effect("nope")))
          .isInstanceOf(StaleIntentException.class);
      assertThat(effects).hasValue(1);
    }

    @Test
    void aCommandWithoutDesiredStateKeepsTheAcceptedOne() {
      contract.accept(
          "delete", headers(2, OperationType.SUSPEND), DesiredState.SUSPENDED, effect("removed"));

      contract.accept("lease", headers(4, OperationType.RESUME), effect("{\"expiresAt\":\"x\"}"));

      assertThat(contract.record().acceptedIntentVersion()).isEqualTo(4);
      assertThat(contract.record().acceptedDesired()).isEqualTo(DesiredState.SUSPENDED);
    }

    @Test
    void acceptRefusesToDesireTerminationAndPointsToTerminate() {
      assertThatThrownBy(
              () ->
                  contract.accept(
                      "put",
                      headers(1, OperationType.TERMINATE),
                      DesiredState.TERMINATED,
                      effect("x")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("terminate()");
    }

    @Test
    void concurrentCommandsAreSerialisedAndTheHighestVersionWins() throws Exception {
      List<Callable<CommandOutcome>> commands = new ArrayList<>();
      for (long v = 1; v <= 16; v++) {
        long version = v;
        commands.add(
            () ->
                contract.accept(
                    "put",
                    headers(version, OperationType.PROVISION),
                    DesiredState.RUNNING,
                    effect("v" + version)));
      }
      try (var pool = Executors.newFixedThreadPool(8)) {
        for (var future : pool.invokeAll(commands)) {
          try {
            future.get();
          } catch (java.util.concurrent.ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(StaleIntentException.class);
          }
        }
      }

      assertThat(contract.record().acceptedIntentVersion()).isEqualTo(16);
      assertThat(reopened().record().acceptedIntentVersion()).isEqualTo(16);
    }
  }

  @Nested
  class Deadlines {
    @Test
    void aPassedDeadlineIsRefusedWithoutEffectOrTrace() {
      var late = headers(1, OperationType.PROVISION);
      clock.advance(Duration.ofSeconds(30).plusNanos(1));

      assertThatThrownBy(() -> contract.accept("put", late, DesiredState.RUNNING, effect("x")))
          .isInstanceOf(DeadlineExceededException.class)
          .hasMessageContaining("session " + SESSION)
          .hasMessageContaining(late.deadline().toString());

      assertThat(effects).hasValue(0);
      assertThat(dir.resolve("contract.json")).doesNotExist();
      assertThat(contract.record()).isEqualTo(ContractRecord.fresh(SESSION));
    }

    @Test
    void aCommandArrivingExactlyAtItsDeadlineIsAccepted() {
      var onTime = headers(1, OperationType.PROVISION);
      clock.set(onTime.deadline());

      assertThat(contract.accept("put", onTime, DesiredState.RUNNING, effect("ok")).reply())
          .isEqualTo("ok");
    }

    @Test
    void aPassedDeadlineRefusesTerminateBeforeAnyTombstone() {
      var late = headers(1, OperationType.TERMINATE);
      clock.advance(Duration.ofMinutes(1));

      assertThatThrownBy(() -> contract.terminate(late, effects::incrementAndGet))
          .isInstanceOf(DeadlineExceededException.class);
      assertThat(effects).hasValue(0);
      assertThat(contract.record().tombstoned()).isFalse();
      assertThat(dir.resolve("contract.json")).doesNotExist();
    }
  }

  @Nested
  class Operations {
    @Test
    void aRepeatedOperationAnswersAsBeforeWithoutRunningTheEffectAgain() throws IOException {
      var first = put(2);
      byte[] before = fileBytes();

      var repeat = put(2);

      assertThat(first).isEqualTo(new CommandOutcome("created", false));
      assertThat(repeat).isEqualTo(new CommandOutcome("created", true));
      assertThat(effects).hasValue(1);
      assertThat(fileBytes()).isEqualTo(before);
    }

    @Test
    void aRepeatedOperationAnswersAsBeforeAfterTheHostRestarts() {
      put(2);
      contract = reopened();

      assertThat(put(2)).isEqualTo(new CommandOutcome("created", true));
      assertThat(effects).hasValue(1);
    }

    @Test
    void aFailedEffectLeavesNoTraceAndTheOperationCanBeRetried() {
      var headers = headers(4, OperationType.PROVISION);

      assertThatThrownBy(
              () ->
                  contract.accept(
                      "put",
                      headers,
                      DesiredState.RUNNING,
                      () -> {
                        throw new IllegalStateException("spawn failed");
                      }))
          .hasMessage("spawn failed");
      assertThat(dir.resolve("contract.json")).doesNotExist();
      assertThat(contract.record()).isEqualTo(ContractRecord.fresh(SESSION));

      assertThat(contract.accept("put", headers, DesiredState.RUNNING, effect("created")))
          .isEqualTo(new CommandOutcome("created", false));
    }

    @Test
    void onlyTheLatestOperationsAreRemembered() {
      int total = ContractRecord.MAX_OPERATIONS + 10;
      for (int v = 1; v <= total; v++) {
        put(v);
      }

      var remembered = reopened().record().operations();
      assertThat(remembered).hasSize(ContractRecord.MAX_OPERATIONS);
      assertThat(remembered)
          .doesNotContainKey(OperationId.of(SESSION, OperationType.PROVISION, 10).value())
          .containsKey(OperationId.of(SESSION, OperationType.PROVISION, 11).value())
          .containsKey(OperationId.of(SESSION, OperationType.PROVISION, total).value());
      assertThat(remembered.keySet().iterator().next())
          .isEqualTo(OperationId.of(SESSION, OperationType.PROVISION, 11).value());
    }
  }

  @Nested
  class DataCommands {
    @Test
    void dataCommandsWithoutHeadersPassOnALiveSession() {
      put(3);

      contract.checkData("input", Optional.empty());
    }

    @Test
    void dataCommandsWithHeadersAreCheckedForVersionAndDeadlineAndPersistNothing()
        throws IOException {
      put(3);
      byte[] before = fileBytes();

      contract.checkData("input", Optional.of(headers(4, OperationType.RESUME)));
      assertThatThrownBy(
              () -> contract.checkData("resize", Optional.of(headers(2, OperationType.RESUME))))
          .isInstanceOf(StaleIntentException.class);
      var late = headers(3, OperationType.RESUME);
      clock.advance(Duration.ofMinutes(1));
      assertThatThrownBy(() -> contract.checkData("executions", Optional.of(late)))
          .isInstanceOf(DeadlineExceededException.class);

      assertThat(fileBytes()).isEqualTo(before);
      assertThat(contract.record().acceptedIntentVersion()).isEqualTo(3);
    }
  }

  @Nested
  class Termination {
    @Test
    void theTombstoneIsOnDiskBeforeTheStopRuns() {
      put(1);
      List<ContractRecord> seenByStop = new ArrayList<>();

      var outcome =
          contract.terminate(
              headers(2, OperationType.TERMINATE), () -> seenByStop.add(reopened().record()));

      assertThat(outcome).isEqualTo(new CommandOutcome(LocalContract.TERMINATED, false));
      assertThat(seenByStop).singleElement().satisfies(r -> assertTombstoned(r, 2));
      assertTombstoned(contract.record(), 2);
    }

    @Test
    void aCrashMidStopLeavesTheTombstoneAndTheRestartedHostRefusesAllButTerminate() {
      put(1);
      assertThatThrownBy(
              () ->
                  contract.terminate(
                      headers(2, OperationType.TERMINATE),
                      () -> {
                        throw new IllegalStateException("host crashed while stopping");
                      }))
          .hasMessage("host crashed while stopping");

      var afterRestart = reopened();
      assertTombstoned(afterRestart.record(), 2);

      assertThatThrownBy(
              () ->
                  afterRestart.accept(
                      "put", headers(3, OperationType.RESUME), DesiredState.RUNNING, effect("x")))
          .isInstanceOf(TerminalIntentException.class)
          .satisfies(
              e -> assertThat(((BerthException) e).reason()).isEqualTo("SESSION_TERMINATING"))
          .hasMessageContaining("session " + SESSION);
      assertThatThrownBy(
              () -> afterRestart.accept("lease", headers(9, OperationType.RESUME), effect("x")))
          .isInstanceOf(TerminalIntentException.class);
      assertThatThrownBy(() -> afterRestart.checkData("input", Optional.empty()))
          .isInstanceOf(TerminalIntentException.class)
          .hasMessageContaining("input");
      assertThat(effects).hasValue(1);

      var stops = new AtomicInteger();
      assertThat(
              afterRestart.terminate(headers(2, OperationType.TERMINATE), stops::incrementAndGet))
          .isEqualTo(new CommandOutcome(LocalContract.TERMINATED, true));
      assertThat(stops).as("a repeated terminate completes the interrupted stop").hasValue(1);
    }

    @Test
    void terminateAfterTheTombstoneIsAnIdempotentSuccessWhateverItsVersion() throws IOException {
      contract.terminate(headers(5, OperationType.TERMINATE), () -> {});
      byte[] before = fileBytes();

      var again = contract.terminate(headers(5, OperationType.TERMINATE), () -> {});
      var older = contract.terminate(headers(4, OperationType.TERMINATE), () -> {});

      assertThat(again).isEqualTo(new CommandOutcome(LocalContract.TERMINATED, true));
      assertThat(older).isEqualTo(new CommandOutcome(LocalContract.TERMINATED, true));
      assertThat(fileBytes()).isEqualTo(before);
    }

    @Test
    void aStaleTerminateIsRefusedBeforeAnyTombstone() {
      put(5);

      assertThatThrownBy(
              () ->
                  contract.terminate(headers(4, OperationType.TERMINATE), effects::incrementAndGet))
          .isInstanceOf(StaleIntentException.class);
      assertThat(contract.record().tombstoned()).isFalse();
      assertThat(reopened().record().tombstoned()).isFalse();
      assertThat(effects).hasValue(1);
    }

    private void assertTombstoned(ContractRecord record, long version) {
      assertThat(record.tombstoned()).isTrue();
      assertThat(record.tombstonedAt()).contains(clock.instant());
      assertThat(record.acceptedDesired()).isEqualTo(DesiredState.TERMINATED);
      assertThat(record.acceptedIntentVersion()).isEqualTo(version);
    }
  }

  @Nested
  class TheFile {
    @Test
    void isFormatOneJsonWithEveryField() throws IOException {
      put(3);

      String json = new String(fileBytes(), StandardCharsets.UTF_8);

      assertThat(json)
          .startsWith("{\"format\":1,")
          .contains("\"session\":\"" + SESSION + "\"")
          .contains("\"acceptedIntentVersion\":3")
          .contains("\"acceptedDesired\":\"RUNNING\"")
          .contains("\"tombstoned\":false")
          .contains("\"tombstonedAt\":null")
          .contains(
              "\"operations\":{\""
                  + OperationId.of(SESSION, OperationType.PROVISION, 3)
                  + "\":\"put\\ncreated\"}");
    }

    @Test
    void aSecondCommandUnderTheSameOperationRunsAndARepeatOfEachAnswersItsOwnReply() {
      CommandHeaders headers = headers(4, OperationType.SUSPEND);
      contract.accept("checkpoint 1", headers, DesiredState.SUSPENDED, effect("paused"));

      CommandOutcome abort =
          contract.accept(
              "abort checkpoint 1", headers, DesiredState.SUSPENDED, effect("continued"));

      assertThat(abort.reply()).isEqualTo("continued");
      assertThat(
              contract
                  .accept("abort checkpoint 1", headers, DesiredState.SUSPENDED, effect("again"))
                  .reply())
          .isEqualTo("continued");
    }

    @Test
    void atomicWritesLeaveNoTemporaryFiles() throws IOException {
      for (int v = 1; v <= 5; v++) {
        put(v);
      }
      contract.terminate(headers(6, OperationType.TERMINATE), () -> {});

      try (Stream<Path> files = Files.list(dir)) {
        assertThat(files)
            .extracting(p -> p.getFileName().toString())
            .containsExactly("contract.json");
      }
    }

    @Test
    void aTemporaryFileLeftByACrashIsIgnoredAndRemoved() throws IOException {
      put(3);
      Files.writeString(dir.resolve("contract.json.tmp"), "{\"format\":1,\"half");

      var afterRestart = reopened();

      assertThat(afterRestart.record().acceptedIntentVersion()).isEqualTo(3);
      assertThat(dir.resolve("contract.json.tmp")).doesNotExist();
    }

    static Stream<String> corruptContents() {
      String valid =
          "{\"format\":1,\"session\":\"0123456789abcdef0123456789abcdef\","
              + "\"acceptedIntentVersion\":3,\"acceptedDesired\":\"RUNNING\",\"tombstoned\":false,"
              + "\"tombstonedAt\":null,\"operations\":{}}";
      return Stream.of(
          "",
          "not json",
          "[1,2]",
          valid.substring(0, valid.length() - 5),
          valid.replace("\"format\":1", "\"format\":2"),
          valid.replace(",\"tombstonedAt\":null", ""),
          valid.replace("\"operations\":{}", "\"operations\":{},\"extra\":true"),
          valid.replace("\"acceptedIntentVersion\":3", "\"acceptedIntentVersion\":\"3\""),
          valid.replace("\"acceptedIntentVersion\":3", "\"acceptedIntentVersion\":-3"),
          valid.replace("RUNNING", "SLEEPING"),
          valid.replace("\"tombstoned\":false", "\"tombstoned\":true"),
          valid.replace("\"operations\":{}", "\"operations\":{\"op-x\":\"created\"}"),
          valid.replace("\"format\":1,", "\"format\":1,\"format\":1,"),
          valid.replace(SESSION.value(), OTHER.value()));
    }

    @ParameterizedTest
    @MethodSource("corruptContents")
    void aCorruptFileIsAnErrorNamingTheFileAndIsNeverReset(String content) throws IOException {
      Path file = dir.resolve("contract.json");
      Files.writeString(file, content);

      assertThatThrownBy(() -> LocalContract.open(dir, SESSION, clock))
          .isInstanceOf(CorruptContractException.class)
          .hasMessageContaining(file.toString())
          .hasMessageContaining("will not reset");

      assertThat(Files.readString(file)).isEqualTo(content);
    }
  }

  @Test
  void theContractAndTheDirectoriesCreatedForItArePrivateToTheHostUser() throws Exception {
    Path sessionDir = dir.resolve("sessions").resolve(SESSION.value());
    LocalContract nested = LocalContract.open(sessionDir, SESSION, clock);

    nested.accept(
        "put", headers(0, OperationType.PROVISION), DesiredState.RUNNING, effect("created"));

    assertThat(mode(dir.resolve("sessions"))).isEqualTo("rwx------");
    assertThat(mode(sessionDir)).isEqualTo("rwx------");
    assertThat(mode(sessionDir.resolve("contract.json"))).isEqualTo("rw-------");
  }

  private static String mode(Path path) throws IOException {
    return java.nio.file.attribute.PosixFilePermissions.toString(
        Files.getPosixFilePermissions(path));
  }
}
