package dev.berth.agent.agentcli;

import dev.berth.agent.execution.ExecutionIds;
import dev.berth.agent.execution.ExecutionOutcome;
import dev.berth.agent.execution.ExecutionView;
import dev.berth.agent.execution.ProcessLaunch;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.execution.Execution;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.execution.ExecutionKind;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * The table of an agent session's prompts and the queue of those that wait, under one lock: what is
 * admitted, what runs, how each ended. {@link PromptRunner}'s worker takes from it; {@link
 * PromptRun} records its run in it.
 */
final class PromptQueue {

  /** How much of a prompt its execution's {@code command} shows. */
  private static final int COMMAND_SUMMARY = 1024;

  /** A running prompt's process, to kill outside the lock. */
  record Running(Process process, String tag) {
    void kill() {
      ProcessLaunch.killTree(process, tag);
    }
  }

  private final PromptRunner.Setup setup;
  private final SessionOutput output;
  private final Redaction redaction;
  private final RandomGenerator random = RandomGenerator.getDefault();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final Map<ExecutionId, PromptEntry> entries = new LinkedHashMap<>();
  private final Deque<PromptEntry> queue = new ArrayDeque<>();
  private long queuedBytes;
  private boolean closed;
  // Closed while a checkpoint drains the accepted prompts: checked under the lock that submit()
  // queues under, so no prompt gets in after the drain saw the runner idle.
  private boolean admitting = true;
  // Set while the node changes the session's home between prompts (a plugin refresh): the worker
  // starts no run, so no process of the session runs while the node writes there.
  private boolean holding;

  PromptQueue(PromptRunner.Setup setup, SessionOutput output, Redaction redaction) {
    this.setup = setup;
    this.output = output;
    this.redaction = redaction;
  }

  ExecutionView submit(Turn turn) {
    long bytes = turn.prompt().getBytes(StandardCharsets.UTF_8).length;
    lock.lock();
    try {
      requireAdmitting();
      if (output.full()) {
        throw new PromptRunner.OutputFullException();
      }
      PromptRunner.Limits limits = setup.limits();
      if (queue.size() >= limits.maxQueued() || queuedBytes + bytes > limits.maxQueuedBytes()) {
        throw new PromptRunner.QueueFullException(queue.size(), queuedBytes, limits);
      }
      PromptEntry entry = new PromptEntry(turn, bytes, queued(turn));
      entries.put(entry.execution.id(), entry);
      queue.addLast(entry);
      queuedBytes += entry.promptBytes;
      changed.signalAll();
      return entry.view();
    } finally {
      lock.unlock();
    }
  }

  /** Under the lock: a new execution for {@code turn}, its command the prompt's beginning. */
  private Execution queued(Turn turn) {
    String prompt = turn.prompt();
    String command =
        prompt.length() <= COMMAND_SUMMARY ? prompt : prompt.substring(0, COMMAND_SUMMARY) + "…";
    return Execution.queued(
        ExecutionIds.fresh(random, entries::containsKey),
        setup.session(),
        ExecutionKind.PROMPT,
        redaction.text(command),
        0,
        Optional.empty(),
        setup.clock().instant());
  }

  Optional<ExecutionView> get(ExecutionId id) {
    lock.lock();
    try {
      return Optional.ofNullable(entries.get(id)).map(PromptEntry::view);
    } finally {
      lock.unlock();
    }
  }

  List<ExecutionView> list() {
    lock.lock();
    try {
      return entries.values().stream().map(PromptEntry::view).toList();
    } finally {
      lock.unlock();
    }
  }

  void admit(boolean admit) {
    lock.lock();
    try {
      admitting = admit;
    } finally {
      lock.unlock();
    }
  }

  <T> T whileIdle(Supplier<T> action) {
    lock.lock();
    try {
      requireAdmitting();
      long pending = pending();
      if (holding || pending > 0) {
        throw new PromptRunner.BusyException(pending);
      }
      holding = true;
    } finally {
      lock.unlock();
    }
    try {
      return action.get();
    } finally {
      lock.lock();
      try {
        holding = false;
        changed.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  /** Under the lock: how many prompts run or wait. */
  private long pending() {
    return entries.values().stream().filter(e -> !e.execution.state().isFinished()).count();
  }

  /** Under the lock: neither closed nor draining for a checkpoint. */
  private void requireAdmitting() {
    if (closed) {
      throw new IllegalStateException("the prompts of session " + setup.session() + " are closed");
    }
    if (!admitting) {
      throw new PromptRunner.AdmissionClosedException();
    }
  }

  boolean busy() {
    lock.lock();
    try {
      return holding || pending() > 0;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Cancels {@code id}: a waiting prompt leaves the queue, {@code CANCELLED}; a running one is
   * marked, and its process, if it has one yet, is returned to be killed.
   */
  Optional<Running> cancel(ExecutionId id) {
    lock.lock();
    try {
      PromptEntry entry = entries.get(id);
      if (entry == null) {
        throw new NotFoundException(
            "execution " + id.value() + " of session " + setup.session().value());
      }
      if (entry.execution.state().isFinished()) {
        return Optional.empty();
      }
      entry.cancelled = true;
      if (queue.remove(entry)) {
        queuedBytes -= entry.promptBytes;
        entry.execution = entry.execution.cancel(setup.clock().instant());
        changed.signalAll();
        return Optional.empty();
      }
      return running(entry);
    } finally {
      lock.unlock();
    }
  }

  boolean awaitIdle(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    lock.lock();
    try {
      while (holding || pending() > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        changed.awaitNanos(left);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Closes the table: what waits ends {@code LOST}; the running prompt's process, to kill. */
  Optional<Running> close() {
    lock.lock();
    try {
      if (closed) {
        return Optional.empty();
      }
      closed = true;
      Optional<Running> running = Optional.empty();
      for (PromptEntry entry : entries.values()) {
        if (!entry.execution.state().isFinished()) {
          if (entry.process != null) {
            running = running(entry);
          } else {
            entry.execution = entry.execution.lose(setup.clock().instant());
          }
        }
      }
      queue.clear();
      changed.signalAll();
      return running;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The next prompt to run, once one waits and the node does not hold the runner; empty once
   * closed.
   */
  Optional<PromptEntry> take() throws InterruptedException {
    lock.lock();
    try {
      while ((queue.isEmpty() || holding) && !closed) {
        changed.await();
      }
      if (closed) {
        return Optional.empty();
      }
      PromptEntry entry = queue.removeFirst();
      queuedBytes -= entry.promptBytes;
      return Optional.of(entry);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Starts {@code entry}'s process with {@code start} and its execution {@code RUNNING}, its output
   * from {@code outputStart}; or, when it was cancelled meanwhile or the runner closed, records
   * that instead and starts nothing.
   */
  Optional<Process> begin(PromptEntry entry, Supplier<Process> start, long outputStart) {
    lock.lock();
    try {
      if (entry.cancelled || closed) {
        entry.execution =
            closed
                ? entry.execution.lose(setup.clock().instant())
                : entry.execution.cancel(setup.clock().instant());
        changed.signalAll();
        return Optional.empty();
      }
      Process process = start.get();
      entry.process = process;
      entry.execution = entry.execution.start(outputStart, setup.clock().instant());
      changed.signalAll();
      return Optional.of(process);
    } finally {
      lock.unlock();
    }
  }

  /** {@code entry} outlived its timeout: it ends timed out, whatever its process says. */
  void timedOut(PromptEntry entry) {
    lock.lock();
    try {
      entry.timedOut = true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * How {@code entry}'s run ended, its CLI having exited with {@code code}: a timeout, then a
   * cancel, win over the code; a run the runner's close cut short ends {@code LOST}, as commands do
   * when their runtime goes.
   */
  ExecutionOutcome outcome(PromptEntry entry, int code) {
    lock.lock();
    try {
      if (entry.timedOut) {
        return ExecutionOutcome.TIMED_OUT;
      }
      if (entry.cancelled) {
        return ExecutionOutcome.CANCELLED;
      }
      if (code == 0) {
        return ExecutionOutcome.SUCCEEDED;
      }
      return closed ? ExecutionOutcome.LOST : ExecutionOutcome.FAILED;
    } finally {
      lock.unlock();
    }
  }

  /** The process {@code entry}'s run started, if it got that far. */
  Optional<Running> process(PromptEntry entry) {
    lock.lock();
    try {
      return running(entry);
    } finally {
      lock.unlock();
    }
  }

  /** Records how {@code entry} ended (unless it already has) and lets go of its process. */
  void finish(PromptEntry entry, OptionalLong code, ExecutionOutcome outcome) {
    lock.lock();
    try {
      Execution execution = entry.execution;
      long end = execution.outputStart() + entry.outputBytes.get();
      entry.execution = outcome.record(execution, code, end, setup.clock().instant());
      entry.process = null;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Under the lock. */
  private static Optional<Running> running(PromptEntry entry) {
    Process process = entry.process;
    return process == null ? Optional.empty() : Optional.of(new Running(process, entry.id()));
  }
}
