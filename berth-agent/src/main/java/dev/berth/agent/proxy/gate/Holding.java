package dev.berth.agent.proxy.gate;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waiting for one call's decision while the answer stays alive: the gate is asked on a virtual
 * thread of its own, and every {@code every} without a decision the client gets a keepalive, so
 * that neither it nor anything between gives the quiet stream up.
 */
final class Holding {

  private Holding() {}

  static Decision await(
      ToolGate gate,
      String id,
      ToolCall call,
      Duration every,
      String keepalive,
      AnswerGate.Downstream out)
      throws IOException, InterruptedException {
    CompletableFuture<Decision> decision = new CompletableFuture<>();
    Thread asking =
        Thread.ofVirtual()
            .name("berth-approval-" + id)
            .start(
                () -> {
                  try {
                    decision.complete(gate.decide(id, call));
                  } catch (InterruptedException e) {
                    decision.completeExceptionally(e);
                  } catch (RuntimeException | Error e) {
                    // Always a decision: without one the answer would wait on keepalives forever.
                    decision.complete(
                        Decision.of(
                            Decision.Verdict.ERROR, "the gate failed: " + e.getClass().getName()));
                  }
                });
    try {
      while (true) {
        try {
          return decision.get(every.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
          if (keepalive.isEmpty()) {
            continue;
          }
          out.send(keepalive);
        } catch (ExecutionException e) {
          throw new InterruptedException("the decision on " + id + " was interrupted");
        }
      }
    } finally {
      // The client went away (a failed keepalive) or the exchange was stopped: stop asking too.
      asking.interrupt();
    }
  }
}
