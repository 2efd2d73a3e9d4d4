package dev.berth.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code berth attach} needs a real TTY, which a test does not have; these tests cover its pieces
 * instead: the input pump and the detach key, the raw output relay, the stty commands, the refusal
 * without a terminal, and the whole command with a fake terminal against a stand-in WebSocket.
 */
class AttachPiecesTest {

  private static final byte CTRL_BRACKET = 0x1d;

  @TempDir Path home;

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** A terminal whose reads answer {@code reads} one by one, then end. */
  private static InputStream typist(byte[]... reads) {
    return new InputStream() {
      private int next;

      @Override
      public int read() {
        throw new UnsupportedOperationException();
      }

      @Override
      public int read(byte[] b, int off, int len) {
        if (next == reads.length) {
          return -1;
        }
        byte[] chunk = reads[next++];
        System.arraycopy(chunk, 0, b, off, chunk.length);
        return chunk.length;
      }
    };
  }

  @Test
  void sendsKeystrokesUntilTheDetachKeyAndNotTheKeyItself() throws IOException {
    byte[] typed = {'l', 's', '\r', 0x03, CTRL_BRACKET, 'x'};
    List<String> sent = new CopyOnWriteArrayList<>();

    TerminalRelay.End end =
        TerminalRelay.pumpInput(
            new ByteArrayInputStream(typed),
            b -> sent.add(new String(b, StandardCharsets.ISO_8859_1)),
            DetachKey.parse("ctrl-]"));

    assertThat(end).isEqualTo(TerminalRelay.End.DETACHED);
    assertThat(sent).containsExactly("ls\r\u0003");
  }

  @Test
  void detachesOnAKeyThatArrivesInALaterRead() throws IOException {
    InputStream slowTypist = typist(bytes("a"), bytes("b"), new byte[] {CTRL_BRACKET});
    List<String> sent = new CopyOnWriteArrayList<>();

    TerminalRelay.End end =
        TerminalRelay.pumpInput(
            slowTypist,
            b -> sent.add(new String(b, StandardCharsets.UTF_8)),
            DetachKey.parse("^]"));

    assertThat(end).isEqualTo(TerminalRelay.End.DETACHED);
    assertThat(sent).containsExactly("a", "b");
  }

  @Test
  void withoutADetachKeyEveryByteGoesThroughUntilInputEnds() throws IOException {
    List<byte[]> sent = new CopyOnWriteArrayList<>();

    TerminalRelay.End end =
        TerminalRelay.pumpInput(
            new ByteArrayInputStream(new byte[] {'a', CTRL_BRACKET}),
            sent::add,
            DetachKey.parse("none"));

    assertThat(end).isEqualTo(TerminalRelay.End.INPUT_CLOSED);
    assertThat(sent).containsExactly(new byte[] {'a', CTRL_BRACKET});
  }

  @Test
  void writesOutputFramesRawAndBerthsOwnNotesEscaped() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    var listener = TerminalRelay.output(out);

    listener.output(bytes("\u001b[31mred\u001b[0m\r\n"));
    listener.error("SHELL_EXITED", "no live shell\u001b[2J");

    assertThat(out.toString(StandardCharsets.UTF_8))
        .isEqualTo("\u001b[31mred\u001b[0m\r\n\r\nberth: SHELL_EXITED: no live shell\\x1b[2J\r\n");
  }

  @Test
  void aShellThatExitedIsToldToTheUserAndOnlyEnterAsksForANewOne() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ShellGate gate = new ShellGate();
    var listener = TerminalRelay.output(out, gate, DetachKey.parse("ctrl-]"));

    listener.output(bytes("\r\n[berth] the shell exited with status 0; ...\r\n"));
    listener.shellExited(0, 1);

    assertThat(out.toString(StandardCharsets.UTF_8))
        .endsWith(
            "berth: the shell exited with status 0; the session stays active. Press Enter to"
                + " start a new shell, or Ctrl-] to detach.\r\n");
    assertThat(gate.exitStatus()).hasValue(0);
    InputStream typist = typist(bytes("ls"), bytes("x\r"), bytes("pwd\r"));
    List<String> sent = new CopyOnWriteArrayList<>();

    TerminalRelay.pumpInput(
        typist,
        b -> sent.add(new String(b, StandardCharsets.UTF_8)),
        DetachKey.parse("ctrl-]"),
        gate);

    assertThat(sent)
        .as("keys before Enter are dropped, then all go")
        .containsExactly("\r", "pwd\r");
    assertThat(gate.exitStatus()).isEmpty();
  }

  @Test
  void parsesDetachKeys() {
    assertThat(DetachKey.parse("ctrl-]").value()).isEqualTo(OptionalInt.of(0x1d));
    assertThat(DetachKey.parse("^A").value()).isEqualTo(OptionalInt.of(0x01));
    assertThat(DetachKey.parse("Ctrl-q").value()).isEqualTo(OptionalInt.of(0x11));
    assertThat(DetachKey.parse("ctrl-]").describe()).isEqualTo("Ctrl-]");
    assertThat(DetachKey.parse("none").value()).isEmpty();
    assertThatThrownBy(() -> DetachKey.parse("ctrl-1")).hasMessageContaining("'ctrl-1'");
    assertThatThrownBy(() -> DetachKey.parse("q")).hasMessageContaining("ctrl-X");
  }

  @Test
  void buildsTheSttyCommandsAndReadsTheSize() {
    assertThat(SttyTerminal.rawCommand()).containsExactly("stty", "raw", "-echo");
    assertThat(SttyTerminal.saveCommand()).containsExactly("stty", "-g");
    assertThat(SttyTerminal.restoreCommand("500:5:bf:8a3b\n"))
        .containsExactly("stty", "500:5:bf:8a3b");
    assertThat(SttyTerminal.sizeCommand()).containsExactly("stty", "size");
    assertThat(SttyTerminal.parseSize("24 80\n")).contains(new Terminal.Size(80, 24));
    assertThat(SttyTerminal.parseSize("0 0")).isEmpty();
    assertThat(SttyTerminal.parseSize("garbage")).isEmpty();
  }

  @Test
  void theResizeWatcherStartsAndStops() throws Exception {
    try (ResizeWatcher watcher = ResizeWatcher.start(() -> {}, Optional::empty)) {
      // On HotSpot/Linux SIGWINCH is available; elsewhere the watcher polls. Both must close.
      assertThat(watcher.usesSignal()).isIn(true, false);
    }
  }

  @Test
  void refusesToAttachWithoutATerminalAndSaysWhatToUseInstead() {
    CliHarness cli = new CliHarness(home);
    cli.variables.put("BERTH_TOKEN", "t");

    int code = cli.run("attach", FakeApi.SID, "--url", "http://127.0.0.1:1");

    assertThat(code).isEqualTo(2);
    assertThat(cli.err.toString())
        .contains("not a TTY")
        .contains("berth logs -f " + FakeApi.SID)
        .contains("berth exec " + FakeApi.SID + " -- CMD");
  }

  @Test
  void attachesRelaysAndDetachesWithARestoredTerminal() {
    List<String> server = new CopyOnWriteArrayList<>();
    try (FakeApi api =
        new FakeApi(
            r -> {
              r.post(
                  "/api/v1/sessions/" + FakeApi.SID + "/read",
                  ctx -> FakeApi.json(ctx, 200, FakeApi.read(42, "")));
              r.ws(
                  "/api/v1/sessions/" + FakeApi.SID + "/attach",
                  ws -> {
                    ws.onConnect(
                        ctx -> {
                          server.add("connect offset=" + ctx.queryParam("offset"));
                          ctx.send("{\"type\":\"attached\",\"offset\":42}");
                          ctx.send(ByteBuffer.wrap(bytes("\u001b[1m$ \u001b[0m")));
                        });
                    ws.onMessage(ctx -> server.add("text " + ctx.message()));
                    ws.onBinaryMessage(
                        ctx -> {
                          byte[] b = new byte[ctx.data().remaining()];
                          ctx.data().get(b);
                          server.add("input " + new String(b, StandardCharsets.UTF_8));
                        });
                    ws.onClose(ctx -> server.add("closed " + ctx.status()));
                  });
            })) {
      CliHarness cli = new CliHarness(home);
      cli.variables.put("BERTH_TOKEN", FakeApi.TOKEN);
      cli.terminal = new CliHarness.FakeTerminal(true);
      cli.stdin = new byte[] {'e', 'c', 'h', 'o', '\r', CTRL_BRACKET};

      int code = cli.run("attach", FakeApi.SID, "--url", api.url());

      assertThat(code).as(cli.err.toString()).isZero();
      awaitSize(server, 4);
      assertThat(server)
          .containsExactly(
              "connect offset=42",
              "text {\"type\":\"resize\",\"cols\":100,\"rows\":30}",
              "input echo\r",
              "closed 1000");
      assertThat(cli.terminal.calls).containsExactly("raw", "watching", "unwatched", "restored");
      assertThat(cli.err.toString())
          .contains("detach with Ctrl-]")
          .contains("Detached from session " + FakeApi.SID);
    }
  }

  private static void awaitSize(List<String> list, int size) {
    for (int i = 0; i < 300 && list.size() < size; i++) {
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
