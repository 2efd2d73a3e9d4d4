package dev.berth.agent.isolation;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fuse2fs daemons that serve a state image. A daemon outlives its mount (a lazy unmount, a
 * killed node that lost its mount): two serving one image would write one filesystem at once.
 */
final class FuseDaemons {
  // Part of how state disks are mounted: logged under their name.
  private static final Logger LOG = LoggerFactory.getLogger(StateDisks.class);

  private FuseDaemons() {}

  /** Ends every fuse2fs that serves {@code image}: asked first, killed after 5 s. */
  static void endServing(Path image) {
    String served = image.toString();
    List<ProcessHandle> daemons =
        ProcessHandle.allProcesses()
            .filter(
                p ->
                    p.info()
                        .arguments()
                        .map(args -> args.length > 0 && args[0].equals(served))
                        .orElse(false))
            .filter(p -> p.info().command().map(c -> c.endsWith("fuse2fs")).orElse(false))
            .toList();
    for (ProcessHandle daemon : daemons) {
      LOG.warn("ending fuse2fs {} that still serves {}", daemon.pid(), image);
      daemon.destroy();
      try {
        daemon.onExit().get(5, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        daemon.destroyForcibly();
      } catch (ExecutionException e) {
        continue;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
