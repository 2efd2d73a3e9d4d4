/**
 * What a node tells its operators: its meters in a Micrometer registry of its own, scraped in the
 * Prometheus text format at {@code GET /metrics}. The adapter of the host's {@link
 * dev.berth.agent.host.NodeMeters} port; the only package that knows Micrometer.
 */
@NullMarked
package dev.berth.agent.telemetry;

import org.jspecify.annotations.NullMarked;
