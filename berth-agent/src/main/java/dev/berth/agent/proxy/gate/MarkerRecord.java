package dev.berth.agent.proxy.gate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The approval markers this proxy wrote into its answers, by approval id: the tool and each state
 * with its reason, as the marker said them. It is how the node tells a marker the proxy wrote from
 * the same text the model wrote: the marker is text of the answer, so the model can print one too
 * (a made-up id, or a real id with another state), or repeat a real one from its history. The node
 * reads a marker line, then asks this record ({@code GET /berth/approval-markers/<id>} on the
 * proxy's own socket or port) before its transcript records an {@code approval} entry.
 *
 * <p>Bounded: the {@value #CAPACITY} latest approval ids are kept, older ones are forgotten (the
 * node asks within moments of the marker passing, so a forgotten id is only ever a replay). What it
 * answers is what the answers carried already: whoever can ask it (the workload reaches the same
 * socket) learns nothing the model did not see.
 */
public final class MarkerRecord {

  /** How many approval ids are kept. */
  public static final int CAPACITY = 1024;

  /** The state a marker names: {@code pending}, then one of the final ones. */
  public record Marker(String state, Optional<String> reason) {}

  private record Approval(String tool, List<Marker> markers) {}

  private final Map<String, Approval> entries =
      new LinkedHashMap<>() {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Approval> eldest) {
          return size() > CAPACITY;
        }
      };

  /** Records that an answer is about to carry {@code id}'s marker of {@code state}. */
  synchronized void wrote(String id, String tool, Marker marker) {
    entries.computeIfAbsent(id, k -> new Approval(tool, new ArrayList<>())).markers().add(marker);
  }

  /**
   * What was written under {@code id}, as JSON: {@code {"id","tool","markers":[{"state",
   * "reason"?}...]}}; empty when this proxy wrote no marker with that id (or forgot it).
   */
  public synchronized Optional<String> json(String id) {
    Approval entry = entries.get(id);
    if (entry == null) {
      return Optional.empty();
    }
    ObjectNode node = SseEvents.JSON.createObjectNode();
    node.put("id", id);
    node.put("tool", entry.tool());
    ArrayNode markers = node.putArray("markers");
    for (Marker marker : entry.markers()) {
      ObjectNode one = markers.addObject().put("state", marker.state());
      marker.reason().ifPresent(r -> one.put("reason", r));
    }
    return Optional.of(SseEvents.JSON.writeValueAsString(node));
  }
}
