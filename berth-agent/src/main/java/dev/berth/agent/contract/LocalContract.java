package dev.berth.agent.contract;

import dev.berth.core.error.DeadlineExceededException;
import dev.berth.core.error.StaleIntentException;
import dev.berth.core.error.TerminalIntentException;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.SessionId;
import dev.berth.protocol.contract.CommandHeaders;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One session's local contract: the host's own refusal of commands that are late, stale or
 * addressed to a terminated session, backed by {@code <directory>/contract.json}.
 *
 * <p>Checks, in this order, for every command: (1) the deadline, (2) the tombstone, (3) the intent
 * version, (4) the operation id. A refusal throws before anything runs or is written, so a refused
 * command leaves no trace.
 *
 * <p>Crash ordering. An ordinary command runs its effect first and persists its acceptance after
 * the effect succeeded, and the reply is given only after that: a failed effect therefore leaves no
 * trace, and a crash between effect and write loses only an acceptance that no one was told about
 * (the control plane repeats the operation and the effect, which must be idempotent, runs again).
 * Termination is the exception: the tombstone is persisted <em>before</em> the workload is stopped,
 * so that a host that crashes mid-stop comes back refusing everything but a repeated terminate,
 * which stops the workload again.
 *
 * <p>Concurrency: one lock per session serialises every check, effect and write, so two commands
 * never both pass a check that only one of them should. The lock is a {@link ReentrantLock} because
 * effects and writes block. {@link #record()} reads an immutable snapshot without it.
 */
public final class LocalContract {

  /** The reply recorded for an accepted terminate. */
  public static final String TERMINATED = "TERMINATED";

  private static final Logger LOG = LoggerFactory.getLogger(LocalContract.class);

  private final SessionId session;
  private final Clock clock;
  private final ContractFile file;
  private final ReentrantLock lock = new ReentrantLock();
  private volatile ContractRecord current;

  private LocalContract(SessionId session, Clock clock, ContractFile file, ContractRecord current) {
    this.session = session;
    this.clock = clock;
    this.file = file;
    this.current = current;
  }

  /**
   * Loads the session's contract from {@code directory}, or starts a fresh one (version 0, desired
   * RUNNING) when there is none. Nothing is written until a command is accepted.
   *
   * @throws CorruptContractException when the file exists but is not a contract of this session
   * @throws java.io.UncheckedIOException when the file cannot be read
   */
  public static LocalContract open(Path directory, SessionId session, Clock clock) {
    Objects.requireNonNull(session, "session");
    Objects.requireNonNull(clock, "clock");
    var file = new ContractFile(directory);
    file.discardLeftoverTemp();
    var record = file.read(session).orElseGet(() -> ContractRecord.fresh(session));
    return new LocalContract(session, clock, file, record);
  }

  /**
   * Checks a data-plane command ({@code input}, {@code resize}, {@code executions}): refused when
   * the session is tombstoned, and, when it carries headers, when its deadline passed or its
   * version is stale. Persists nothing; waits for an in-flight lifecycle command so that it sees
   * its result.
   *
   * @throws DeadlineExceededException when headers are present and their deadline passed
   * @throws TerminalIntentException when the session is tombstoned
   * @throws StaleIntentException when headers are present and their version is stale
   */
  public void checkData(String command, Optional<CommandHeaders> headers) {
    lock.lock();
    try {
      headers.ifPresent(this::checkDeadline);
      checkNotTombstoned(command, DesiredState.RUNNING);
      headers.ifPresent(this::checkNotStale);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Admits a lifecycle command that serves {@code desired}: after the checks, runs {@code effect}
   * and, only if it returns, persists {@code max(accepted, offered)} as the accepted version,
   * {@code desired}, and the effect's reply under the command's operation id. A repeated operation
   * answers its recorded reply without running the effect.
   *
   * @param desired RUNNING or SUSPENDED; termination goes through {@link #terminate}
   * @param effect the command's effect, returning the reply to record; must be idempotent
   * @throws DeadlineExceededException when the deadline passed (nothing ran)
   * @throws TerminalIntentException when the session is tombstoned (nothing ran)
   * @throws StaleIntentException when the version is below the accepted one (nothing ran)
   * @throws java.io.UncheckedIOException when the acceptance cannot be persisted after the effect
   */
  public CommandOutcome accept(
      String command, CommandHeaders headers, DesiredState desired, Supplier<String> effect) {
    if (desired == DesiredState.TERMINATED) {
      throw new IllegalArgumentException(
          "session " + session + ": " + command + " cannot desire TERMINATED; use terminate()");
    }
    lock.lock();
    try {
      return admit(command, headers, desired, effect);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Admits a lifecycle command that does not change what the session desires (a lease renewal, a
   * runtime removal): as {@link #accept(String, CommandHeaders, DesiredState, Supplier)} with the
   * currently accepted desired state.
   */
  public CommandOutcome accept(String command, CommandHeaders headers, Supplier<String> effect) {
    lock.lock();
    try {
      return admit(command, headers, current.acceptedDesired(), effect);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Admits termination: after the deadline and version checks, persists the tombstone (desired
   * TERMINATED, the operation recorded) and only then runs {@code stop}. Once tombstoned, every
   * terminate within its deadline is a success that runs {@code stop} again, whatever its version,
   * so that a stop interrupted by a crash completes when the control plane repeats the command.
   *
   * @param stop stops the workload; must be idempotent. If it throws, the tombstone stays.
   * @throws DeadlineExceededException when the deadline passed (nothing ran)
   * @throws StaleIntentException when not yet tombstoned and the version is below the accepted one
   * @throws java.io.UncheckedIOException when the tombstone cannot be persisted (stop did not run)
   */
  public CommandOutcome terminate(CommandHeaders headers, Runnable stop) {
    lock.lock();
    try {
      checkDeadline(headers);
      var before = current;
      if (before.tombstoned()) {
        stop.run();
        return new CommandOutcome(before.replyTo(headers.operation()).orElse(TERMINATED), true);
      }
      checkNotStale(headers);
      var tombstoned =
          before.tombstoning(
              headers.intentVersion(), headers.operation(), TERMINATED, clock.instant());
      file.write(tombstoned);
      current = tombstoned;
      LOG.info("{} - tombstone written at intent version {}", session, headers.intentVersion());
      stop.run();
      return new CommandOutcome(TERMINATED, false);
    } finally {
      lock.unlock();
    }
  }

  /** The contract as last persisted (or fresh); an immutable snapshot, read without waiting. */
  public ContractRecord record() {
    return current;
  }

  public SessionId session() {
    return session;
  }

  /** The file this contract is persisted in. */
  public Path file() {
    return file.path();
  }

  private CommandOutcome admit(
      String command, CommandHeaders headers, DesiredState desired, Supplier<String> effect) {
    checkDeadline(headers);
    checkNotTombstoned(command, desired);
    checkNotStale(headers);
    var before = current;
    // A reply is recorded with the command it answered: one operation sends several commands (a
    // suspend's checkpoint/prepare of G, then the abort of G after a crash, then the prepare of
    // G+1), and each must run once, not answer with another's reply.
    String tag = command + "\n";
    var recorded = before.replyTo(headers.operation()).filter(r -> r.startsWith(tag));
    if (recorded.isPresent()) {
      return new CommandOutcome(recorded.get().substring(tag.length()), true);
    }
    String reply =
        Objects.requireNonNull(effect.get(), () -> command + " effect returned no reply");
    var after =
        before.accepting(headers.intentVersion(), desired, headers.operation(), tag + reply);
    file.write(after);
    current = after;
    return new CommandOutcome(reply, false);
  }

  private void checkDeadline(CommandHeaders headers) {
    var now = clock.instant();
    if (now.isAfter(headers.deadline())) {
      throw new DeadlineExceededException(
          "session " + session, headers.deadline().toString(), now.toString());
    }
  }

  private void checkNotTombstoned(String command, DesiredState desired) {
    if (current.tombstoned()) {
      throw new TerminalIntentException(
          "session " + session, desired + " (to take " + command + ")");
    }
  }

  private void checkNotStale(CommandHeaders headers) {
    long accepted = current.acceptedIntentVersion();
    if (headers.intentVersion() < accepted) {
      throw new StaleIntentException("session " + session, headers.intentVersion(), accepted);
    }
  }
}
