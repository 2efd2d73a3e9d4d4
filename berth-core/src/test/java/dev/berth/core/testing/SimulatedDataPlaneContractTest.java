package dev.berth.core.testing;

import dev.berth.core.agent.DataPlane;
import dev.berth.core.agent.DataPlaneContract;
import dev.berth.core.runtime.Runtime;
import java.time.Duration;

/** The simulated data plane keeps the data-plane contract the real agents keep. */
class SimulatedDataPlaneContractTest extends DataPlaneContract {

  private final MutableClock clock = MutableClock.at("2026-12-01T10:00:00Z");
  private final SimulatedCloud cloud = new SimulatedCloud(clock);

  @Override
  protected Runtime runtime() {
    return cloud;
  }

  @Override
  protected DataPlane dataPlane(Runtime runtime) {
    return new SimulatedDataPlane(cloud, clock);
  }

  @Override
  protected String installation() {
    return "install-1";
  }

  @Override
  protected Duration settlesWithin() {
    return Duration.ofSeconds(2);
  }
}
