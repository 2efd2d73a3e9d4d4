package dev.berth.agent.host;

import dev.berth.agent.archive.ArchiveIdentity;
import dev.berth.agent.archive.ArchiveSummary;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.SessionId;
import dev.berth.protocol.contract.CommandHeaders;
import dev.berth.protocol.problem.AgentReason;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The checkpoint and restore use cases of the agent protocol: each admitted under the session's
 * local contract, then carried out by the runtime's {@link RuntimeCheckpoint}. See {@link
 * SessionHost} for what each command answers.
 */
final class CheckpointCommands {

  private static final Logger LOG = LoggerFactory.getLogger(CheckpointCommands.class);

  private final RuntimeRegistry runtimes;
  private final SessionCommands commands;
  private final Clock clock;

  CheckpointCommands(RuntimeRegistry runtimes, SessionCommands commands, Clock clock) {
    this.runtimes = runtimes;
    this.commands = commands;
    this.clock = clock;
  }

  List<String> prepare(SessionId session, CommandHeaders headers, long generation) {
    // An agent session's accepted prompts run first, without the session's locks: a drain takes
    // up to 5 minutes, which no status, lease or terminate of the session may wait behind.
    HostedRuntime draining = runtimes.get(session);
    draining.checkpoint().drain();
    try {
      return pause(session, headers, generation);
    } catch (RuntimeException e) {
      draining.checkpoint().reopenPrompts();
      throw e;
    }
  }

  private List<String> pause(SessionId session, CommandHeaders headers, long generation) {
    return commands.lifecycle(
        session,
        (runtime, contract) -> {
          contract.accept(
              "checkpoint " + generation,
              headers,
              DesiredState.SUSPENDED,
              () -> {
                runtime.checkpoint().prepare();
                return "paused for generation " + generation;
              });
          return runtime.checkpoint().contents();
        });
  }

  void write(SessionId session, long generation, OutputStream out) throws IOException {
    HostedRuntime runtime = runtimes.get(session);
    runtime
        .checkpoint()
        .write(new ArchiveIdentity(session.value(), generation, clock.instant()), out);
  }

  ArchiveSummary written(SessionId session, long generation) {
    return runtimes
        .get(session)
        .checkpoint()
        .written(generation)
        .orElseThrow(
            () ->
                new NotFoundException(
                    "checkpoint "
                        + generation
                        + " of session "
                        + session.value()
                        + " (none was written whole; prepare it again)"));
  }

  void abort(SessionId session, CommandHeaders headers, long generation) {
    commands.lifecycle(
        session,
        (runtime, contract) ->
            contract.accept(
                "abort checkpoint " + generation,
                headers,
                () -> {
                  runtime.checkpoint().abort();
                  return "continued after abandoning generation " + generation;
                }));
  }

  Restored restore(
      SessionId session,
      SessionId archiveOwner,
      CommandHeaders headers,
      long generation,
      InputStream archive) {
    return commands.lifecycle(
        session,
        (runtime, contract) -> {
          var expected = new ArchiveIdentity(archiveOwner.value(), generation, clock.instant());
          String reply =
              contract
                  .accept(
                      "restore generation " + generation,
                      headers,
                      DesiredState.RUNNING,
                      () -> restoreInto(runtime, expected, archive).toReply())
                  .reply();
          return sameRestore(headers, reply, runtime.descriptor().runtime(), generation);
        });
  }

  private static Restored restoreInto(
      HostedRuntime runtime, ArchiveIdentity expected, InputStream archive) {
    try {
      Restored restored = runtime.restore(expected, archive);
      LOG.info(
          "restored generation {} into runtime {} ({} entries)",
          expected.generation(),
          restored.runtime(),
          restored.files());
      return restored;
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot restore generation " + expected.generation() + " into " + runtime.directory(), e);
    }
  }

  /**
   * The recorded reply of a repeated operation answers only the same restore: the contract keys
   * replies by operation alone, and the same operation naming another runtime (an older
   * incarnation) or generation must not pass for a restore that never happened.
   */
  private static Restored sameRestore(
      CommandHeaders headers, String reply, String runtime, long generation) {
    Optional<Restored> recorded;
    try {
      recorded = Optional.of(Restored.fromReply(reply));
    } catch (RuntimeException e) {
      recorded = Optional.empty();
    }
    if (recorded.isPresent()
        && recorded.get().runtime().equals(runtime)
        && recorded.get().generation() == generation) {
      return recorded.get();
    }
    throw new HostRefusal(
        409,
        AgentReason.CONFLICT,
        "operation "
            + headers.operation().value()
            + " was already performed ("
            + recorded
                .map(r -> "it restored generation " + r.generation() + " into " + r.runtime())
                .orElse("by another command, which answered \"" + reply + "\"")
            + "), so it cannot restore generation "
            + generation
            + " into "
            + runtime
            + "; send this restore under an operation of its own");
  }
}
