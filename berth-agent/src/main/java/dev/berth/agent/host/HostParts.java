package dev.berth.agent.host;

import dev.berth.agent.isolation.Sandbox;
import java.time.Clock;

/** What every runtime of one host shares: its configuration, sandbox, meters and clock. */
record HostParts(HostConfig config, Sandbox sandbox, NodeMeters meters, Clock clock) {}
