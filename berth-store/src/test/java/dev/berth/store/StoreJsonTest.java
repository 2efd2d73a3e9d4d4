package dev.berth.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.execution.Execution;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.execution.ExecutionKind;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationError;
import dev.berth.core.operation.OperationId;
import dev.berth.core.operation.OperationType;
import dev.berth.core.operation.StepName;
import dev.berth.core.session.Session;
import dev.berth.core.testing.TestSessions;
import java.time.Instant;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The stored JSON body format: exact round trips and strict, named failures. */
class StoreJsonTest {
  private static final Instant NOW = Instant.parse("2026-11-29T10:00:00.000000001Z");

  private final StoreJson json = new StoreJson("restore it");

  @Test
  void roundTripsSessionsOperationsAndExecutionsToTheNanosecond() {
    Session s = TestSessions.everyField(NOW).withVersion(7);
    Operation op =
        Operation.pending(
                OperationId.of(s.id(), OperationType.SUSPEND, 2),
                s.id(),
                OperationType.SUSPEND,
                2,
                NOW,
                NOW.plusNanos(999))
            .attempt()
            .withGeneration(3)
            .step(StepName.PREPARING, "generation 3", NOW)
            .fail(new OperationError("STORAGE", "disk full"), NOW.plusSeconds(1))
            .withVersion(4);
    Execution x =
        Execution.queued(
                ExecutionId.generate(new SplittableRandom(5)),
                s.id(),
                ExecutionKind.COMMAND,
                "make test",
                2,
                Optional.of("key"),
                NOW)
            .start(10, NOW)
            .exit(0, 99, NOW.plusMillis(5))
            .withVersion(3);

    assertThat(json.readSession(s.id().value(), json.writeSession(s))).isEqualTo(s);
    assertThat(json.readOperation(op.id().value(), json.writeOperation(op))).isEqualTo(op);
    assertThat(json.readExecution(x.id().value(), json.writeExecution(x))).isEqualTo(x);
  }

  @Test
  void writesOnlyRecordComponentsNotDerivedAccessors() {
    String body = json.writeSession(TestSessions.everyField(NOW));
    assertThat(body).doesNotContain("\"terminal\"", "\"true\"", "\"open\"", "\"subject\"");
  }

  @Test
  void rejectsABodyOfAnotherFormatNamingTheRecord() {
    Session s = TestSessions.requested(NOW);
    String body = json.writeSession(s).replace("\"format\":3", "\"format\":4");
    assertThatThrownBy(() -> json.readSession(s.id().value(), body))
        .isInstanceOf(CorruptRecordException.class)
        .hasMessageContaining("session " + s.id().value())
        .hasMessageContaining("format must be 1 to 3, was 4");
  }

  @Test
  void readsAFormatOneSessionWhoseArchiveHadNoSourceNorSkippedEntries() {
    Session s = TestSessions.everyField(NOW);
    String body =
        json.writeSession(s)
            .replace("\"format\":3", "\"format\":1")
            .replaceAll(",\"source\":(null|\"[^\"]*\")", "")
            .replaceAll(",\"skipped\":\\[[^\\]]*\\]", "");
    assertThat(body).doesNotContain("\"skipped\"", "\"source\"");

    Session read = json.readSession(s.id().value(), body);

    assertThat(read.archive().orElseThrow().source()).isEmpty();
    assertThat(read.archive().orElseThrow().skipped()).isEmpty();
    assertThat(read.archive().orElseThrow().uri()).isEqualTo(s.archive().orElseThrow().uri());
  }

  @Test
  void readsASessionStoredBeforeAgentSessionsAsAShellWithoutModelNorPlugins() {
    Session s = TestSessions.requested(NOW);
    String body =
        json.writeSession(s)
            .replace("\"format\":3", "\"format\":2")
            .replace("\"model\":null,", "")
            .replace("\"plugins\":[],", "");
    assertThat(body).doesNotContain("\"model\"", "\"plugins\"");

    Session read = json.readSession(s.id().value(), body);

    assertThat(read).isEqualTo(s);
    assertThat(read.plugins()).isEmpty();
    assertThatThrownBy(
            () -> json.readSession(s.id().value(), body.replace("\"format\":2", "\"format\":3")))
        .as("a current body must hold both")
        .isInstanceOf(CorruptRecordException.class);
  }

  @Test
  void rejectsUnknownAndMissingFieldsNamingTheField() {
    Session s = TestSessions.requested(NOW);
    String body = json.writeSession(s);
    assertThatThrownBy(
            () ->
                json.readSession(
                    s.id().value(),
                    body.replace("{\"format\":3,", "{\"format\":3,\"colour\":\"red\",")))
        .isInstanceOf(CorruptRecordException.class)
        .hasMessageContaining("colour");
    assertThatThrownBy(
            () -> json.readSession(s.id().value(), body.replace("\"incarnation\":0,", "")))
        .isInstanceOf(CorruptRecordException.class)
        .hasMessageContaining("incarnation");
  }

  @Test
  void rejectsABodyThatHoldsAnotherRecord() {
    Session s = TestSessions.requested(NOW);
    Session other = TestSessions.requested(NOW);
    assertThatThrownBy(() -> json.readSession(other.id().value(), json.writeSession(s)))
        .isInstanceOf(CorruptRecordException.class)
        .hasMessageContaining("session " + other.id().value())
        .hasMessageContaining(s.id().value());
  }
}
