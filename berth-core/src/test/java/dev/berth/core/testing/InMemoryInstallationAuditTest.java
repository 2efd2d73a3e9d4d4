package dev.berth.core.testing;

import dev.berth.core.store.InstallationAuditContract;

class InMemoryInstallationAuditTest extends InstallationAuditContract<InMemorySessionStore> {
  @Override
  protected InMemorySessionStore newStore(MutableClock clock) {
    return new InMemorySessionStore(clock);
  }
}
