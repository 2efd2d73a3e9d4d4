package dev.berth.cli;

import dev.berth.client.BerthClient;
import dev.berth.client.Execution;
import dev.berth.client.OutputEvent;
import dev.berth.client.OutputFollow;
import dev.berth.client.OutputListener;
import dev.berth.client.Prompted;
import dev.berth.client.ReadResult;
import dev.berth.core.session.SessionId;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code berth prompt ID TEXT}: queues a prompt of an agent session and, unless {@code --no-wait},
 * prints the answer as it streams until the prompt's run ends; the exit status is 0 when it
 * succeeded. The output is followed from where it ended before the prompt, so the answer is all
 * that is printed.
 */
@Command(
    name = "prompt",
    mixinStandardHelpOptions = true,
    versionProvider = BerthCommand.Version.class,
    description = {
      "Sends a prompt to an agent session and prints the answer as it streams.",
      "The prompt is queued behind the session's earlier ones; a snapshot is restored first. With"
          + " --no-wait it prints the prompt's execution id and returns at once."
    })
final class PromptCommand extends ClientCommand {

  /** How often the prompt's execution is looked at while its answer streams. */
  private static final Duration POLL = Duration.ofMillis(300);

  /** How long the stream may still bring the answer's end once the run has ended. */
  private static final Duration DRAIN = Duration.ofSeconds(2);

  @Parameters(
      index = "0",
      paramLabel = "SESSION",
      converter = SessionRef.Converter.class,
      description = SessionRef.DESCRIPTION)
  SessionRef session;

  /** The session {@link #session} names, found at the start of {@code run}. */
  @SuppressWarnings("NullAway.Init")
  SessionId id;

  @Parameters(index = "1", paramLabel = "TEXT", description = "The prompt.")
  String text;

  @Option(
      names = "--permission-mode",
      paramLabel = "MODE",
      description = "This turn's permission mode: default, acceptEdits, plan, dontAsk or auto.")
  @Nullable String permissionMode;

  @Option(
      names = "--no-wait",
      description = "Print the prompt's execution id and return once it is queued.")
  boolean noWait;

  @Override
  int run(BerthClient client) throws Exception {
    id = session.resolve(client);
    if (noWait) {
      Prompted queued = client.prompt(id, text, Optional.ofNullable(permissionMode));
      out().println(queued.execution().value());
      out().flush();
      return ErrorReporter.OK;
    }
    long start = client.read(id, Long.MAX_VALUE).nextOffset();
    Prompted queued = client.prompt(id, text, Optional.ofNullable(permissionMode));
    Printer printer = new Printer(environment().stdout());
    OutputFollow follow = client.follow(id, start, printer);
    try {
      Execution execution = client.execution(id, queued.execution());
      while (!execution.isFinished()) {
        Thread.sleep(POLL.toMillis());
        execution = client.execution(id, queued.execution());
      }
      Thread.sleep(Math.min(DRAIN.toMillis(), POLL.toMillis() * 2));
      if (!execution.state().equals("SUCCEEDED")) {
        err()
            .println(
                "berth: the prompt ended "
                    + execution.state()
                    + execution.exitCode().stream()
                        .mapToObj(c -> " (exit " + c + ")")
                        .findFirst()
                        .orElse("")
                    + "; its execution is "
                    + queued.execution().value());
        err().flush();
        return ErrorReporter.FAILED;
      }
      return ErrorReporter.OK;
    } finally {
      follow.close();
    }
  }

  /** Writes the answer's bytes as they come. */
  private static final class Printer implements OutputListener {
    private final OutputStream out;

    Printer(OutputStream out) {
      this.out = out;
    }

    @Override
    public void output(OutputEvent.Chunk chunk) {
      try {
        out.write(chunk.bytes());
        out.flush();
      } catch (IOException closed) {
        // stdout went away (a pipe's reader left): nothing more to print.
      }
    }

    @Override
    public void reset(OutputEvent.Reset reset, Optional<ReadResult> reread) {
      // The answer is new output; a reset of what came before it changes nothing here.
    }
  }
}
