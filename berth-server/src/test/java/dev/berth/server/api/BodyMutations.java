package dev.berth.server.api;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Request bodies made from an OpenAPI schema and then broken: a baseline object with a value of the
 * right type for each property, and mutations of it that no schema-abiding client sends (wrong
 * types, numbers out of every range, deep nesting, bytes that are not UTF-8, a key twice, strings
 * of megabytes, no body, another value than an object, trailing garbage). Each mutation says
 * whether the server must refuse it or may accept it (a number at the edge of its range, say).
 */
final class BodyMutations {

  /** One broken body, named for the report. */
  record Mutation(String name, byte[] body, boolean mustRefuse) {}

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final int MIB = 1 << 20;

  private final JsonNode components;

  BodyMutations(JsonNode spec) {
    this.components = spec.path("components").path("schemas");
  }

  /** A body of the schema's shape: every property with a value of its type. */
  ObjectNode baseline(JsonNode schema) {
    ObjectNode body = JSON.createObjectNode();
    JsonNode resolved = resolve(schema);
    for (Map.Entry<String, JsonNode> p : resolved.path("properties").properties()) {
      body.set(p.getKey(), value(p.getValue()));
    }
    return body;
  }

  private JsonNode value(JsonNode schema) {
    JsonNode s = resolve(schema);
    if (s.has("enum")) {
      return s.get("enum").get(0);
    }
    if (s.has("examples") && !s.path("examples").isEmpty()) {
      return s.path("examples").get(0);
    }
    return switch (s.path("type").asString("object")) {
      case "string" -> JSON.getNodeFactory().stringNode("a");
      case "integer", "number" -> JSON.getNodeFactory().numberNode(s.path("minimum").asLong(1));
      case "boolean" -> JSON.getNodeFactory().booleanNode(true);
      case "array" -> JSON.createArrayNode().add(value(s.path("items")));
      default -> baseline(s);
    };
  }

  private JsonNode resolve(JsonNode schema) {
    JsonNode s = schema;
    for (int i = 0; i < 10; i++) {
      if (s.has("$ref")) {
        String ref = s.get("$ref").asString();
        s = components.path(ref.substring(ref.lastIndexOf('/') + 1));
      } else if (s.has("allOf") && !s.has("type")) {
        s = s.get("allOf").get(0);
      } else {
        return s;
      }
    }
    return s;
  }

  /** A random mutation of {@code baseline}; {@code required} says whether no body is refused. */
  Mutation mutate(ObjectNode baseline, boolean required, SplittableRandom random) {
    List<String> fields = new ArrayList<>(baseline.propertyNames());
    String field = fields.isEmpty() ? "x" : fields.get(random.nextInt(fields.size()));
    return switch (random.nextInt(12)) {
      case 0 -> wrongType(baseline, field, random);
      case 1 -> hugeNumber(baseline, field, random);
      case 2 -> deepNesting(baseline, field, random);
      case 3 -> invalidUtf8(baseline, field, random);
      case 4 -> duplicateKey(baseline, field);
      case 5 -> hugeString(baseline, field, random);
      case 6 -> new Mutation("empty body", new byte[0], required);
      case 7 -> notAnObject(random);
      case 8 -> trailing(baseline, random);
      case 9 -> truncated(baseline, random);
      case 10 -> noise(random);
      default -> unknownOrNull(baseline, field, random);
    };
  }

  private static Mutation wrongType(ObjectNode baseline, String field, SplittableRandom random) {
    JsonNode was = baseline.path(field);
    List<String> others =
        new ArrayList<>(List.of("\"7\"", "7", "7.5", "true", "[]", "{}", "[\"a\"]"));
    others.removeIf(v -> JSON.readTree(v).getNodeType() == was.getNodeType());
    String value = others.get(random.nextInt(others.size()));
    return new Mutation(
        "wrong type: " + field + "=" + value, with(baseline, field, value).getBytes(UTF_8), true);
  }

  private static Mutation hugeNumber(ObjectNode baseline, String field, SplittableRandom random) {
    String[] refused = {
      "1e999999999",
      "-1e400",
      "99999999999999999999999999999999",
      "-9223372036854775809",
      "9223372036854775808",
      "1.0e-400",
      "123456789012345678901234567890.5",
      "1" + "0".repeat(1200)
    };
    String[] edge = {"9223372036854775807", "-9223372036854775808", "2147483648", "-1", "0"};
    boolean atEdge = random.nextInt(3) == 0;
    String value =
        atEdge ? edge[random.nextInt(edge.length)] : refused[random.nextInt(refused.length)];
    // A number where a number is wanted may be in range; where another type is, it is refused.
    boolean numeric = baseline.path(field).isNumber();
    return new Mutation(
        "huge number: " + field + "=" + shorten(value),
        with(baseline, field, value).getBytes(UTF_8),
        !numeric || !atEdge);
  }

  private static Mutation deepNesting(ObjectNode baseline, String field, SplittableRandom random) {
    int depth = new int[] {600, 5_000, 200_000}[random.nextInt(3)];
    boolean arrays = random.nextBoolean();
    String open = arrays ? "[" : "{\"a\":";
    String close = arrays ? "]" : "}";
    String value = open.repeat(depth) + "1" + close.repeat(depth);
    return new Mutation(
        "deep nesting: " + field + " " + depth + (arrays ? " arrays" : " objects"),
        with(baseline, field, value).getBytes(UTF_8),
        true);
  }

  private static Mutation invalidUtf8(ObjectNode baseline, String field, SplittableRandom random) {
    byte[][] bad = {
      {(byte) 0xff},
      {(byte) 0xc3, 0x28},
      {(byte) 0xe2, (byte) 0x82},
      {(byte) 0xed, (byte) 0xa0, (byte) 0x80},
      {(byte) 0xf8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80},
      {(byte) 0xc0, (byte) 0xaf}
    };
    byte[] chosen = bad[random.nextInt(bad.length)];
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    String text = with(baseline, field, "\"a\u0001b\"");
    int at = text.indexOf('\u0001');
    out.writeBytes(text.substring(0, at).getBytes(UTF_8));
    out.writeBytes(chosen);
    out.writeBytes(text.substring(at + 1).getBytes(UTF_8));
    return new Mutation("invalid UTF-8 in " + field, out.toByteArray(), true);
  }

  private static Mutation duplicateKey(ObjectNode baseline, String field) {
    String text = baseline.toString();
    String again = "\"" + field + "\":" + baseline.path(field) + ",";
    return new Mutation(
        "duplicate key " + field, ("{" + again + text.substring(1)).getBytes(UTF_8), true);
  }

  private static Mutation hugeString(ObjectNode baseline, String field, SplittableRandom random) {
    boolean overLimit = random.nextInt(4) == 0;
    int length = overLimit ? StrictJson.MAX_BODY_BYTES + 16 : MIB;
    String value = "\"" + "A".repeat(length) + "\"";
    return new Mutation(
        "huge string: " + field + " of " + length + " bytes",
        with(baseline, field, value).getBytes(UTF_8),
        overLimit || !baseline.path(field).isString());
  }

  private static Mutation notAnObject(SplittableRandom random) {
    String[] values = {"[]", "\"x\"", "1", "null", "true", "[{}]", "\"{}\""};
    String value = values[random.nextInt(values.length)];
    return new Mutation("not an object: " + value, value.getBytes(UTF_8), true);
  }

  private static Mutation trailing(ObjectNode baseline, SplittableRandom random) {
    String[] tails = {" x", "{}", ",", "\u0000", " // c", "]"};
    String tail = tails[random.nextInt(tails.length)];
    return new Mutation("trailing " + shorten(tail), (baseline + tail).getBytes(UTF_8), true);
  }

  private static Mutation truncated(ObjectNode baseline, SplittableRandom random) {
    String text = baseline.toString();
    int cut = 1 + random.nextInt(Math.max(1, text.length() - 1));
    return new Mutation("truncated at " + cut, text.substring(0, cut).getBytes(UTF_8), true);
  }

  private static Mutation noise(SplittableRandom random) {
    byte[] bytes = new byte[1 + random.nextInt(256)];
    random.nextBytes(bytes);
    // Never blank, never a lone object opener that could close into something valid.
    bytes[0] = (byte) '~';
    return new Mutation("noise of " + bytes.length + " bytes", bytes, true);
  }

  private static Mutation unknownOrNull(
      ObjectNode baseline, String field, SplittableRandom random) {
    if (random.nextBoolean()) {
      Map<String, String> extra = new LinkedHashMap<>();
      extra.put("__proto__", "{}");
      extra.put("workloadType", "\"shell\"");
      extra.put("é\u0000", "1");
      List<String> keys = new ArrayList<>(extra.keySet());
      String key = keys.get(random.nextInt(keys.size()));
      if (baseline.has(key)) {
        key = "__proto__";
      }
      String text = baseline.toString();
      String body =
          "{"
              + JSON.writeValueAsString(key)
              + ":"
              + extra.get(key)
              + (text.length() > 2 ? "," : "")
              + text.substring(1);
      return new Mutation("unknown field " + shorten(key), body.getBytes(UTF_8), true);
    }
    return new Mutation("null " + field, with(baseline, field, "null").getBytes(UTF_8), true);
  }

  /** {@code baseline} with {@code field}'s value replaced by the raw JSON text {@code value}. */
  private static String with(ObjectNode baseline, String field, String value) {
    ObjectNode copy = baseline.deepCopy();
    copy.put(field, "\u0002MARK\u0002");
    return copy.toString().replace("\"\\u0002MARK\\u0002\"", value);
  }

  private static String shorten(String text) {
    return text.length() > 24 ? text.substring(0, 24) + "…(" + text.length() + ")" : text;
  }
}
