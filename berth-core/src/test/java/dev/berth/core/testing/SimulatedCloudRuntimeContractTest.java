package dev.berth.core.testing;

import dev.berth.core.runtime.Runtime;
import dev.berth.core.runtime.RuntimeContract;
import java.time.Duration;
import java.util.Optional;

/**
 * The simulated data plane keeps the runtime contract, so the model tests that drive the reconciler
 * against it exercise promises every real adapter keeps too. The fake is its own place: a restarted
 * control plane meets the same instance, it knows no installation of its own (it lists every
 * runtime it hosts), and there is no runtime API to lose contact with (partitions cut off agents,
 * not the runtime).
 */
class SimulatedCloudRuntimeContractTest extends RuntimeContract {
  private SimulatedCloud cloud;

  @Override
  protected Runtime newRuntime() {
    cloud = new SimulatedCloud(MutableClock.at("2026-11-29T10:00:00Z"));
    return cloud;
  }

  @Override
  protected String installation() {
    return "sim-installation";
  }

  @Override
  protected Duration settlesWithin() {
    return Duration.ofSeconds(1);
  }

  @Override
  protected Runtime restarted() {
    return cloud;
  }

  @Override
  protected Optional<Neighbour> neighbour() {
    return Optional.empty();
  }

  @Override
  protected Optional<AutoCloseable> loseContact() {
    return Optional.empty();
  }
}
