package dev.berth.agent.host;

import dev.berth.agent.contract.LocalContract;
import dev.berth.core.session.SessionId;
import dev.berth.protocol.contract.CommandHeaders;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;

/**
 * The sessions' local contracts, each open while something uses it: a hosted runtime (from its
 * creation or reload to its removal) or a command in flight. A contract no one uses is dropped and
 * opened again from its file when the next command comes, so that the host does not keep one in
 * memory for every session it ever served.
 *
 * <p>At most one {@link LocalContract} of a session is open at a time: its lock is what serializes
 * the session's checks and writes, and two of them over one file would each pass a check only one
 * should. Opening and dropping are therefore counted under the map's per-key atomicity, as {@link
 * SessionLocks} counts its holders. Dropping loses nothing: a contract changes its record only
 * after writing it to its file.
 */
final class SessionContracts {

  private final HostConfig config;
  private final Clock clock;
  private final ConcurrentMap<SessionId, Counted> open = new ConcurrentHashMap<>();

  SessionContracts(HostConfig config, Clock clock) {
    this.config = config;
    this.clock = clock;
  }

  /** Runs {@code action} on the session's contract, kept open while it runs. */
  <T> T with(SessionId session, Function<LocalContract, T> action) {
    LocalContract contract = hold(session);
    try {
      return action.apply(contract);
    } finally {
      release(session);
    }
  }

  /** Checks a data-plane command against the session's contract (see {@link LocalContract}). */
  void checkData(SessionId session, String command, Optional<CommandHeaders> headers) {
    with(
        session,
        contract -> {
          contract.checkData(command, headers);
          return null;
        });
  }

  /**
   * The session's contract, kept open until a matching {@link #release}: what a hosted runtime
   * holds for as long as it is hosted.
   *
   * @throws dev.berth.agent.contract.CorruptContractException when its file is not a contract of
   *     the session
   */
  LocalContract hold(SessionId session) {
    return open.compute(
            session,
            (s, held) ->
                held == null
                    ? new Counted(LocalContract.open(config.sessionDirectory(s.value()), s, clock))
                    : held.in())
        .contract;
  }

  /** Lets go of a contract taken with {@link #hold}; the last to let go drops it. */
  void release(SessionId session) {
    open.computeIfPresent(session, (s, held) -> held.out() == 0 ? null : held);
  }

  /** How many contracts are open now. */
  int size() {
    return open.size();
  }

  /** An open contract and how many hold it; changed only inside compute. */
  private static final class Counted {
    private final LocalContract contract;
    private int count = 1;

    Counted(LocalContract contract) {
      this.contract = contract;
    }

    Counted in() {
      count++;
      return this;
    }

    int out() {
      return --count;
    }
  }
}
