package dev.berth.client;

import dev.berth.core.execution.ExecutionId;
import dev.berth.core.session.SessionId;
import java.util.Optional;

/**
 * The answer to a write on an agent session: the prompt was queued as {@code execution}.
 *
 * @param path how the session was served (as {@link WriteResult#path()})
 */
public record Prompted(
    SessionId sessionId, Optional<SessionView> session, String path, ExecutionId execution) {}
