package dev.berth.client;

import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * One page of {@code GET /sessions}.
 *
 * @param nextPageToken present when more sessions follow; pass it to {@link
 *     BerthClient#listSessions(SessionQuery)} to read the next page
 * @param json the page as the server sent it
 */
public record SessionPage(
    List<SessionView> sessions, Optional<String> nextPageToken, JsonNode json) {

  public SessionPage {
    sessions = List.copyOf(sessions);
  }
}
