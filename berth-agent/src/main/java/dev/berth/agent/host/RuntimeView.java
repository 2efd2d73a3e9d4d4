package dev.berth.agent.host;

import dev.berth.agent.contract.ContractRecord;
import dev.berth.agent.contract.LeaseState;
import dev.berth.agent.isolation.Isolation;
import dev.berth.agent.isolation.StateDisks;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/** What the status route reports of one hosted runtime, read at one moment. */
public record RuntimeView(
    RuntimeDescriptor descriptor,
    RuntimeState state,
    OptionalLong shellPid,
    Optional<Integer> exitCode,
    boolean busy,
    Optional<String> foreground,
    Optional<Instant> lastOutputAt,
    LeaseState lease,
    ContractRecord contract,
    Optional<String> stopReason,
    Isolation isolation,
    StateDisks.Usage disk,
    long startOffset,
    long nextOffset,
    int columns,
    int rows,
    boolean executionRunning) {}
