package dev.berth.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.InvalidValueException;
import dev.berth.server.api.body.CreateExecutionBody;
import dev.berth.server.api.body.CreateSessionBody;
import dev.berth.server.api.body.CreateTokenBody;
import dev.berth.server.api.body.ReadBody;
import dev.berth.server.api.body.SnapshotBody;
import dev.berth.server.api.body.SwitchBody;
import dev.berth.server.api.body.WriteBody;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The wire body contract (seed acceptance §2.C and §5.3 item 5), case by case for every body of the
 * API.
 */
class StrictJsonTest {

  private static final List<Class<? extends Record>> OPTIONAL_BODIES =
      List.of(
          ReadBody.class,
          WriteBody.class,
          SwitchBody.class,
          SnapshotBody.class,
          dev.berth.server.api.body.PluginRefreshBody.class);

  private static <T extends Record> T read(String body, Class<T> type, boolean optional) {
    return StrictJson.read(body.getBytes(StandardCharsets.UTF_8), type, optional);
  }

  private static <T extends Record> T readOptional(String body, Class<T> type) {
    return read(body, type, true);
  }

  private static InvalidValueException refusal(String body, Class<? extends Record> type) {
    try {
      readOptional(body, type);
    } catch (InvalidValueException e) {
      return e;
    }
    throw new AssertionError(type.getSimpleName() + " accepted " + body);
  }

  @Nested
  class OptionalBodies {

    static Stream<Class<? extends Record>> optionalBodies() {
      return OPTIONAL_BODIES.stream();
    }

    @ParameterizedTest
    @MethodSource("optionalBodies")
    void noBodyReadsAsAnEmptyObject(Class<? extends Record> type) {
      assertThat(StrictJson.read(new byte[0], type, true)).isEqualTo(readOptional("{}", type));
    }

    @ParameterizedTest
    @MethodSource("optionalBodies")
    void whitespaceOnlyCountsAsNoBody(Class<? extends Record> type) {
      assertThat(readOptional(" \r\n\t ", type)).isEqualTo(readOptional("{}", type));
    }

    @Test
    void emptyBodiesHaveTheDocumentedDefaults() {
      assertThat(readOptional("", ReadBody.class)).isEqualTo(new ReadBody(0L));
      assertThat(readOptional("", WriteBody.class)).isEqualTo(new WriteBody(""));
      assertThat(readOptional("{}", SwitchBody.class)).isEqualTo(new SwitchBody());
      assertThat(readOptional("{}", SnapshotBody.class)).isEqualTo(new SnapshotBody());
    }

    @Test
    void readsFieldsThatArePresent() {
      assertThat(readOptional("{\"offset\":42}", ReadBody.class).offset()).isEqualTo(42L);
      assertThat(readOptional("{\"payload\":\"ls\\n\"}", WriteBody.class).payload())
          .isEqualTo("ls\n");
      assertThat(readOptional("{\"offset\":9223372036854775807}", ReadBody.class).offset())
          .isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void trailingWhitespaceAfterTheObjectIsFine() {
      assertThat(readOptional("  {\"offset\":3} \n\t", ReadBody.class).offset()).isEqualTo(3L);
    }

    @Test
    void aRequiredBodyMustNotBeEmpty() {
      assertThatThrownBy(() -> read("", CreateSessionBody.class, false))
          .isInstanceOf(InvalidValueException.class)
          .hasMessage("invalid input: this request needs a JSON object body; none was sent");
      assertThatThrownBy(() -> read("  \n", CreateSessionBody.class, false))
          .isInstanceOf(InvalidValueException.class);
    }
  }

  /** Bodies every body type refuses, with a fragment of the message that says why. */
  static Stream<Arguments> refusedByEveryBody() {
    List<String[]> bodies =
        List.of(
            new String[] {"null", "the body must be a JSON object, was null"},
            new String[] {"{\"nope\":1}", "unknown field \"nope\""},
            new String[] {"{", "malformed JSON at line 1, column 2: Unexpected end-of-input"},
            new String[] {"{\"a\":", "malformed JSON"},
            new String[] {"{'a':1}", "malformed JSON"},
            new String[] {"{}{}", "more data follows it at line 1, column 3"},
            new String[] {"{} x", "more data follows it"},
            new String[] {"{} null", "more data follows it"},
            new String[] {"{}]", "more data follows it"},
            new String[] {"[]", "the body must be a JSON object, was an array"},
            new String[] {"\"str\"", "the body must be a JSON object, was a string"},
            new String[] {"1", "the body must be a JSON object, was a number"},
            new String[] {"true", "the body must be a JSON object, was a boolean"},
            new String[] {"{\"nope\":null}", "field \"nope\" must not be null"},
            new String[] {"{\"a\":{\"b\":[1,null]}}", "field \"a/b/1\" must not be null"},
            new String[] {"{\"nope\":1,\"nope\":1}", "field \"nope\" appears twice"});
    return Stream.concat(OPTIONAL_BODIES.stream(), Stream.of(CreateSessionBody.class))
        .flatMap(type -> bodies.stream().map(b -> Arguments.of(type.getSimpleName(), b[0], b[1])));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("refusedByEveryBody")
  void refusesABodyThatIsNotExactlyOneObjectOfKnownNonNullFields(
      String typeName, String body, String why) throws ClassNotFoundException {
    Class<? extends Record> type =
        Class.forName("dev.berth.server.api.body." + typeName).asSubclass(Record.class);
    assertThat(refusal(body, type).getMessage()).startsWith("invalid input: ").contains(why);
  }

  @Nested
  class Read {

    @Test
    void refusesANegativeOffsetNamingTheField() {
      assertThat(refusal("{\"offset\":-1}", ReadBody.class))
          .hasMessage("invalid input: field \"offset\" must be a non-negative integer, was -1");
    }

    @ParameterizedTest
    @ValueSource(strings = {"null", "1.5", "1.0", "1e2", "\"1\"", "true", "[1]", "{}"})
    void refusesAnOffsetThatIsNotAnInteger(String offset) {
      assertThat(refusal("{\"offset\":" + offset + "}", ReadBody.class).getMessage())
          .startsWith("invalid input: field \"offset\" must ");
    }

    @Test
    void refusesAnOffsetBeyondTheLongRange() {
      assertThat(refusal("{\"offset\":9223372036854775808}", ReadBody.class))
          .hasMessage(
              "invalid input: field \"offset\" must be an integer within the 64-bit range,"
                  + " was 9223372036854775808");
    }

    @Test
    void refusesADuplicateKeyEvenWithTheSameValue() {
      assertThat(refusal("{\"offset\":1,\"offset\":1}", ReadBody.class))
          .hasMessage("invalid input: field \"offset\" appears twice at line 1, column 21");
    }

    @Test
    void refusesAnAttemptToChangeTheWorkloadTypeOrModel() {
      assertThat(refusal("{\"workloadType\":\"shell\"}", ReadBody.class).getMessage())
          .startsWith("invalid input: unknown field \"workloadType\" (accepted: offset)")
          .contains("set when it is created and cannot change");
      assertThat(refusal("{\"model\":\"m\"}", ReadBody.class).getMessage())
          .contains("cannot change");
    }
  }

  @Nested
  class Write {

    @ParameterizedTest
    @ValueSource(strings = {"null", "1", "true", "[\"a\"]", "{}"})
    void refusesAPayloadThatIsNotAString(String payload) {
      assertThat(refusal("{\"payload\":" + payload + "}", WriteBody.class).getMessage())
          .startsWith("invalid input: field \"payload\" must ");
    }

    @Test
    void keepsThePayloadVerbatim() {
      String payload = "  é\u0000\t\"\\ ";
      String json = "{\"payload\":\"  é\\u0000\\t\\\"\\\\ \"}";
      assertThat(readOptional(json, WriteBody.class).payload()).isEqualTo(payload);
    }

    @Test
    void refusesMalformedUtf8() {
      byte[] body = {
        '{', '"', 'p', 'a', 'y', 'l', 'o', 'a', 'd', '"', ':', '"', (byte) 0xC3, '"', '}'
      };
      assertThatThrownBy(() -> StrictJson.read(body, WriteBody.class, true))
          .isInstanceOf(InvalidValueException.class)
          .hasMessageStartingWith("invalid input: malformed JSON");
    }
  }

  @Nested
  class SwitchAndSnapshot {

    @ParameterizedTest
    @ValueSource(
        classes = {
          SwitchBody.class,
          SnapshotBody.class,
          dev.berth.server.api.body.PluginRefreshBody.class
        })
    void acceptsNoFieldAtAll(Class<? extends Record> type) {
      assertThat(refusal("{\"offset\":0}", type))
          .hasMessage("invalid input: unknown field \"offset\" (this body takes no fields)");
      assertThat(refusal("{\"workloadType\":\"shell\"}", type).getMessage())
          .contains("cannot change");
    }
  }

  @Nested
  class CreateSession {

    private CreateSessionBody create(String json) {
      return read(json, CreateSessionBody.class, false);
    }

    private InvalidValueException refused(String json) {
      try {
        create(json);
      } catch (InvalidValueException e) {
        return e;
      }
      throw new AssertionError("accepted " + json);
    }

    @Test
    void trimsTheName() {
      assertThat(create("{\"name\":\"  build box \\n\"}"))
          .isEqualTo(CreateSessionBody.named("build box"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"\"", "\"   \"", "\"\\t\\n\""})
    void refusesANameThatIsBlankAfterTrimming(String name) {
      assertThat(refused("{\"name\":" + name + "}").getMessage())
          .startsWith("invalid input: field \"name\" must be 1-200 characters after trimming");
    }

    @Test
    void refusesANameLongerThan200Characters() {
      assertThat(create("{\"name\":\"" + "n".repeat(200) + "\"}").name()).hasSize(200);
      assertThat(refused("{\"name\":\"" + "n".repeat(201) + "\"}").getMessage())
          .contains("field \"name\" must be 1-200 characters");
    }

    @Test
    void needsAName() {
      assertThat(refused("{}")).hasMessage("invalid input: field \"name\" is required");
      assertThat(refused("{\"workloadType\":\"shell\"}"))
          .hasMessage("invalid input: field \"name\" is required");
    }

    @Test
    void readsTheOptionalFields() {
      assertThat(
              create(
                  "{\"name\":\"a\",\"workloadType\":\"claude-code\",\"model\":\"platform-default\","
                      + "\"plugins\":[\"lint\",\"docs\"],\"tenant\":\"acme\"}"))
          .isEqualTo(
              new CreateSessionBody(
                  "a",
                  Optional.of("claude-code"),
                  Optional.of("platform-default"),
                  Optional.of(List.of("lint", "docs")),
                  Optional.of("acme")));
    }

    /**
     * Whether a well-formed type exists, is enabled and was granted depends on configuration and on
     * the caller, so the body leaves it to the service.
     */
    @Test
    void leavesAWellFormedButUnknownWorkloadTypeToTheService() {
      assertThat(create("{\"name\":\"a\",\"workloadType\":\"nonexistent\"}").workloadType())
          .contains("nonexistent");
    }

    @Test
    void refusesAMalformedWorkloadTypeModelOrTenant() {
      assertThat(refused("{\"name\":\"a\",\"workloadType\":\"Shell!\"}").getMessage())
          .startsWith("invalid input: field \"workloadType\" must be a workload type name")
          .endsWith("was \"Shell!\"");
      assertThat(refused("{\"name\":\"a\",\"model\":\" \"}").getMessage())
          .startsWith("invalid input: field \"model\" must be 1-200 characters");
      assertThat(refused("{\"name\":\"a\",\"tenant\":\"ACME\"}").getMessage())
          .startsWith("invalid input: field \"tenant\" must be 1-63 lowercase");
    }

    @Test
    void refusesExplicitNullForAnOptionalField() {
      assertThat(refused("{\"name\":\"a\",\"model\":null}"))
          .hasMessage(
              "invalid input: field \"model\" must not be null; leave the field out instead");
    }

    @Test
    void refusesANumberForAString() {
      assertThat(refused("{\"name\":1}"))
          .hasMessage("invalid input: field \"name\" must be a string, was 1");
    }
  }

  @Nested
  class CreateExecution {

    private InvalidValueException refused(String json) {
      try {
        read(json, CreateExecutionBody.class, false);
      } catch (InvalidValueException e) {
        return e;
      }
      throw new AssertionError("accepted " + json);
    }

    @Test
    void readsTheCommandAndTimeout() {
      assertThat(
              read(
                  "{\"command\":\"make\",\"timeoutSeconds\":60}", CreateExecutionBody.class, false))
          .isEqualTo(new CreateExecutionBody("make", Optional.of(60L)));
      assertThat(read("{\"command\":\"make\"}", CreateExecutionBody.class, false).timeoutSeconds())
          .isEmpty();
    }

    @Test
    void refusesAMissingOrBlankCommandAndAnOutOfRangeTimeout() {
      assertThat(refused("{}")).hasMessage("invalid input: field \"command\" is required");
      assertThat(refused("{\"command\":\" \"}").getMessage())
          .startsWith("invalid input: field \"command\" must not be blank");
      assertThat(refused("{\"command\":\"a\",\"timeoutSeconds\":0}"))
          .hasMessage("invalid input: field \"timeoutSeconds\" must be between 1 and 86400, was 0");
      assertThat(refused("{\"command\":\"a\",\"timeoutSeconds\":86401}").getMessage())
          .contains("was 86401");
      assertThat(refused("{\"command\":\"a\\u0000b\"}").getMessage()).contains("NUL");
      assertThat(refused("{\"command\":\"" + "x".repeat(64 * 1024 + 1) + "\"}"))
          .hasMessage(
              "invalid input: field \"command\" must be at most 65536 bytes of UTF-8, was 65537");
    }
  }

  @Nested
  class CreateToken {

    private CreateTokenBody token(String json) {
      return read(json, CreateTokenBody.class, false);
    }

    private InvalidValueException refused(String json) {
      try {
        token(json);
      } catch (InvalidValueException e) {
        return e;
      }
      throw new AssertionError("accepted " + json);
    }

    @Test
    void readsTheGrant() {
      assertThat(token("{\"tenant\":\"acme\",\"workloadTypes\":[\"shell\"],\"maxSessions\":2}"))
          .isEqualTo(new CreateTokenBody("acme", List.of("shell"), 2, null));
    }

    @Test
    void readsANetworkGrantAndRefusesAnUnknownOne() {
      assertThat(
              token(
                      "{\"tenant\":\"acme\",\"workloadTypes\":[\"shell\"],\"maxSessions\":2,"
                          + "\"network\":\"none\"}")
                  .networkAccess())
          .isEqualTo(dev.berth.core.tenant.NetworkAccess.NONE);
      assertThat(
              refused(
                  "{\"tenant\":\"acme\",\"workloadTypes\":[\"shell\"],\"maxSessions\":2,"
                      + "\"network\":\"host\"}"))
          .hasMessageContaining("network")
          .hasMessageContaining("\"none\" or \"egress\"");
    }

    @Test
    void namesTheArrayElementThatIsWrong() {
      assertThat(
              refused("{\"tenant\":\"acme\",\"workloadTypes\":[\"shell\",null],\"maxSessions\":2}"))
          .hasMessage(
              "invalid input: field \"workloadTypes/1\" must not be null; leave the field out"
                  + " instead");
      assertThat(refused("{\"tenant\":\"acme\",\"workloadTypes\":[\"shell\",3],\"maxSessions\":2}"))
          .hasMessage("invalid input: field \"workloadTypes/1\" must be a string, was 3");
      assertThat(
              refused(
                  "{\"tenant\":\"acme\",\"workloadTypes\":[\"shell\",\"shell\"],\"maxSessions\":2}"))
          .hasMessage(
              "invalid input: field \"workloadTypes/1\" must not repeat a type, was \"shell\"");
    }

    @Test
    void refusesASingleValueForAnArrayAndAFractionForAnInteger() {
      assertThat(refused("{\"tenant\":\"acme\",\"workloadTypes\":\"shell\",\"maxSessions\":2}"))
          .hasMessage("invalid input: field \"workloadTypes\" must be an array, was \"shell\"");
      assertThat(refused("{\"tenant\":\"acme\",\"workloadTypes\":[\"shell\"],\"maxSessions\":2.5}"))
          .hasMessage("invalid input: field \"maxSessions\" must be an integer, was 2.5");
      assertThat(
              refused(
                      "{\"tenant\":\"acme\",\"workloadTypes\":[\"shell\"],\"maxSessions\":2147483648}")
                  .getMessage())
          .contains("within the 32-bit range");
    }

    @Test
    void refusesMissingFieldsTheAdminTenantAndPointlessGrants() {
      assertThat(refused("{\"workloadTypes\":[\"shell\"],\"maxSessions\":2}"))
          .hasMessage("invalid input: field \"tenant\" is required");
      assertThat(
              refused("{\"tenant\":\"admin\",\"workloadTypes\":[\"shell\"],\"maxSessions\":2}")
                  .getMessage())
          .contains("reserved");
      assertThat(
              refused("{\"tenant\":\"acme\",\"workloadTypes\":[],\"maxSessions\":2}").getMessage())
          .contains("at least one");
      assertThat(refused("{\"tenant\":\"acme\",\"workloadTypes\":[\"shell\"],\"maxSessions\":0}"))
          .hasMessage("invalid input: field \"maxSessions\" must be at least 1, was 0");
    }
  }

  @Nested
  class SizeLimit {

    private static final int LIMIT = StrictJson.MAX_BODY_BYTES;

    @Test
    void theLimitIsEightMebibytes() {
      assertThat(LIMIT).isEqualTo(8_388_608);
    }

    @Test
    void acceptsExactlyEightMebibytesOfValidJson() throws Exception {
      String prefix = "{\"payload\":\"";
      String suffix = "\"}";
      String json = prefix + "a".repeat(LIMIT - prefix.length() - suffix.length()) + suffix;
      byte[] bytes = json.getBytes(StandardCharsets.US_ASCII);
      assertThat(bytes).hasSize(LIMIT);

      byte[] read = StrictJson.readLimited(new ByteArrayInputStream(bytes), bytes.length);
      assertThat(StrictJson.read(read, WriteBody.class, true).payload())
          .hasSize(LIMIT - prefix.length() - suffix.length());
      assertThat(StrictJson.readLimited(new ByteArrayInputStream(bytes), -1)).hasSize(LIMIT);
    }

    @Test
    void refusesADeclaredLengthOverTheLimitBeforeReading() {
      InputStream untouchable =
          new InputStream() {
            @Override
            public int read() {
              throw new AssertionError("the body was read");
            }

            @Override
            public int read(byte[] b, int off, int len) {
              throw new AssertionError("the body was read");
            }
          };
      assertThatThrownBy(() -> StrictJson.readLimited(untouchable, LIMIT + 1L))
          .isInstanceOf(PayloadTooLargeException.class)
          .hasMessage("request body exceeds size limit (8388608 bytes)")
          .extracting(e -> ((PayloadTooLargeException) e).reason())
          .isEqualTo("PAYLOAD_TOO_LARGE");
    }

    @Test
    void stopsReadingOneByteAfterTheLimitWhenNoLengthIsDeclared() {
      CountingStream endless = new CountingStream();
      assertThatThrownBy(() -> StrictJson.readLimited(endless, -1))
          .isInstanceOf(PayloadTooLargeException.class);
      assertThat(endless.count).isEqualTo(LIMIT + 1L);
    }

    @Test
    void refusesABodyLongerThanItsDeclaredLengthSaid() {
      byte[] bytes = new byte[LIMIT + 1];
      assertThatThrownBy(() -> StrictJson.readLimited(new ByteArrayInputStream(bytes), 10))
          .isInstanceOf(PayloadTooLargeException.class);
    }

    @Test
    void refusesAnOversizedBodyBeforeLookingAtIt() {
      byte[] bytes = new byte[LIMIT + 1];
      Arrays.fill(bytes, (byte) '{');
      assertThatThrownBy(() -> StrictJson.read(bytes, ReadBody.class, true))
          .isInstanceOf(PayloadTooLargeException.class);
    }

    /** An endless stream of spaces that counts the bytes taken from it. */
    private static final class CountingStream extends InputStream {
      long count;

      @Override
      public int read() {
        count++;
        return ' ';
      }

      @Override
      public int read(byte[] b, int off, int len) {
        Arrays.fill(b, off, off + len, (byte) ' ');
        count += len;
        return len;
      }
    }
  }

  @Nested
  class RecordShapes {

    public record Inner(Long n) {}

    public record Outer(Inner inner, List<Inner> many, Optional<Boolean> flag) {}

    public record Primitive(int n) {}

    public record Tree(Optional<String> label, List<Tree> children) {}

    @Test
    void bindsNestedRecordsListsAndOptionals() {
      assertThat(
              readOptional(
                  "{\"inner\":{\"n\":1},\"many\":[{\"n\":2},{}],\"flag\":true}", Outer.class))
          .isEqualTo(
              new Outer(new Inner(1L), List.of(new Inner(2L), new Inner(null)), Optional.of(true)));
      assertThat(readOptional("{}", Outer.class))
          .isEqualTo(new Outer(null, null, Optional.empty()));
    }

    @Test
    void namesTheNestedPlaceOfAWrongOrUnknownField() {
      assertThat(refusal("{\"many\":[{\"n\":1},{\"n\":\"2\"}]}", Outer.class))
          .hasMessage("invalid input: field \"many/1/n\" must be an integer, was \"2\"");
      assertThat(refusal("{\"inner\":{\"x\":1}}", Outer.class))
          .hasMessage("invalid input: unknown field \"inner/x\" (accepted: n)");
      assertThat(refusal("{\"many\":[{},{\"n\":1,\"n\":2}]}", Outer.class).getMessage())
          .startsWith("invalid input: field \"many/1/n\" appears twice");
      assertThat(refusal("{\"flag\":\"true\"}", Outer.class))
          .hasMessage("invalid input: field \"flag\" must be a boolean, was \"true\"");
    }

    @Test
    void bindsARecordThatNestsItself() {
      assertThat(readOptional("{\"children\":[{\"label\":\"a\",\"children\":[]}]}", Tree.class))
          .isEqualTo(new Tree(Optional.empty(), List.of(new Tree(Optional.of("a"), List.of()))));
    }

    @Test
    void refusesARecordWithAPrimitiveComponentWhateverTheBody() {
      assertThatThrownBy(() -> readOptional("{\"n\":1}", Primitive.class))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Primitive.n has type int");
    }
  }

  @Nested
  class TenantDisconnect {

    private dev.berth.server.api.body.PutTenantBody put(String disconnect) {
      return read(
          "{\"workloadTypes\":[\"shell\"],\"maxSessions\":1"
              + (disconnect.isEmpty() ? "" : ",\"disconnect\":" + disconnect)
              + "}",
          dev.berth.server.api.body.PutTenantBody.class,
          false);
    }

    private Optional<dev.berth.core.tenant.DisconnectGrant> grant(String disconnect) {
      return put(disconnect).tenant("acme", java.time.Instant.EPOCH).disconnect();
    }

    @Test
    void readsContinueWithItsGraceAndStopWithout() {
      assertThat(grant("{\"policy\":\"continue\",\"graceSeconds\":1800}"))
          .contains(
              dev.berth.core.tenant.DisconnectGrant.keepFor(java.time.Duration.ofMinutes(30)));
      assertThat(grant("{\"policy\":\"stop\"}"))
          .contains(dev.berth.core.tenant.DisconnectGrant.stop());
      assertThat(grant("")).as("the server's default").isEmpty();
    }

    @Test
    void refusesAnUnknownPolicyAMissingOrUnboundedGraceAndAGraceForStop() {
      assertThatThrownBy(() -> put("{\"policy\":\"pause\"}"))
          .hasMessageContaining("disconnect.policy")
          .hasMessageContaining("continue or stop");
      assertThatThrownBy(() -> put("{\"policy\":\"continue\"}"))
          .hasMessageContaining("disconnect.graceSeconds");
      assertThatThrownBy(() -> put("{\"policy\":\"continue\",\"graceSeconds\":604801}"))
          .hasMessageContaining("between 0 and 604800");
      assertThatThrownBy(() -> put("{\"policy\":\"stop\",\"graceSeconds\":5}"))
          .hasMessageContaining("for stop");
      assertThatThrownBy(() -> put("{\"graceSeconds\":5}"))
          .hasMessageContaining("disconnect.policy");
    }
  }
}
