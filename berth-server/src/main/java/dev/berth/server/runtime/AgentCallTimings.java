package dev.berth.server.runtime;

import java.net.URI;

/**
 * Told how long each short exchange with a node agent took (a command, input, an output read, a
 * status): for {@code berth_agent_calls_seconds}, which lives outside the runtime adapters. Called
 * on the caller's thread, so it must be quick. Streams (SSE, attach, archives) are not short
 * exchanges and are not told.
 */
@FunctionalInterface
public interface AgentCallTimings {

  /** Nothing is told. */
  AgentCallTimings NONE = (method, route, outcome, nanos) -> {};

  /**
   * @param route the agent route's template ({@link #route}), never a path with a session id
   * @param outcome the answer's status class ({@code 2xx}, {@code 4xx}, ...) or {@code error} when
   *     no answer came
   */
  void took(String method, String route, String outcome, long nanos);

  /**
   * The route template of an agent URL: {@code /v1/sessions/{id}/input} for {@code
   * /v1/sessions/0a1b…/input}, so that each session adds no series of its own. Told on every
   * exchange (each keystroke's write among them), so it looks at characters, not a pattern.
   */
  static String route(URI uri) {
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    StringBuilder route = new StringBuilder();
    for (String segment : path.split("/")) {
      if (!segment.isEmpty()) {
        route.append('/').append(routeWord(segment) ? segment : "{id}");
      }
    }
    return route.isEmpty() ? "/" : route.toString();
  }

  /**
   * Whether a path segment is a word of a route (a version such as {@code v1}, a noun of at most 20
   * letters and hyphens), not an id: a session's id is 32 hex characters, an execution's {@code x-}
   * and 24 more, both longer.
   */
  private static boolean routeWord(String segment) {
    int n = segment.length();
    if (n >= 2 && n <= 3 && segment.charAt(0) == 'v') {
      return segment.chars().skip(1).allMatch(c -> c >= '0' && c <= '9');
    }
    return n <= 20
        && segment.charAt(0) >= 'a'
        && segment.charAt(0) <= 'z'
        && segment.chars().allMatch(c -> (c >= 'a' && c <= 'z') || c == '-');
  }

  /** The outcome label of an answer's status. */
  static String outcome(int status) {
    return (status / 100) + "xx";
  }
}
