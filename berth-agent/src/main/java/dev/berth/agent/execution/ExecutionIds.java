package dev.berth.agent.execution;

import dev.berth.core.execution.ExecutionId;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;

/** New execution ids for a runner's table. */
public final class ExecutionIds {

  private ExecutionIds() {}

  /** A random id that {@code taken} does not hold yet. */
  public static ExecutionId fresh(RandomGenerator random, Predicate<ExecutionId> taken) {
    ExecutionId id = ExecutionId.generate(random);
    while (taken.test(id)) {
      id = ExecutionId.generate(random);
    }
    return id;
  }
}
