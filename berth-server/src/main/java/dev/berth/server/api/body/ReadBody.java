package dev.berth.server.api.body;

import dev.berth.server.api.StrictJson;

/**
 * The body of {@code POST /sessions/{id}/read}; optional.
 *
 * @param offset the byte cursor to read from, at least 0; absent ({@code null}) means 0, so the
 *     accessor never returns {@code null}
 */
public record ReadBody(Long offset) {
  public ReadBody {
    if (offset == null) {
      offset = 0L;
    } else if (offset < 0) {
      throw StrictJson.invalidField("offset", "must be a non-negative integer", offset);
    }
  }
}
