package dev.berth.client;

import dev.berth.core.approval.ApprovalId;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.operation.OperationId;
import dev.berth.core.session.SessionId;
import java.util.function.Function;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.InjectableValues;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.deser.std.StdDeserializer;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.ser.std.ToStringSerializer;

/**
 * The client's JSON mapping. Lenient where the server may grow (unknown fields are ignored, so an
 * older client keeps working against a newer server) and strict where a misread would mislead (ids
 * are validated by their core types). Records that keep the object as the server sent it get it
 * injected as {@code "json"}.
 */
final class Json {

  static final String RAW = "json";

  private static final JsonMapper MAPPER =
      JsonMapper.builder()
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .disable(DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS)
          .addModule(ids())
          .build();

  private Json() {}

  static JsonMapper mapper() {
    return MAPPER;
  }

  /**
   * Reads {@code tree} as {@code type}, injecting the tree itself where the record asks for it.
   *
   * @throws BerthProtocolException when the tree does not have the shape of {@code type}; the
   *     message names {@code what} the answer was supposed to be
   */
  static <T> T read(JsonNode tree, Class<T> type, String what) {
    try {
      return MAPPER
          .readerFor(type)
          .with(new InjectableValues.Std().addValue(RAW, tree))
          .readValue(tree);
    } catch (JacksonException e) {
      throw new BerthProtocolException(
          "the server's answer is not a valid " + what + ": " + e.getOriginalMessage(), e);
    }
  }

  /**
   * Parses a body that must be JSON.
   *
   * @throws BerthProtocolException when it is not
   */
  static JsonNode parse(String body, String what) {
    try {
      return MAPPER.readTree(body);
    } catch (JacksonException e) {
      throw new BerthProtocolException(
          "the server's answer to " + what + " is not JSON: " + e.getOriginalMessage(), e);
    }
  }

  private static SimpleModule ids() {
    SimpleModule module = new SimpleModule("berth-ids");
    module.addDeserializer(SessionId.class, new FromString<>(SessionId.class, SessionId::new));
    module.addDeserializer(
        ExecutionId.class, new FromString<>(ExecutionId.class, ExecutionId::new));
    module.addDeserializer(
        OperationId.class, new FromString<>(OperationId.class, OperationId::new));
    module.addDeserializer(ApprovalId.class, new FromString<>(ApprovalId.class, ApprovalId::new));
    module.addSerializer(SessionId.class, ToStringSerializer.instance);
    module.addSerializer(ExecutionId.class, ToStringSerializer.instance);
    module.addSerializer(OperationId.class, ToStringSerializer.instance);
    return module;
  }

  /** A value type written as one JSON string and validated by its constructor. */
  private static final class FromString<T> extends StdDeserializer<T> {
    private final Function<String, T> make;

    FromString(Class<T> type, Function<String, T> make) {
      super(type);
      this.make = make;
    }

    @Override
    public T deserialize(JsonParser p, DeserializationContext ctxt) {
      if (!p.hasToken(JsonToken.VALUE_STRING)) {
        throw ctxt.wrongTokenException(p, handledType(), JsonToken.VALUE_STRING, "an id string");
      }
      String text = p.getString();
      try {
        return make.apply(text);
      } catch (RuntimeException e) {
        throw ctxt.weirdStringException(text, handledType(), e.getMessage());
      }
    }
  }
}
