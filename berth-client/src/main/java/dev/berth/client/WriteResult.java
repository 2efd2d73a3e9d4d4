package dev.berth.client;

import dev.berth.core.session.SessionId;

/**
 * The answer to {@code POST /sessions/{id}/write}.
 *
 * @param path how the session was served: {@code active}, {@code idle->active->write} or {@code
 *     snapshot->restore->write}
 */
public record WriteResult(SessionId session, String path) {}
