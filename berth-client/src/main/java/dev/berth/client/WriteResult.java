package dev.berth.client;

import dev.berth.core.session.SessionId;
import java.util.Optional;

/**
 * The answer to {@code POST /sessions/{id}/write}.
 *
 * @param session the session after the write, when the server sends it
 * @param path how the session was served: {@code active}, {@code idle->active->write} or {@code
 *     snapshot->restore->write}
 */
public record WriteResult(SessionId sessionId, Optional<SessionView> session, String path) {}
