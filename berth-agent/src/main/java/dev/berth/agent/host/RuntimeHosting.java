package dev.berth.agent.host;

import dev.berth.agent.contract.LocalContract;
import dev.berth.core.session.DesiredState;
import dev.berth.core.session.SessionId;
import dev.berth.protocol.contract.CommandHeaders;
import dev.berth.protocol.files.PrivateFiles;
import dev.berth.protocol.problem.AgentReason;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hosting use cases: provisioning a session's runtime (idempotent by name, at most one per
 * session) and removing it with everything it left on disk. Each runs under the session's lock; a
 * runtime holds its session's contract open from its creation to its removal.
 */
final class RuntimeHosting {

  private static final Logger LOG = LoggerFactory.getLogger(RuntimeHosting.class);

  private final HostParts parts;
  private final RuntimeRegistry runtimes;
  private final SessionLocks locks;
  private final SessionContracts contracts;
  private final RuntimeDisks disks;
  private final Optional<SessionId> only;

  RuntimeHosting(
      HostParts parts,
      RuntimeRegistry runtimes,
      SessionLocks locks,
      SessionContracts contracts,
      RuntimeDisks disks,
      Optional<SessionId> only) {
    this.parts = parts;
    this.runtimes = runtimes;
    this.locks = locks;
    this.contracts = contracts;
    this.disks = disks;
    this.only = only;
  }

  /**
   * Creates the runtime {@code request} names, or returns it when it exists (idempotent by name).
   *
   * @throws HostRefusal 409 RUNTIME_CONFLICT when another incarnation of the session is hosted
   */
  SessionHost.Provisioned provision(
      SessionId session, RuntimeRequest request, Optional<CommandHeaders> headers) {
    request.validateFor(session);
    if (only.isPresent() && !only.get().equals(session)) {
      throw new HostRefusal(
          409,
          AgentReason.RUNTIME_CONFLICT,
          "this agent hosts only session "
              + only.get().value()
              + "; session "
              + session.value()
              + " needs a runtime of its own");
    }
    return locks.locked(
        session,
        () -> contracts.with(session, contract -> provision(session, request, headers, contract)));
  }

  private SessionHost.Provisioned provision(
      SessionId session,
      RuntimeRequest request,
      Optional<CommandHeaders> headers,
      LocalContract contract) {
    Optional<HostedRuntime> existing = runtimes.find(session);
    if (existing.isPresent()) {
      HostedRuntime same = sameRuntime(existing.get(), request.runtime());
      same.agent().adopt(request.agent());
      return new SessionHost.Provisioned(same.view(), false);
    }
    if (headers.isPresent()) {
      contract.accept(
          "provision " + request.runtime(),
          headers.get(),
          DesiredState.RUNNING,
          () -> create(session, request));
    } else {
      contract.checkData("provision " + request.runtime(), Optional.empty());
      create(session, request);
    }
    // A repeated provision whose reply was recorded does not run create() again: its runtime is
    // there unless it was removed since.
    HostedRuntime created =
        runtimes
            .find(session)
            .orElseThrow(
                () ->
                    new NullPointerException(
                        "the runtime of session " + session.value() + " was removed since"));
    return new SessionHost.Provisioned(created.view(), true);
  }

  /**
   * Removes the session's runtime (all of it: processes, home, output); removing one that is not
   * hosted succeeds, so removal is idempotent. The contract stays on disk.
   *
   * @param runtimeName when present, only that runtime is removed (a newer one is left alone)
   */
  void remove(SessionId session, Optional<String> runtimeName) {
    locks.locked(
        session,
        () -> {
          Optional<HostedRuntime> hosted = runtimes.find(session);
          if (hosted.isEmpty()
              || runtimeName
                  .map(n -> !n.equals(hosted.get().descriptor().runtime()))
                  .orElse(false)) {
            return null;
          }
          HostedRuntime runtime = hosted.get();
          runtime.close();
          disks.detach(runtime.directory());
          // Only a runtime whose directory is really gone counts as removed: otherwise the next
          // DELETE (the control plane retries) tries again instead of confirming a removal that
          // left the tenant's files on disk.
          RuntimeDisks.delete(runtime.directory());
          runtimes.remove(session);
          contracts.release(session);
          LOG.info("removed runtime {}", runtime.descriptor().runtime());
          return null;
        });
  }

  private String create(SessionId session, RuntimeRequest request) {
    Path directory = disks.directory(session, request.runtime());
    try {
      PrivateFiles.createDirectories(directory);
      disks.attach(directory);
      PrivateFiles.createDirectories(HostedRuntime.state(directory));
      Files.createDirectories(HostedRuntime.home(directory));
      Clock clock = parts.clock();
      RuntimeDescriptor descriptor = RuntimeDescriptor.of(session, request, clock.instant());
      descriptor.write(directory);
      runtimes.put(session, startHeld(session, descriptor, directory, request.agent()));
      LOG.info(
          "created runtime {}{}",
          request.runtime(),
          request.awaitRestore() ? " (awaiting its archive)" : "");
      return "created " + request.runtime();
    } catch (IOException e) {
      disks.discard(directory);
      throw new UncheckedIOException("cannot create runtime directory " + directory, e);
    } catch (RuntimeException e) {
      disks.discard(directory);
      throw e;
    }
  }

  /** A new runtime, holding its session's contract open for as long as it is hosted. */
  private HostedRuntime startHeld(
      SessionId session,
      RuntimeDescriptor descriptor,
      Path directory,
      @Nullable AgentLaunch agent) {
    LocalContract held = contracts.hold(session);
    try {
      return HostedRuntime.start(descriptor, directory, parts, held, agent);
    } catch (RuntimeException e) {
      contracts.release(session);
      throw e;
    }
  }

  private static HostedRuntime sameRuntime(HostedRuntime existing, String requested) {
    String hosted = existing.descriptor().runtime();
    if (!hosted.equals(requested)) {
      throw new HostRefusal(
          409,
          AgentReason.RUNTIME_CONFLICT,
          "this host already runs "
              + hosted
              + " for the session; remove it before creating "
              + requested);
    }
    return existing;
  }
}
