package dev.berth.agent.proxy;

import dev.berth.agent.agentcli.StreamRedactor;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The streamed texts of an answer, one per content block, each redacted as a stream of its own: the
 * longest end of a block's text that could still grow into a secret is held back until the block's
 * next delta says whether it does, or until the block ends, when it is released as a delta of its
 * own (made from the block's last delta). So a secret split across deltas, however the events cut
 * it, never reaches the client. Not thread-safe: one per answer.
 */
final class HeldTexts {

  /** Writes a delta's text into a copy of its event. */
  interface Setter extends BiConsumer<ObjectNode, String> {}

  /** One open block: its redactor, and how to turn held text into a delta of its own. */
  private record Block(
      StreamRedactor redactor,
      String field,
      String eventType,
      ObjectNode template,
      Setter setter) {}

  private final List<String> secrets;
  private final Map<String, Block> open = new LinkedHashMap<>();

  HeldTexts(List<String> secrets) {
    this.secrets = List.copyOf(secrets);
  }

  /**
   * The redacted text of a delta of block {@code key}, with the held text of a different field of
   * the same block released first (into {@code before}).
   *
   * @param field which of the block's texts this is (a thinking block's text and its signature are
   *     two streams)
   * @param event the delta event, a template for the delta that later releases held text
   */
  String redact(
      String key,
      String field,
      String piece,
      String eventType,
      ObjectNode event,
      Setter setter,
      List<Events.Outgoing> before) {
    Block block = open.get(key);
    if (block != null && !block.field().equals(field)) {
      before.addAll(release(key));
      block = null;
    }
    if (block == null) {
      block = new Block(new StreamRedactor(secrets), field, eventType, event, setter);
    } else {
      block = new Block(block.redactor(), field, eventType, event, setter);
    }
    open.put(key, block);
    return block.redactor().redact(piece);
  }

  /** The deltas that release what block {@code key} holds, ending it. */
  List<Events.Outgoing> release(String key) {
    Block block = open.remove(key);
    return block == null ? List.of() : releaseOf(block);
  }

  /** The deltas that release what every block whose key passes {@code which} holds. */
  List<Events.Outgoing> releaseWhere(Predicate<String> which) {
    List<Events.Outgoing> out = new ArrayList<>();
    Iterator<Map.Entry<String, Block>> blocks = open.entrySet().iterator();
    while (blocks.hasNext()) {
      Map.Entry<String, Block> entry = blocks.next();
      if (which.test(entry.getKey())) {
        blocks.remove();
        out.addAll(releaseOf(entry.getValue()));
      }
    }
    return out;
  }

  /** Releases every block: the answer ended. */
  List<Events.Outgoing> releaseAll() {
    return releaseWhere(key -> true);
  }

  private static List<Events.Outgoing> releaseOf(Block block) {
    String rest = block.redactor().finish();
    if (rest.isEmpty()) {
      return List.of();
    }
    ObjectNode delta = block.template().deepCopy();
    block.setter().accept(delta, rest);
    return List.of(new Events.Outgoing.Made(block.eventType(), delta));
  }

  /** Every string in {@code node} redacted whole; whether any changed. */
  boolean redactStrings(JsonNode node) {
    boolean changed = false;
    if (node instanceof ObjectNode object) {
      for (String name : List.copyOf(object.propertyNames())) {
        JsonNode value = object.get(name);
        if (value != null && value.isString()) {
          String redacted = whole(value.asString());
          if (!redacted.equals(value.asString())) {
            object.put(name, redacted);
            changed = true;
          }
        } else if (value != null) {
          changed |= redactStrings(value);
        }
      }
    } else if (node instanceof tools.jackson.databind.node.ArrayNode array) {
      for (int i = 0; i < array.size(); i++) {
        JsonNode value = array.get(i);
        if (value.isString()) {
          String redacted = whole(value.asString());
          if (!redacted.equals(value.asString())) {
            array.set(i, redacted);
            changed = true;
          }
        } else {
          changed |= redactStrings(value);
        }
      }
    }
    return changed;
  }

  private String whole(String text) {
    StreamRedactor redactor = new StreamRedactor(secrets);
    return redactor.redact(text) + redactor.finish();
  }
}
