package dev.berth.client;

import static dev.berth.client.FakeBerth.SID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.session.SessionId;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AttachConnectionTest {

  private static final SessionId ID = new SessionId(SID);
  private static final String ATTACH = "/api/v1/sessions/" + SID + "/attach";

  /** Records what the terminal receives. */
  private static final class Recorder implements AttachListener {
    final List<String> seen = new CopyOnWriteArrayList<>();

    @Override
    public void attached(long offset) {
      seen.add("attached " + offset);
    }

    @Override
    public void output(byte[] bytes) {
      seen.add("output " + new String(bytes, StandardCharsets.UTF_8));
    }

    @Override
    public void reset(long nextOffset) {
      seen.add("reset " + nextOffset);
    }

    @Override
    public void error(String reason, String message) {
      seen.add("error " + reason + ": " + message);
    }
  }

  /**
   * A terminal that answers input in capitals (and notes the size of each input message in {@code
   * headers}) and reports resizes as an error message.
   */
  private static FakeBerth echoTerminal(List<String> headers) {
    return FakeBerth.start(
        r ->
            r.ws(
                ATTACH,
                ws -> {
                  ws.onConnect(
                      ctx -> {
                        headers.add(
                            ctx.header("Authorization") + " offset=" + ctx.queryParam("offset"));
                        ctx.send("{\"type\":\"attached\",\"offset\":7}");
                        ctx.send(ByteBuffer.wrap("$ ".getBytes(StandardCharsets.UTF_8)));
                      });
                  ws.onBinaryMessage(
                      ctx -> {
                        byte[] bytes = new byte[ctx.data().remaining()];
                        ctx.data().get(bytes);
                        headers.add("input " + bytes.length);
                        String text = new String(bytes, StandardCharsets.UTF_8);
                        ctx.send(
                            ByteBuffer.wrap(
                                text.toUpperCase(Locale.ROOT).getBytes(StandardCharsets.UTF_8)));
                      });
                  ws.onMessage(
                      ctx ->
                          ctx.send(
                              "{\"type\":\"error\",\"reason\":\"SEEN\",\"error\":"
                                  + tools.jackson.databind.json.JsonMapper.builder()
                                      .build()
                                      .writeValueAsString(ctx.message())
                                  + "}"));
                }));
  }

  @Test
  void relaysInputOutputAndResizeOverOneWebSocket() throws Exception {
    List<String> headers = new CopyOnWriteArrayList<>();
    try (FakeBerth berth = echoTerminal(headers);
        BerthClient client = berth.client()) {
      Recorder recorder = new Recorder();
      AttachConnection terminal = client.attach(ID, 7, recorder);

      terminal.send("ls\r".getBytes(StandardCharsets.UTF_8));
      terminal.resize(120, 40);
      awaitSize(recorder.seen, 4);
      terminal.close();

      assertThat(headers).containsExactly("Bearer " + FakeBerth.TOKEN + " offset=7", "input 3");
      assertThat(recorder.seen)
          .containsExactly(
              "attached 7",
              "output $ ",
              "output LS\r",
              "error SEEN: {\"type\":\"resize\",\"cols\":120,\"rows\":40}");
      assertThat(terminal.cursor()).isEqualTo(7 + 2 + 3);
      AttachConnection.Closed closed = terminal.closed().get(5, TimeUnit.SECONDS);
      assertThat(closed.byClient()).isTrue();
    }
  }

  @Test
  void splitsLongInputIntoFramesTheServerAccepts() throws Exception {
    List<String> headers = new CopyOnWriteArrayList<>();
    try (FakeBerth berth = echoTerminal(headers);
        BerthClient client = berth.client()) {
      Recorder recorder = new Recorder();
      AttachConnection terminal = client.attach(ID, 0, recorder);

      terminal.send(new byte[AttachConnection.MAX_INPUT_FRAME + 10]);
      awaitSize(headers, 3);
      terminal.close();

      assertThat(headers.subList(1, 3))
          .containsExactly("input " + AttachConnection.MAX_INPUT_FRAME, "input 10");
    }
  }

  @Test
  void refusesABadTerminalSize() throws Exception {
    List<String> headers = new CopyOnWriteArrayList<>();
    try (FakeBerth berth = echoTerminal(headers);
        BerthClient client = berth.client();
        AttachConnection terminal = client.attach(ID, 0, new Recorder())) {
      assertThatThrownBy(() -> terminal.resize(0, 24)).hasMessageContaining("1..1000 columns");
    }
  }

  @Test
  void aRefusedUpgradeIsAnApiException() {
    try (FakeBerth berth =
            FakeBerth.start(
                r ->
                    r.get(
                        ATTACH,
                        ctx -> FakeBerth.problem(ctx, 404, "NOT_FOUND", "session not found")));
        BerthClient client = berth.client()) {
      assertThatThrownBy(() -> client.attach(ID, 0, new Recorder()))
          .isInstanceOfSatisfying(
              BerthApiException.class, e -> assertThat(e.status()).isEqualTo(404));
    }
  }

  private static void awaitSize(List<String> list, int size) throws InterruptedException {
    for (int i = 0; i < 500 && list.size() < size; i++) {
      Thread.sleep(10);
    }
  }
}
