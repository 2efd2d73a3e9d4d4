package dev.berth.server.runtime.local;

import dev.berth.core.runtime.OwnershipLabels;
import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.WorkloadType;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A control plane reduced to what the test needs, run as its own JVM: it provisions one session
 * through the local runtime (which starts the node), says READY and waits to be killed.
 */
public final class ControlPlaneStandIn {

  private ControlPlaneStandIn() {}

  public static void main(String[] args) throws InterruptedException {
    Path nodeDir = Path.of(args[0]);
    SessionId session = new SessionId(args[1]);
    LocalRuntime runtime =
        new LocalRuntime(
            new LocalNode(nodeDir, LocalNode.javaLaunchCommand(), Duration.ofSeconds(60)),
            "test-installation");
    RuntimeRef ref = RuntimeRef.planned(LocalRuntime.KIND, session, 1);
    runtime.provision(
        new RuntimeSpec(
            ref, WorkloadType.SHELL, new OwnershipLabels("test-installation", session, 1)));
    System.out.println("READY");
    System.out.flush();
    Thread.sleep(Duration.ofMinutes(5));
  }
}
