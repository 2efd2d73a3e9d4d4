package dev.berth.core.lifecycle;

import dev.berth.core.agent.AgentClient;
import dev.berth.core.archive.ArchiveStore;
import dev.berth.core.runtime.Runtime;
import dev.berth.core.store.SessionStore;
import java.time.InstantSource;

/** What the reconciler's protocols talk to, and the settings and failpoints they follow. */
record LifecyclePorts(
    SessionStore store,
    Runtime runtime,
    AgentClient agent,
    ArchiveStore archives,
    InstantSource clock,
    LifecycleSettings settings,
    Failpoints failpoints,
    OperationEvents events) {}
