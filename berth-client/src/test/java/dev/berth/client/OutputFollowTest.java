package dev.berth.client;

import static dev.berth.client.FakeBerth.SID;
import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.core.execution.ExecutionId;
import dev.berth.core.session.SessionId;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class OutputFollowTest {

  private static final SessionId ID = new SessionId(SID);
  private static final String STREAM = "/api/v1/sessions/" + SID + "/stream";
  private static final Duration WAIT = Duration.ofSeconds(10);

  /** Collects what a follow delivers. */
  private static final class Collector implements OutputListener {
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public synchronized void output(OutputEvent.Chunk chunk) {
      bytes.writeBytes(chunk.bytes());
    }

    @Override
    public synchronized void reset(OutputEvent.Reset reset, Optional<ReadResult> reread) {
      bytes.reset();
      reread.ifPresent(r -> bytes.writeBytes(r.bytes()));
      events.add("reset " + reset.nextOffset());
    }

    @Override
    public void state(StreamState state) {
      events.add(state.name());
    }

    synchronized String text() {
      return bytes.toString(StandardCharsets.UTF_8);
    }
  }

  @Test
  void reconnectsWithLastEventIdAndDeliversEveryByteOnce() throws Exception {
    AtomicInteger connections = new AtomicInteger();
    AtomicInteger gets = new AtomicInteger();
    try (FakeBerth berth =
            FakeBerth.start(
                r -> {
                  r.get(
                      STREAM,
                      ctx -> {
                        OutputStream out = FakeBerth.sse(ctx);
                        if (connections.incrementAndGet() == 1) {
                          FakeBerth.send(out, FakeBerth.output(0, "hello "));
                        } else {
                          FakeBerth.send(out, FakeBerth.output(3, "lo world"));
                          FakeBerth.send(out, FakeBerth.output(11, "!"));
                        }
                      });
                  r.get(
                      "/api/v1/sessions/" + SID,
                      ctx ->
                          FakeBerth.json(
                              ctx,
                              200,
                              FakeBerth.session(
                                  gets.incrementAndGet() == 1 ? "active" : "deleted")));
                });
        BerthClient client = berth.client()) {
      Collector collector = new Collector();
      OutputFollow follow = client.follow(ID, 0, collector);

      StreamEnd end = follow.await(WAIT).orElseThrow();

      assertThat(collector.text()).isEqualTo("hello world!");
      assertThat(end.reason()).isEqualTo(StreamEnd.Reason.UNAVAILABLE);
      assertThat(end.detail()).isEqualTo("session " + SID + " is deleted");
      assertThat(end.cursor()).isEqualTo(12);
      assertThat(berth.seen(STREAM))
          .extracting(FakeBerth.Seen::lastEventId, FakeBerth.Seen::query)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(null, "offset=0"),
              org.assertj.core.groups.Tuple.tuple("6", "offset=6"));
      assertThat(collector.events)
          .containsExactly("CONNECTING", "LIVE", "RECONNECTING", "LIVE", "OFFLINE");
    }
  }

  @Test
  void onResetReReadsFromZeroAndReconnectsFromTheReadsEnd() throws Exception {
    AtomicInteger connections = new AtomicInteger();
    try (FakeBerth berth =
            FakeBerth.start(
                r -> {
                  r.get(
                      STREAM,
                      ctx -> {
                        OutputStream out = FakeBerth.sse(ctx);
                        if (connections.incrementAndGet() == 1) {
                          FakeBerth.send(out, FakeBerth.reset(5));
                          FakeBerth.send(out, FakeBerth.output(5, "ignored: the client left"));
                        } else {
                          FakeBerth.send(out, FakeBerth.output(5, "!"));
                        }
                      });
                  r.post(
                      "/api/v1/sessions/" + SID + "/read",
                      ctx -> FakeBerth.json(ctx, 200, FakeBerth.read(0, "fresh")));
                  r.get(
                      "/api/v1/sessions/" + SID,
                      ctx -> FakeBerth.json(ctx, 200, FakeBerth.session("snapshot")));
                });
        BerthClient client = berth.client()) {
      Collector collector = new Collector();

      StreamEnd end = client.follow(ID, 50, collector).await(WAIT).orElseThrow();

      assertThat(collector.text()).isEqualTo("fresh!");
      assertThat(collector.events).contains("reset 5");
      assertThat(end.reason()).isEqualTo(StreamEnd.Reason.UNAVAILABLE);
      assertThat(end.detail()).endsWith("is snapshot");
      assertThat(berth.seen("/api/v1/sessions/" + SID + "/read").get(0).body())
          .isEqualTo("{\"offset\":0}");
      assertThat(berth.seen(STREAM))
          .extracting(FakeBerth.Seen::lastEventId)
          .containsExactly(null, "5");
    }
  }

  @Test
  void endsAsFailedWhenAnEventBreaksTheContract() throws Exception {
    try (FakeBerth berth =
            FakeBerth.start(
                r ->
                    r.get(
                        STREAM,
                        ctx ->
                            FakeBerth.send(
                                FakeBerth.sse(ctx),
                                "id: 4\nevent: output\ndata: {\"offset\":0,\"payloadBase64\":\"aGk=\",\"nextOffset\":2}\n\n")));
        BerthClient client = berth.client()) {
      Collector collector = new Collector();

      StreamEnd end = client.follow(ID, 0, collector).await(WAIT).orElseThrow();

      assertThat(end.reason()).isEqualTo(StreamEnd.Reason.FAILED);
      assertThat(end.error()).get().isInstanceOf(BerthProtocolException.class);
      assertThat(end.detail()).contains("id '4'");
      assertThat(collector.text()).isEmpty();
    }
  }

  @Test
  void endsAsFailedWhenTheServerRefusesTheStream() throws Exception {
    try (FakeBerth berth =
            FakeBerth.start(
                r ->
                    r.get(
                        STREAM,
                        ctx ->
                            FakeBerth.problem(
                                ctx, 401, "UNAUTHENTICATED", "missing or unknown bearer token")));
        BerthClient client = berth.client()) {
      StreamEnd end = client.follow(ID, 0, new Collector()).await(WAIT).orElseThrow();

      assertThat(end.reason()).isEqualTo(StreamEnd.Reason.FAILED);
      assertThat(end.error().orElseThrow())
          .isInstanceOf(BerthApiException.class)
          .hasMessage("missing or unknown bearer token");
    }
  }

  @Test
  void closingALiveFollowEndsItPromptly() throws Exception {
    try (FakeBerth berth =
            FakeBerth.start(
                r ->
                    r.get(
                        STREAM,
                        ctx -> {
                          OutputStream out = FakeBerth.sse(ctx);
                          FakeBerth.send(out, FakeBerth.output(0, "x"));
                          try {
                            for (int i = 0; i < 300; i++) {
                              Thread.sleep(100);
                              FakeBerth.send(out, ": keepalive\n\n");
                            }
                          } catch (IOException clientLeft) {
                            // Expected: the follow closed its connection.
                          }
                        }));
        BerthClient client = berth.client()) {
      Collector collector = new Collector();
      OutputFollow follow = client.follow(ID, 0, collector);
      while (collector.text().isEmpty()) {
        Thread.sleep(10);
      }

      follow.close();

      StreamEnd end = follow.await(Duration.ofSeconds(3)).orElseThrow();
      assertThat(end.reason()).isEqualTo(StreamEnd.Reason.CLOSED);
      assertThat(end.cursor()).isEqualTo(1);
    }
  }

  @Test
  void followsAnExecutionUntilItFinishedAndAllItsOutputArrived() throws Exception {
    ExecutionId eid = new ExecutionId("x-0123456789abcdef01234567");
    String base = "/api/v1/sessions/" + SID + "/executions/" + eid;
    try (FakeBerth berth =
            FakeBerth.start(
                r -> {
                  r.get(
                      base + "/output",
                      ctx -> FakeBerth.send(FakeBerth.sse(ctx), FakeBerth.output(0, "hi\n")));
                  r.get(
                      base,
                      ctx ->
                          FakeBerth.json(
                              ctx,
                              200,
                              "{\"id\":\""
                                  + eid
                                  + "\",\"command\":\"echo hi\",\"state\":\"SUCCEEDED\",\"exitCode\":0,"
                                  + "\"timedOut\":false,\"output\":{\"nextOffset\":3}}"));
                });
        BerthClient client = berth.client()) {
      Collector collector = new Collector();

      StreamEnd end = client.followExecution(ID, eid, 0, collector).await(WAIT).orElseThrow();

      assertThat(end.reason()).isEqualTo(StreamEnd.Reason.FINISHED);
      assertThat(collector.text()).isEqualTo("hi\n");
      assertThat(berth.seen(base + "/output")).hasSize(1);
    }
  }
}
