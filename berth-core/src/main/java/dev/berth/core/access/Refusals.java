package dev.berth.core.access;

import dev.berth.core.error.RuntimeUnavailableException;
import dev.berth.core.session.Phase;
import dev.berth.core.session.Session;
import java.util.Locale;

/** Refusals more than one use case words the same way. */
final class Refusals {

  private Refusals() {}

  /** A failed session: why, and the way out (recovery when an archive of it exists). */
  static RuntimeUnavailableException failed(Session s) {
    String why = s.failure().map(f -> f.reason() + ": " + f.message()).orElse("no reason recorded");
    String wayOut =
        s.archive().isPresent()
            ? "; delete it, then POST /sessions/"
                + s.id().value()
                + "/recover brings its last"
                + " archive back as a new session"
            : "; delete it and create a new one";
    return new RuntimeUnavailableException(
        "session " + s.id().value() + " failed: " + why + wayOut);
  }

  static void failIfFailed(Session s) {
    if (s.phase() == Phase.FAILED) {
      throw failed(s);
    }
  }

  /** The precise lifecycle, for messages: {@code provisioning}, {@code suspended}, … */
  static String phaseName(Session s) {
    return s.phase().name().toLowerCase(Locale.ROOT);
  }
}
