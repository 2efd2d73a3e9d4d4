package dev.berth.client;

import dev.berth.core.session.SessionId;
import java.util.Optional;

/**
 * The answer to {@code DELETE /sessions/{id}}.
 *
 * @param terminated true when the server answered 204: the session is terminated; false when it
 *     answered 202: termination continues on the server, and {@code session} shows where it is
 */
public record Deletion(SessionId id, boolean terminated, Optional<SessionView> session) {}
