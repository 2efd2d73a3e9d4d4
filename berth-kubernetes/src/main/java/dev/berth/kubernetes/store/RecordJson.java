package dev.berth.kubernetes.store;

import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.operation.OperationId;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import java.util.function.Function;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.cfg.EnumFeature;
import tools.jackson.databind.deser.std.StdScalarDeserializer;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.ser.std.StdSerializer;

/**
 * The JSON of the records in the store's ConfigMaps: the body format 3 of berth-server's {@code
 * StoreJson} (a {@code "format": 3} member beside the record's components; typed ids as strings,
 * instants as ISO-8601 strings, an empty Optional as null), read just as strictly, so that a record
 * moves between the SQLite and the Kubernetes store unchanged. It is a copy of the part this store
 * needs, kept until that class moves to a module both stores can use (berth-server cannot be a
 * dependency here): no reader of the older formats, which only SQLite files hold. Thread-safe.
 */
final class RecordJson {

  static final int FORMAT = 3;
  private static final String FORMAT_FIELD = "format";

  private final JsonMapper mapper =
      JsonMapper.builder()
          .changeDefaultVisibility(
              v ->
                  v.withVisibility(PropertyAccessor.ALL, Visibility.NONE)
                      .withVisibility(PropertyAccessor.FIELD, Visibility.ANY))
          .enable(
              DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES,
              DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES,
              DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES,
              DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .disable(EnumFeature.WRITE_ENUMS_USING_TO_STRING, EnumFeature.READ_ENUMS_USING_TO_STRING)
          .disable(
              DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS,
              DateTimeFeature.TRUNCATE_TO_MSECS_ON_WRITE,
              DateTimeFeature.TRUNCATE_TO_MSECS_ON_READ)
          .addModule(typedIds())
          .build();

  String write(Record value) {
    ObjectNode root = mapper.createObjectNode();
    root.put(FORMAT_FIELD, FORMAT);
    root.setAll((ObjectNode) mapper.valueToTree(value));
    return mapper.writeValueAsString(root);
  }

  /**
   * The record {@code body} holds; {@code subject} names its object in errors.
   *
   * @throws CorruptRecordException when the body is not a record of this format
   */
  <T extends Record> T read(String subject, String body, Class<T> type) {
    try {
      JsonNode tree = mapper.readTree(body);
      if (!(tree instanceof ObjectNode root)) {
        throw new CorruptRecordException(subject, "the body is not a JSON object");
      }
      JsonNode format = root.remove(FORMAT_FIELD);
      if (format == null || !format.isInt() || format.intValue() != FORMAT) {
        throw new CorruptRecordException(
            subject, "format must be " + FORMAT + ", was " + (format == null ? "missing" : format));
      }
      return mapper.treeToValue(root, type);
    } catch (DatabindException e) {
      String at = e.getPath().isEmpty() ? "" : " at " + e.getPathReference();
      throw new CorruptRecordException(subject, e.getOriginalMessage() + at, e);
    } catch (JacksonException e) {
      throw new CorruptRecordException(subject, "invalid JSON: " + e.getOriginalMessage(), e);
    }
  }

  private static SimpleModule typedIds() {
    SimpleModule ids = new SimpleModule("berth-typed-ids");
    asString(ids, SessionId.class, SessionId::value, SessionId::new);
    asString(ids, TenantId.class, TenantId::value, TenantId::new);
    asString(ids, WorkloadType.class, WorkloadType::value, WorkloadType::new);
    asString(ids, OperationId.class, OperationId::value, OperationId::new);
    asString(ids, ExecutionId.class, ExecutionId::value, ExecutionId::new);
    return ids;
  }

  private static <T> void asString(
      SimpleModule module, Class<T> type, Function<T, String> write, Function<String, T> read) {
    module.addSerializer(
        type,
        new StdSerializer<T>(type) {
          @Override
          public void serialize(T value, JsonGenerator gen, SerializationContext ctxt) {
            gen.writeString(write.apply(value));
          }
        });
    module.addDeserializer(
        type,
        new StdScalarDeserializer<T>(type) {
          @Override
          public T deserialize(JsonParser p, DeserializationContext ctxt) {
            if (!p.hasToken(JsonToken.VALUE_STRING)) {
              return ctxt.reportInputMismatch(
                  type, "%s must be a JSON string, was %s", type.getSimpleName(), p.currentToken());
            }
            return read.apply(p.getString());
          }
        });
  }
}
