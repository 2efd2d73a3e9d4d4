package dev.berth.agent.host;

import dev.berth.agent.contract.ContractRecord;
import dev.berth.agent.contract.LeaseTerms;
import dev.berth.agent.isolation.Isolation;
import dev.berth.agent.isolation.StateDisks;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What the status route reports of one hosted runtime, read at one moment.
 *
 * @param shellRunning whether a shell runs now; a runtime whose shell exited stays {@code running}
 * @param shellStarts how many shells the runtime started (0 while it awaits its archive)
 * @param lastShellExit how the last shell that ended ended, if one did
 */
public record RuntimeView(
    RuntimeDescriptor descriptor,
    RuntimeState state,
    OptionalLong shellPid,
    boolean shellRunning,
    int shellStarts,
    Optional<ShellExit> lastShellExit,
    boolean busy,
    Optional<String> foreground,
    Optional<Instant> lastOutputAt,
    LeaseTerms lease,
    ContractRecord contract,
    Optional<String> stopReason,
    Isolation isolation,
    StateDisks.Usage disk,
    long startOffset,
    long nextOffset,
    int columns,
    int rows,
    boolean executionRunning) {}
