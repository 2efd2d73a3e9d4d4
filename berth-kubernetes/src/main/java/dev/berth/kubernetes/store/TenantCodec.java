package dev.berth.kubernetes.store;

import dev.berth.core.tenant.Tenant;
import dev.berth.store.StoreJson;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The one place a {@link Tenant} becomes stored text and back: the store's JSON body format ({@link
 * StoreJson}), every record component a field named as in the record. A component added to Tenant
 * is written and read with no change here; when tenants stored before it must still be read, its
 * value for them is one line of {@link #ADDED}.
 */
final class TenantCodec {

  /**
   * The fields a stored tenant may lack, each with the JSON value a tenant stored before the field
   * existed has.
   */
  private static final Map<String, String> ADDED = Map.of("approval", "\"OFF\"");

  private static final JsonMapper TREES = JsonMapper.builder().build();

  private final StoreJson json;

  TenantCodec(StoreJson json) {
    this.json = json;
  }

  String write(Tenant tenant) {
    return json.write(tenant);
  }

  /**
   * The tenant {@code body} holds.
   *
   * @throws dev.berth.store.CorruptRecordException when it is no tenant this store reads
   */
  Tenant read(String subject, String body) {
    return json.read(subject, withAddedFields(body), Tenant.class);
  }

  /**
   * {@code body} with the fields it lacks added; as it is when it is no JSON object (read says).
   */
  private static String withAddedFields(String body) {
    try {
      if (!(TREES.readTree(body) instanceof ObjectNode root)) {
        return body;
      }
      boolean added = false;
      for (Map.Entry<String, String> field : ADDED.entrySet()) {
        if (!root.has(field.getKey())) {
          JsonNode value = TREES.readTree(field.getValue());
          root.set(field.getKey(), value);
          added = true;
        }
      }
      return added ? TREES.writeValueAsString(root) : body;
    } catch (JacksonException e) {
      return body;
    }
  }
}
