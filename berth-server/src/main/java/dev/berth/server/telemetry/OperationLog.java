package dev.berth.server.telemetry;

import dev.berth.core.lifecycle.OperationEvents;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.Step;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lifecycle in the log and the metrics: a line when an operation is recorded, at each attempt,
 * at each step and when it ends (with its reason); {@code berth_operations_seconds{type,result}}
 * (created to finished, a histogram), {@code berth_operation_steps_total{type,step}} and {@code
 * berth_operation_attempts_total{type}}.
 *
 * <p>A PROVISION's duration is the time from create to a running session, a RESUME's the time a
 * restore takes: docs/operations.md points there rather than keeping separate meters for them.
 */
public final class OperationLog implements OperationEvents {

  private static final Logger LOG = LoggerFactory.getLogger(OperationLog.class);

  private final Meter.MeterProvider<Counter> attempts;
  private final Meter.MeterProvider<Counter> steps;
  private final Meter.MeterProvider<Timer> operations;

  public OperationLog(Telemetry telemetry) {
    this.attempts =
        telemetry.counter(
            "berth.operation.attempts",
            "Attempts of lifecycle operations (more than one: a restart resumed it)");
    this.steps =
        telemetry.counter("berth.operation.steps", "Steps recorded by lifecycle operations");
    this.operations =
        telemetry.lifecycleTimer(
            "berth.operations",
            "Lifecycle operations from recorded to finished, by type and result");
  }

  @Override
  public void recorded(Operation operation) {
    LOG.info(
        "operation {} recorded: {} of session {} for intent {}",
        operation.id(),
        label(operation),
        operation.sessionId(),
        operation.intentVersion());
  }

  @Override
  public void updated(Operation before, Operation after) {
    if (after.attempts() > before.attempts()) {
      LOG.info(
          "operation {} started: {} of session {}, attempt {}",
          after.id(),
          label(after),
          after.sessionId(),
          after.attempts());
      attempts.withTag("type", label(after)).increment();
    }
    int known = Math.min(before.steps().size(), after.steps().size());
    for (Step step : after.steps().subList(known, after.steps().size())) {
      LOG.info(
          "operation {} step {}{}",
          after.id(),
          step.name(),
          step.detail().isEmpty() ? "" : ": " + oneLine(step.detail()));
      steps
          .withTags("type", label(after), "step", step.name().name().toLowerCase(Locale.ROOT))
          .increment();
    }
    if (after.state().isFinished() && !before.state().isFinished()) {
      finished(after);
    }
  }

  private void finished(Operation op) {
    Duration took = Duration.between(op.createdAt(), op.finishedAt().orElse(op.createdAt())).abs();
    String result = op.state().name().toLowerCase(Locale.ROOT);
    String reason =
        op.error().map(e -> " (" + e.reason() + ": " + oneLine(e.message()) + ")").orElse("");
    if (op.error().isPresent()) {
      LOG.warn(
          "operation {} {}: {} of session {} after {} ms{}",
          op.id(),
          result,
          label(op),
          op.sessionId(),
          took.toMillis(),
          reason);
    } else {
      LOG.info(
          "operation {} {}: {} of session {} after {} ms",
          op.id(),
          result,
          label(op),
          op.sessionId(),
          took.toMillis());
    }
    operations.withTags("type", label(op), "result", result).record(took);
  }

  /**
   * Text from a runtime or an agent (a step's detail, an error's message) as one log line: a line
   * break or another control character in it could otherwise forge a line of its own.
   */
  static String oneLine(String text) {
    StringBuilder line = new StringBuilder(text.length());
    text.codePoints()
        .forEach(
            c -> {
              if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
                line.append(String.format(Locale.ROOT, "\\x%02x", c));
              } else {
                line.appendCodePoint(c);
              }
            });
    return line.toString();
  }

  private static String label(Operation op) {
    return op.type().name().toLowerCase(Locale.ROOT);
  }
}
