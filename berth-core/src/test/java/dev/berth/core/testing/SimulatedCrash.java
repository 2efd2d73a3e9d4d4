package dev.berth.core.testing;

import java.io.Serial;

/**
 * Thrown by test failpoints to stand for the death of the control-plane process. It is an {@link
 * Error} so that no protocol code handles it: like a real crash, it skips every cleanup, and the
 * session lease is left to expire.
 */
public final class SimulatedCrash extends Error {
  @Serial private static final long serialVersionUID = 1L;

  public SimulatedCrash(String failpoint) {
    super("simulated crash at failpoint " + failpoint);
  }
}
