package dev.berth.core.runtime;

import dev.berth.core.session.SessionId;
import java.util.Map;
import java.util.Objects;

/** The labels every runtime object carries. Orphans are found by these, never by name prefix. */
public record OwnershipLabels(String installation, SessionId session, long incarnation) {
  public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
  public static final String INSTALLATION = "berth.dev/installation";
  public static final String SESSION = "berth.dev/session";
  public static final String INCARNATION = "berth.dev/incarnation";

  public OwnershipLabels {
    Objects.requireNonNull(installation, "installation");
    Objects.requireNonNull(session, "session");
    if (incarnation < 1) {
      throw new IllegalArgumentException("incarnation must be >= 1, was " + incarnation);
    }
  }

  public Map<String, String> asMap() {
    return Map.of(
        MANAGED_BY,
        "berth",
        INSTALLATION,
        installation,
        SESSION,
        session.value(),
        INCARNATION,
        Long.toString(incarnation));
  }
}
