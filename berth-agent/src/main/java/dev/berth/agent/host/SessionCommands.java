package dev.berth.agent.host;

import dev.berth.agent.contract.LocalContract;
import dev.berth.core.session.SessionId;
import dev.berth.protocol.contract.CommandHeaders;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * How a command reaches a session's runtime through the session's local contract. A lifecycle
 * command (terminate, lease, checkpoint, restore) runs under the session's lock with its contract
 * open, so that two never both pass a check only one of them should; a data command (input, resize,
 * execution, prompt) is checked against the contract and then goes to the runtime without the
 * session's lock.
 */
final class SessionCommands {

  private final RuntimeRegistry runtimes;
  private final SessionLocks locks;
  private final SessionContracts contracts;

  SessionCommands(RuntimeRegistry runtimes, SessionLocks locks, SessionContracts contracts) {
    this.runtimes = runtimes;
    this.locks = locks;
    this.contracts = contracts;
  }

  /**
   * Runs a lifecycle command on the session's hosted runtime and contract, under its lock.
   *
   * @throws dev.berth.core.error.NotFoundException when no runtime of the session is hosted
   */
  <T> T lifecycle(SessionId session, BiFunction<HostedRuntime, LocalContract, T> command) {
    return locks.locked(
        session,
        () -> {
          HostedRuntime runtime = runtimes.get(session);
          return contracts.with(session, contract -> command.apply(runtime, contract));
        });
  }

  /**
   * The session's runtime, once the contract admits data command {@code command}.
   *
   * @throws dev.berth.core.error.NotFoundException when no runtime of the session is hosted
   */
  HostedRuntime data(SessionId session, String command, Optional<CommandHeaders> headers) {
    contracts.checkData(session, command, headers);
    return runtimes.get(session);
  }
}
