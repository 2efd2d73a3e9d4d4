package dev.berth.server.api;

import dev.berth.core.error.InvalidValueException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.StringNode;

/**
 * The wire body contract of the public API: how a request body becomes one of the records of {@code
 * dev.berth.server.api.body}, or a {@code 400} that names what is wrong and where. Stateless and
 * thread-safe.
 *
 * <p>The rules, kept from the original platform (seed acceptance §2.C, "Wire body contract"):
 *
 * <ul>
 *   <li>A body is at most {@link #MAX_BODY_BYTES}; a larger one is a {@link
 *       PayloadTooLargeException} ({@code 413}) before anything else is looked at.
 *   <li>An empty body (no bytes, or JSON whitespace only) means {@code {}} where the body is
 *       optional and is refused where it is required.
 *   <li>Otherwise the body is exactly one JSON value, and that value is an object. Malformed JSON,
 *       a duplicate key, and anything but whitespace after the first value (a second value or
 *       garbage) are refused.
 *   <li>An explicit {@code null} anywhere, top level or nested, is refused: a field that has no
 *       value is left out. This keeps "absent" the only way to say "not given", so a record never
 *       has to tell {@code null} from missing.
 *   <li>Every field must be a component of the record; an unknown field is refused. Where the
 *       unknown field is {@code workloadType} or {@code model}, the message adds that these are
 *       fixed when a session is created: on any body but create they are an attempt to change an
 *       immutable field.
 *   <li>Types are exact, with no coercion: a string is not a number, a fraction is not an integer,
 *       a number is not a string, a single value is not an array.
 *   <li>Values are then checked by the record's own constructor, which throws {@link
 *       InvalidValueException} with {@link #invalidField} messages.
 * </ul>
 *
 * <p>Record components may be {@code String}, {@code Long}, {@code Integer}, {@code Boolean}, a
 * nested record, {@code List<T>} or {@code Optional<T>} of those. An absent field is passed to the
 * constructor as {@code Optional.empty()} for an {@code Optional} component and as {@code null}
 * otherwise (the constructor applies the default or refuses the missing field). Primitive
 * components are not allowed, because they cannot be absent.
 *
 * <p>Every refusal is an {@link InvalidValueException} whose message starts with the original's
 * base message {@code invalid input}, followed by the rule and the place: fields are named by their
 * JSON pointer without the leading slash ({@code offset}, {@code workloadTypes/1}).
 *
 * <p>Implementation note on its size (over 400 lines): the rules above are one contract applied in
 * one pass over the parser's tokens (size, emptiness, duplicate and unknown keys, types, nulls,
 * trailing data), and each error message names the field and its path; split into classes, the pass
 * would hand its position and path from one to the next for every token.
 */
public final class StrictJson {

  /** The largest request body accepted, in bytes: 8 MiB, as the original's wire limit. */
  public static final int MAX_BODY_BYTES = 8 * 1024 * 1024;

  private static final String INVALID_INPUT = "invalid input: ";
  private static final Set<String> CREATE_ONLY_FIELDS = Set.of("workloadType", "model");
  private static final int MAX_SHOWN_CHARS = 64;

  /** How Jackson words a duplicate key (tested, so a change of wording is noticed). */
  private static final String DUPLICATE = "Duplicate Object property ";

  /** Jackson's note on where an unclosed object began, which only repeats a redacted source. */
  private static final Pattern START_MARKER = Pattern.compile("\\s*\\(start marker at \\[.*\\]\\)");

  /** Trailing tokens are checked here rather than by Jackson, to say what the problem is. */
  private static final JsonMapper MAPPER =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  private static final ClassValue<Shape> SHAPES =
      new ClassValue<>() {
        @Override
        protected Shape computeValue(Class<?> type) {
          return Shape.of(type);
        }
      };

  private StrictJson() {}

  /**
   * Reads {@code body} as a {@code type}.
   *
   * @param optional whether an empty body is allowed (it then reads as {@code {}})
   * @throws PayloadTooLargeException when {@code body} is longer than {@link #MAX_BODY_BYTES}
   * @throws InvalidValueException when the body breaks any rule of the contract (see above)
   * @throws IllegalArgumentException when {@code type} uses a component type this reader does not
   *     support (a programming error, raised whatever the body)
   */
  public static <T extends Record> T read(byte[] body, Class<T> type, boolean optional) {
    Shape shape = SHAPES.get(type);
    if (body.length > MAX_BODY_BYTES) {
      throw new PayloadTooLargeException(MAX_BODY_BYTES);
    }
    JsonNode tree;
    if (isBlank(body)) {
      if (!optional) {
        throw new InvalidValueException(
            INVALID_INPUT + "this request needs a JSON object body; none was sent");
      }
      tree = MAPPER.createObjectNode();
    } else {
      tree = parse(body);
    }
    if (!tree.isObject()) {
      throw new InvalidValueException(
          INVALID_INPUT + "the body must be a JSON object, was " + kind(tree));
    }
    rejectNulls(tree, "");
    return type.cast(shape.bind(tree, "", true));
  }

  /**
   * Reads a request body of at most {@link #MAX_BODY_BYTES} from {@code in}. A declared length over
   * the limit is refused before anything is read; otherwise at most one byte more than the limit is
   * read, so a client that lied about (or did not declare) the length cannot make the server buffer
   * more than that. The stream is not closed.
   *
   * @param declaredLength the request's {@code Content-Length}, or a negative number when it has
   *     none (chunked)
   * @throws PayloadTooLargeException when the declared or actual length is over the limit
   * @throws IOException when reading fails
   */
  public static byte[] readLimited(InputStream in, long declaredLength) throws IOException {
    if (declaredLength > MAX_BODY_BYTES) {
      throw new PayloadTooLargeException(MAX_BODY_BYTES);
    }
    byte[] bytes = in.readNBytes(MAX_BODY_BYTES + 1);
    if (bytes.length > MAX_BODY_BYTES) {
      throw new PayloadTooLargeException(MAX_BODY_BYTES);
    }
    return bytes;
  }

  /**
   * The refusal of a field's value, in the contract's wording: {@code invalid input: field "offset"
   * must be a non-negative integer, was -1}. For the body records' own checks.
   *
   * @param field the field's JSON pointer without the leading slash
   * @param rule what the value must be, e.g. {@code must be a non-negative integer}
   * @param was the value that was sent (strings are shown quoted, long ones shortened)
   */
  public static InvalidValueException invalidField(String field, String rule, Object was) {
    String shown = was instanceof String s ? StringNode.valueOf(s).toString() : String.valueOf(was);
    return new InvalidValueException(
        INVALID_INPUT + "field \"" + field + "\" " + rule + ", was " + shorten(shown));
  }

  /** The refusal of a body that lacks a required field: {@code field "name" is required}. */
  public static InvalidValueException missingField(String field) {
    return new InvalidValueException(INVALID_INPUT + "field \"" + field + "\" is required");
  }

  private static JsonNode parse(byte[] body) {
    try (JsonParser parser = MAPPER.createParser(body)) {
      JsonNode tree;
      try {
        tree = MAPPER.readTree(parser);
      } catch (JacksonException e) {
        throw malformed(parser, e);
      }
      if (tree == null || tree.isMissingNode()) {
        throw new InvalidValueException(INVALID_INPUT + "malformed JSON: the body holds no value");
      }
      TokenStreamLocation trailing;
      try {
        trailing = parser.nextToken() == null ? null : parser.currentTokenLocation();
      } catch (JacksonException e) {
        trailing = e.getLocation();
      }
      if (trailing != null) {
        throw new InvalidValueException(
            INVALID_INPUT
                + "the body must be exactly one JSON value, but more data follows it"
                + at(trailing));
      }
      return tree;
    }
  }

  private static InvalidValueException malformed(JsonParser parser, JacksonException e) {
    String message = String.valueOf(e.getOriginalMessage());
    if (message.startsWith(DUPLICATE)) {
      String pointer = parser.streamReadContext().pathAsPointer().toString();
      return new InvalidValueException(
          INVALID_INPUT
              + "field \""
              + (pointer.isEmpty() ? message.substring(DUPLICATE.length()) : field(pointer))
              + "\" appears twice"
              + at(e.getLocation()));
    }
    return new InvalidValueException(
        INVALID_INPUT
            + "malformed JSON"
            + at(e.getLocation())
            + ": "
            + START_MARKER.matcher(message).replaceAll(""));
  }

  private static void rejectNulls(JsonNode node, String pointer) {
    if (node.isNull()) {
      throw new InvalidValueException(
          INVALID_INPUT
              + "field \""
              + field(pointer)
              + "\" must not be null; leave the field out instead");
    }
    if (node.isObject()) {
      for (Map.Entry<String, JsonNode> e : node.properties()) {
        rejectNulls(e.getValue(), pointer + "/" + escape(e.getKey()));
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        rejectNulls(node.get(i), pointer + "/" + i);
      }
    }
  }

  private static boolean isBlank(byte[] body) {
    for (byte b : body) {
      if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
        return false;
      }
    }
    return true;
  }

  private static String at(TokenStreamLocation location) {
    if (location == null || location.getLineNr() < 1) {
      return "";
    }
    return " at line " + location.getLineNr() + ", column " + location.getColumnNr();
  }

  private static String kind(JsonNode node) {
    return switch (node.getNodeType()) {
      case ARRAY -> "an array";
      case OBJECT -> "an object";
      case STRING, BINARY -> "a string";
      case NUMBER -> "a number";
      case BOOLEAN -> "a boolean";
      case NULL -> "null";
      default -> node.getNodeType().name().toLowerCase(Locale.ROOT);
    };
  }

  private static String field(String pointer) {
    return pointer.substring(1);
  }

  private static String escape(String key) {
    return key.replace("~", "~0").replace("/", "~1");
  }

  private static String shorten(String text) {
    return text.length() <= MAX_SHOWN_CHARS ? text : text.substring(0, MAX_SHOWN_CHARS) + "…";
  }

  private static InvalidValueException mismatch(String pointer, String expected, JsonNode was) {
    return new InvalidValueException(
        INVALID_INPUT
            + "field \""
            + field(pointer)
            + "\" must be "
            + expected
            + ", was "
            + shorten(was.toString()));
  }

  private static Object convert(JsonNode node, Type type, String pointer) {
    if (type instanceof ParameterizedType p) {
      Type element = p.getActualTypeArguments()[0];
      if (p.getRawType() == Optional.class) {
        return Optional.of(convert(node, element, pointer));
      }
      if (!node.isArray()) {
        throw mismatch(pointer, "an array", node);
      }
      List<Object> values = new ArrayList<>(node.size());
      for (int i = 0; i < node.size(); i++) {
        values.add(convert(node.get(i), element, pointer + "/" + i));
      }
      return List.copyOf(values);
    }
    if (type == String.class) {
      if (!node.isString()) {
        throw mismatch(pointer, "a string", node);
      }
      return node.stringValue();
    }
    if (type == Long.class) {
      requireIntegral(node, pointer);
      if (!node.canConvertToLong()) {
        throw mismatch(pointer, "an integer within the 64-bit range", node);
      }
      return node.longValue();
    }
    if (type == Integer.class) {
      requireIntegral(node, pointer);
      if (!node.canConvertToInt()) {
        throw mismatch(pointer, "an integer within the 32-bit range", node);
      }
      return node.intValue();
    }
    if (type == Boolean.class) {
      if (!node.isBoolean()) {
        throw mismatch(pointer, "a boolean", node);
      }
      return node.booleanValue();
    }
    if (!node.isObject()) {
      throw mismatch(pointer, "an object", node);
    }
    return SHAPES.get((Class<?>) type).bind(node, pointer, false);
  }

  private static void requireIntegral(JsonNode node, String pointer) {
    if (!node.isIntegralNumber()) {
      throw mismatch(pointer, "an integer", node);
    }
  }

  /** A record type's components and canonical constructor, checked once per type. */
  private record Shape(
      Class<?> type, Map<String, RecordComponent> components, Constructor<?> constructor) {

    static Shape of(Class<?> type) {
      checkSupported(type, new HashSet<>());
      RecordComponent[] parts = type.getRecordComponents();
      Map<String, RecordComponent> byName = new LinkedHashMap<>();
      for (RecordComponent c : parts) {
        byName.put(c.getName(), c);
      }
      Class<?>[] parameterTypes =
          Arrays.stream(parts).map(RecordComponent::getType).toArray(Class<?>[]::new);
      try {
        return new Shape(type, byName, type.getConstructor(parameterTypes));
      } catch (NoSuchMethodException e) {
        throw new IllegalArgumentException(
            type.getName() + " needs a public canonical constructor to be read from JSON", e);
      }
    }

    /** Checks {@code record} and the records it nests (once each, so cycles end). */
    private static void checkSupported(Class<?> record, Set<Class<?>> seen) {
      if (!record.isRecord()) {
        throw new IllegalArgumentException(record.getName() + " is not a record");
      }
      if (!seen.add(record)) {
        return;
      }
      for (RecordComponent c : record.getRecordComponents()) {
        checkSupported(record, c.getName(), c.getGenericType(), seen);
      }
    }

    private static void checkSupported(Class<?> owner, String name, Type type, Set<Class<?>> seen) {
      if (type instanceof ParameterizedType p
          && (p.getRawType() == Optional.class || p.getRawType() == List.class)) {
        checkSupported(owner, name, p.getActualTypeArguments()[0], seen);
        return;
      }
      if (type == String.class
          || type == Long.class
          || type == Integer.class
          || type == Boolean.class) {
        return;
      }
      if (type instanceof Class<?> c && c.isRecord()) {
        checkSupported(c, seen);
        return;
      }
      throw new IllegalArgumentException(
          owner.getName()
              + "."
              + name
              + " has type "
              + type.getTypeName()
              + ", which a JSON body cannot carry; use String, Long, Integer, Boolean, a record,"
              + " or a List or Optional of those");
    }

    Object bind(JsonNode object, String pointer, boolean topLevel) {
      for (Map.Entry<String, JsonNode> property : object.properties()) {
        String name = property.getKey();
        if (!components.containsKey(name)) {
          throw unknown(pointer, name, topLevel);
        }
      }
      Object[] args = new Object[components.size()];
      int i = 0;
      for (RecordComponent c : components.values()) {
        JsonNode value = object.get(c.getName());
        String at = pointer + "/" + escape(c.getName());
        args[i++] =
            value != null
                ? convert(value, c.getGenericType(), at)
                : c.getType() == Optional.class ? Optional.empty() : null;
      }
      try {
        return constructor.newInstance(args);
      } catch (InvocationTargetException e) {
        if (e.getCause() instanceof RuntimeException r) {
          throw r;
        }
        if (e.getCause() instanceof Error err) {
          throw err;
        }
        throw new IllegalStateException(type.getName() + " constructor failed", e.getCause());
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot construct " + type.getName(), e);
      }
    }

    private InvalidValueException unknown(String pointer, String name, boolean topLevel) {
      String accepted =
          components.isEmpty()
              ? "this body takes no fields"
              : "accepted: " + String.join(", ", components.keySet());
      String hint =
          topLevel && CREATE_ONLY_FIELDS.contains(name)
              ? "; a session's workloadType and model are set when it is created and cannot change"
              : "";
      return new InvalidValueException(
          INVALID_INPUT
              + "unknown field \""
              + shorten(field(pointer + "/" + escape(name)))
              + "\" ("
              + accepted
              + ")"
              + hint);
    }
  }
}
