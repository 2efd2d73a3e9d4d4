package dev.berth.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A real terminal emulator for a test: tmux (Debian's {@code tmux}, which {@code
 * bin/ensure-test-tools} installs) runs a command on a pane of its own server and, like the
 * terminal a person uses, answers the queries the command's output asks (cursor position, device
 * attributes, colours) by typing the answer into the command's input.
 */
final class TmuxTerminal implements AutoCloseable {

  private final String socket =
      "berth-test-" + Long.toHexString(ThreadLocalRandom.current().nextLong());

  /** Runs {@code command} on a new 100×30 pane, with {@code env} added to its environment. */
  static TmuxTerminal run(String command, Map<String, String> env) {
    TmuxTerminal terminal = new TmuxTerminal();
    List<String> argv = new ArrayList<>(List.of("new-session", "-d", "-x", "100", "-y", "30"));
    env.forEach((k, v) -> argv.addAll(List.of("-e", k + "=" + v)));
    argv.add(command);
    terminal.tmux(argv);
    return terminal;
  }

  /** Types {@code keys} into the pane, as a person would (tmux key names, e.g. {@code Enter}). */
  void type(String... keys) {
    List<String> argv = new ArrayList<>(List.of("send-keys"));
    argv.addAll(List.of(keys));
    tmux(argv);
  }

  /** What the pane shows now, as text (escape sequences rendered, as a person sees it). */
  String screen() {
    return tmux(List.of("capture-pane", "-p"));
  }

  private String tmux(List<String> arguments) {
    List<String> argv = new ArrayList<>(List.of("tmux", "-L", socket));
    argv.addAll(arguments);
    try {
      Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(10, TimeUnit.SECONDS)).as("tmux %s", arguments).isTrue();
      assertThat(p.exitValue()).as("tmux %s: %s (install tmux)", arguments, out).isZero();
      return out;
    } catch (IOException e) {
      throw new AssertionError("cannot run tmux (install Debian's tmux): " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  @Override
  public void close() {
    try {
      new ProcessBuilder("tmux", "-L", socket, "kill-server")
          .redirectErrorStream(true)
          .start()
          .waitFor(10, TimeUnit.SECONDS);
    } catch (IOException e) {
      // nothing to kill
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
