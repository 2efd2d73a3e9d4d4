package dev.berth.kubernetes.store;

import dev.berth.core.session.SessionId;

/** The highest fencing token the session leases issued, which a fenced write must carry. */
@FunctionalInterface
interface IssuedTokens {

  /** The highest token issued for {@code session}'s lease, or 0 when it was never leased. */
  long highest(SessionId session);
}
