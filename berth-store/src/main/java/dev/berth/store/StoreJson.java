package dev.berth.store;

import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import dev.berth.core.execution.Execution;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.operation.Operation;
import dev.berth.core.operation.OperationId;
import dev.berth.core.session.Session;
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
 * The JSON body format of stored sessions, operations, executions and audit events, shared by the
 * store adapters so that a record moves between them unchanged. Thread-safe and immutable once
 * built.
 *
 * <p>Format 3 (older bodies are read and upgraded: a format 1 archive gains {@code "source": null}
 * and {@code "skipped": []}; a session of format 1 or 2 without {@code "model"} or {@code
 * "plugins"}, written before agent sessions, gains {@code "model": null} and {@code "plugins":
 * []}): a JSON object with {@code "format": 3} beside the record's components, named as in the
 * record and nested the same way. Typed ids ({@link SessionId}, {@link TenantId}, {@link
 * WorkloadType}, {@link OperationId}, {@link ExecutionId}) are plain strings; enums are their
 * constant names; {@code Instant}s are ISO-8601 UTC strings with up to nanosecond precision; an
 * empty {@code Optional} is {@code null}; lists are arrays. Field order carries no meaning. Reading
 * is strict: an unknown or missing field, a null primitive, an unknown enum constant or a value the
 * domain record rejects makes the body unreadable, reported as a {@link CorruptRecordException}
 * naming the record, never as an absent record. A change of shape needs a new format number and a
 * reader for the old one.
 *
 * <p>The domain records carry no annotations: only record components (fields) are visible to the
 * mapper, so derived accessors such as {@code Condition.isTrue()} are never written.
 */
public final class StoreJson {

  /** The format number written into every body. */
  public static final int FORMAT = 3;

  /** The oldest format still read (and upgraded on read). */
  static final int FIRST_FORMAT = 1;

  private static final String FORMAT_FIELD = "format";

  private final JsonMapper mapper;
  private final String repair;

  /**
   * @param repair what an operator does about a body that cannot be read, where this store keeps
   *     it; the end of every {@link CorruptRecordException} message
   */
  public StoreJson(String repair) {
    this.repair = repair;
    this.mapper =
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
            .disable(
                EnumFeature.WRITE_ENUMS_USING_TO_STRING, EnumFeature.READ_ENUMS_USING_TO_STRING)
            .disable(
                DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS,
                DateTimeFeature.TRUNCATE_TO_MSECS_ON_WRITE,
                DateTimeFeature.TRUNCATE_TO_MSECS_ON_READ)
            .addModule(typedIds())
            .build();
  }

  public String writeSession(Session session) {
    return write(session);
  }

  /**
   * The session stored as {@code body} in the row of {@code rowId}.
   *
   * @throws CorruptRecordException when the body cannot be read or names another session
   */
  public Session readSession(String rowId, String body) {
    return readKept("session", rowId, body, Session.class, r -> r.id().value());
  }

  public String writeOperation(Operation operation) {
    return write(operation);
  }

  /**
   * The operation stored as {@code body} in the row of {@code rowId}.
   *
   * @throws CorruptRecordException when the body cannot be read or names another operation
   */
  public Operation readOperation(String rowId, String body) {
    return readKept("operation", rowId, body, Operation.class, r -> r.id().value());
  }

  public String writeExecution(Execution execution) {
    return write(execution);
  }

  /**
   * The execution stored as {@code body} in the row of {@code rowId}.
   *
   * @throws CorruptRecordException when the body cannot be read or names another execution
   */
  public Execution readExecution(String rowId, String body) {
    return readKept("execution", rowId, body, Execution.class, r -> r.id().value());
  }

  /** The {@code kind} record kept under {@code rowId}, which must be the one the body holds. */
  private <T extends Record> T readKept(
      String kind, String rowId, String body, Class<T> type, Function<T, String> idOf) {
    String subject = kind + " " + rowId;
    T record = read(subject, body, type);
    String bodyId = idOf.apply(record);
    if (!rowId.equals(bodyId)) {
      throw corrupt(subject, "the body holds the record of " + bodyId);
    }
    return record;
  }

  /** The body of {@code value}, a domain record, in the current format. */
  public String write(Record value) {
    ObjectNode root = mapper.createObjectNode();
    root.put(FORMAT_FIELD, FORMAT);
    root.setAll((ObjectNode) mapper.valueToTree(value));
    return mapper.writeValueAsString(root);
  }

  /**
   * The record {@code body} holds; {@code subject} names it in errors.
   *
   * @throws CorruptRecordException when the body is not a record of type {@code type} in a format
   *     this store reads
   */
  public <T extends Record> T read(String subject, String body, Class<T> type) {
    try {
      JsonNode tree = mapper.readTree(body);
      if (!(tree instanceof ObjectNode root)) {
        throw corrupt(subject, "the body is not a JSON object");
      }
      JsonNode format = root.remove(FORMAT_FIELD);
      if (format == null
          || !format.isInt()
          || format.intValue() < FIRST_FORMAT
          || format.intValue() > FORMAT) {
        throw corrupt(
            subject,
            "format must be "
                + FIRST_FORMAT
                + " to "
                + FORMAT
                + ", was "
                + (format == null ? "missing" : format));
      }
      if (format.intValue() == 1) {
        upgradeFromFormat1(root);
      }
      if (format.intValue() < 3 && type == Session.class) {
        upgradeSessionFromFormat2(root);
      }
      return mapper.treeToValue(root, type);
    } catch (DatabindException e) {
      String at = e.getPath().isEmpty() ? "" : " at " + e.getPathReference();
      throw new CorruptRecordException(subject, e.getOriginalMessage() + at, repair, e);
    } catch (JacksonException e) {
      throw new CorruptRecordException(
          subject, "invalid JSON: " + e.getOriginalMessage(), repair, e);
    }
  }

  /**
   * Format 1 archives had no {@code source} nor {@code skipped}: the runtime they were taken from
   * was not recorded, and nothing was known to be left out.
   */
  private static void upgradeFromFormat1(ObjectNode root) {
    if (root.get("archive") instanceof ObjectNode archive) {
      if (!archive.has("source")) {
        archive.putNull("source");
      }
      if (!archive.has("skipped")) {
        archive.putArray("skipped");
      }
    }
  }

  /** Sessions stored before agent sessions had no model, and before plugins no plugins. */
  private static void upgradeSessionFromFormat2(ObjectNode root) {
    if (!root.has("model")) {
      root.putNull("model");
    }
    if (!root.has("plugins")) {
      root.putArray("plugins");
    }
  }

  /** The error for the record {@code subject}, whose body has {@code problem}. */
  public CorruptRecordException corrupt(String subject, String problem) {
    return new CorruptRecordException(subject, problem, repair);
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

  /** Maps a single-string value type to and from a plain JSON string. */
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
