package dev.berth.core.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.berth.core.error.NotFoundException;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.execution.ExecutionRequest;
import dev.berth.core.execution.ExecutionState;
import dev.berth.core.runtime.OwnershipLabels;
import dev.berth.core.runtime.RemovalResult;
import dev.berth.core.runtime.Runtime;
import dev.berth.core.runtime.RuntimeObservation;
import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.WorkloadType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link DataPlane} must pass, unchanged, over the runtimes of its {@link
 * Runtime}: the simulated data plane of the model tests, the local node's agent, a pod's agent. It
 * speaks of a shell session's terminal as a user sees it: what is typed is echoed into the output,
 * which a read, the stream and the terminal all give back; executions run beside the shell and can
 * be cancelled; a runtime that is gone is "not found" for every call.
 *
 * <p>Each test provisions its own runtime under a fresh session id and removes it at the end, so
 * that one node or namespace can serve the whole class.
 */
public abstract class DataPlaneContract {

  private static final SecureRandom IDS = new SecureRandom();

  private final List<RuntimeRef> provisioned = new ArrayList<>();
  private final ExecutorService readers = Executors.newVirtualThreadPerTaskExecutor();
  protected Runtime runtime;
  protected DataPlane data;

  /** The runtime adapter whose runtimes the data plane serves. */
  protected abstract Runtime runtime() throws Exception;

  /** The data plane under test, over {@code runtime}'s runtimes. */
  protected abstract DataPlane dataPlane(Runtime runtime) throws Exception;

  /** The installation the runtimes are labelled with. */
  protected abstract String installation();

  /** How long a runtime may take to run, and output to show. */
  protected abstract Duration settlesWithin();

  @BeforeEach
  void setUpDataPlane() throws Exception {
    runtime = runtime();
    data = dataPlane(runtime);
  }

  @AfterEach
  void removeRuntimes() {
    readers.shutdownNow();
    for (RuntimeRef ref : provisioned) {
      await()
          .atMost(settlesWithin())
          .until(() -> runtime.remove(ref) instanceof RemovalResult.Confirmed);
    }
  }

  @Test
  void whatIsTypedIsReadBackFromTheStartOfTheOutput() throws Exception {
    RuntimeRef ref = running();
    String marker = marker();

    data.input(ref, ("echo " + marker + "\n").getBytes(StandardCharsets.UTF_8));

    await().atMost(settlesWithin()).until(() -> readAll(ref).contains(marker));
    assertThat(readAll(ref)).startsWith("{\"offset\":0");
  }

  @Test
  void theStreamOpensAsServerSentEventsWithTheOutputSoFar() throws Exception {
    RuntimeRef ref = running();
    String marker = marker();
    data.input(ref, ("echo " + marker + "\n").getBytes(StandardCharsets.UTF_8));
    await().atMost(settlesWithin()).until(() -> readAll(ref).contains(marker));

    try (ByteStream stream =
        data.stream(ref, new DataPlane.StreamFrom(Optional.of("0"), Optional.empty()))) {
      String first = firstEvent(stream.body());

      assertThat(stream.contentType())
          .hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
      assertThat(first).contains("event: output").contains("payloadBase64");
    }
  }

  @Test
  void theTerminalCarriesInputInAndItsEchoOut() throws Exception {
    RuntimeRef ref = running();
    Frames frames = new Frames();

    AttachLink link = data.attach(ref, OptionalLong.of(0), frames);
    String marker = marker();
    link.binary(ByteBuffer.wrap(("echo " + marker + "\n").getBytes(StandardCharsets.UTF_8)))
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);

    await().atMost(settlesWithin()).until(() -> frames.output().contains(marker));
    assertThat(frames.texts).anySatisfy(t -> assertThat(t).contains("\"attached\""));
    link.abort();
  }

  @Test
  void anExecutionRunsToItsExitStatusAndIsListed() {
    RuntimeRef ref = running();

    ExecutionReport started = data.startExecution(ref, ExecutionRequest.of("true"));

    await()
        .atMost(settlesWithin())
        .until(() -> data.execution(ref, started.id()).state() == ExecutionState.SUCCEEDED);
    assertThat(data.execution(ref, started.id()).exitCode()).contains(0);
    assertThat(data.execution(ref, started.id()).command()).isEqualTo("true");
    assertThat(data.executions(ref)).extracting(ExecutionReport::id).contains(started.id());
  }

  @Test
  void aRunningExecutionIsCancelledAndSaysSo() {
    RuntimeRef ref = running();
    ExecutionReport started = data.startExecution(ref, ExecutionRequest.of("sleep 60"));

    data.cancelExecution(ref, started.id());

    await()
        .atMost(settlesWithin())
        .until(() -> data.execution(ref, started.id()).state() == ExecutionState.CANCELLED);
    assertThat(data.execution(ref, started.id()).finishedAt()).isPresent();
  }

  @Test
  void anExecutionTheRuntimeNeverRanIsNotFound() {
    RuntimeRef ref = running();

    assertThatThrownBy(() -> data.execution(ref, ExecutionId.generate(IDS)))
        .isInstanceOf(NotFoundException.class);
  }

  @Test
  void aShellRuntimeRefusesAPluginRefreshAsNotAnAgent() {
    RuntimeRef ref = running();

    assertThatThrownBy(() -> data.refreshPlugins(ref))
        .isInstanceOfSatisfying(
            AgentRefusedException.class, e -> assertThat(e.reason()).isEqualTo("NOT_AN_AGENT"));
  }

  @Test
  void aRunningRuntimeReportsItselfHealthyAndPublishesItsState() {
    RuntimeRef ref = running();

    assertThat(data.status(ref).healthy()).isTrue();
    RuntimeReport report = data.report(ref);
    assertThat(report.published()).containsKey("state");
    assertThat(report.executionRunning()).isFalse();
  }

  @Test
  void aRemovedRuntimeIsNotFoundForInputAndReads() {
    RuntimeRef ref = running();
    await()
        .atMost(settlesWithin())
        .until(() -> runtime.remove(ref) instanceof RemovalResult.Confirmed);

    assertThatThrownBy(() -> data.input(ref, new byte[] {'x'}))
        .isInstanceOf(NotFoundException.class);
    assertThatThrownBy(() -> data.read(ref, 0).close()).isInstanceOf(NotFoundException.class);
  }

  // ---- helpers --------------------------------------------------------------------------------

  private RuntimeRef running() {
    SessionId session = SessionId.generate(IDS);
    RuntimeRef ref = RuntimeRef.planned(runtime.kind(), session, 1);
    provisioned.add(ref);
    runtime.provision(
        new RuntimeSpec(
            ref, WorkloadType.SHELL, new OwnershipLabels(installation(), session, 1), false));
    await()
        .atMost(settlesWithin())
        .until(() -> runtime.observe(ref) instanceof RuntimeObservation.Running);
    return ref;
  }

  private static String marker() {
    return "berth-contract-" + Long.toHexString(IDS.nextLong() & Long.MAX_VALUE);
  }

  private String readAll(RuntimeRef ref) throws IOException {
    try (ByteStream read = data.read(ref, 0)) {
      return new String(read.body().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /**
   * The stream up to the end of its first event (comments such as a stream's greeting come before),
   * read within the settle time.
   */
  private String firstEvent(InputStream body) throws Exception {
    Future<String> event =
        readers.submit(
            () -> {
              ByteArrayOutputStream seen = new ByteArrayOutputStream();
              int b;
              while ((b = body.read()) >= 0) {
                seen.write(b);
                String text = seen.toString(StandardCharsets.UTF_8);
                int at = text.indexOf("event:");
                if (at >= 0 && text.indexOf("\n\n", at) >= 0) {
                  break;
                }
              }
              return seen.toString(StandardCharsets.UTF_8);
            });
    return event.get(settlesWithin().toSeconds(), TimeUnit.SECONDS);
  }

  /** What an attached client received: the agent's messages, and the output bytes in order. */
  private static final class Frames implements AttachPeer {
    final List<String> texts = new CopyOnWriteArrayList<>();
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    synchronized String output() {
      return bytes.toString(StandardCharsets.UTF_8);
    }

    @Override
    public synchronized CompletionStage<?> binary(ByteBuffer frame) {
      byte[] b = new byte[frame.remaining()];
      frame.get(b);
      bytes.writeBytes(b);
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<?> text(String frame) {
      texts.add(frame);
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public void closed(int status, String reason) {}

    @Override
    public void failed(Throwable error) {}
  }
}
