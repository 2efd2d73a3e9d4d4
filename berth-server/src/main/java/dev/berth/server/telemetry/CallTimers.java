package dev.berth.server.telemetry;

import dev.berth.server.runtime.AgentCallTimings;
import dev.berth.server.store.sql.SqlTimings;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The latency of the server's calls to what it depends on: {@code
 * berth_store_transactions_seconds{kind,result}} (a read or a write transaction, pool wait
 * included) and {@code berth_agent_calls_seconds{method,route,outcome}} (a short exchange with a
 * node agent). The store and the runtime adapters only tell; the meters are kept here.
 */
public final class CallTimers {

  private final Meter.MeterProvider<Timer> store;
  private final Meter.MeterProvider<Timer> agent;

  public CallTimers(Telemetry telemetry) {
    this.store =
        telemetry.callTimer(
            "berth.store.transactions",
            "Store reads and write transactions, pool wait included, by kind and result");
    this.agent =
        telemetry.callTimer(
            "berth.agent.calls",
            "Short exchanges with node agents (commands, input, output reads, status) by method,"
                + " agent route template and outcome");
  }

  /** What the store tells. */
  public SqlTimings store() {
    return (kind, committed, nanos) ->
        store
            .withTags(
                "kind", kind.name().toLowerCase(Locale.ROOT), "result", committed ? "ok" : "error")
            .record(nanos, TimeUnit.NANOSECONDS);
  }

  /** What the runtime adapters tell. */
  public AgentCallTimings agent() {
    return (method, route, outcome, nanos) ->
        agent
            .withTags("method", method, "route", route, "outcome", outcome)
            .record(nanos, TimeUnit.NANOSECONDS);
  }
}
