package dev.berth.client;

import java.time.Instant;

/**
 * A tenant token as {@code GET /admin/tokens} lists it: never the token itself, which the server
 * does not keep.
 *
 * @param id the token's SHA-256 digest (hex), which {@link BerthClient#revokeToken} takes
 */
public record TokenInfo(String id, String tenant, Instant createdAt) {}
