package dev.berth.protocol.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.operation.OperationId;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CommandHeadersTest {
  private static final String OP = "op-0123456789abcdef0123456789abcdef-provision-7";

  @Test
  void theHeadersACommandSendsParseBackToTheSameCommand() {
    var sent = new CommandHeaders(7, Instant.parse("2030-01-02T03:04:05Z"), new OperationId(OP));
    var headers =
        CommandHeaders.of(
            sent.context(new dev.berth.core.session.SessionId("0123456789abcdef0123456789abcdef")));

    assertThat(headers.keySet())
        .containsExactly(
            CommandHeaders.INTENT_VERSION, CommandHeaders.DEADLINE, CommandHeaders.OPERATION);
    assertThat(
            CommandHeaders.parse(
                headers.get(CommandHeaders.INTENT_VERSION),
                headers.get(CommandHeaders.DEADLINE),
                headers.get(CommandHeaders.OPERATION)))
        .isEqualTo(sent);
  }

  @Test
  void parsesAllThreeHeaders() {
    var headers = CommandHeaders.parse("7", "2030-01-02T03:04:05Z", OP);

    assertThat(headers)
        .isEqualTo(
            new CommandHeaders(7, Instant.parse("2030-01-02T03:04:05Z"), new OperationId(OP)));
  }

  @Test
  void acceptsRfc3339OffsetsFractionsAndLowerCase() {
    assertThat(CommandHeaders.parse("0", "2030-01-02T05:04:05.250+02:00", OP).deadline())
        .isEqualTo(Instant.parse("2030-01-02T03:04:05.250Z"));
    assertThat(CommandHeaders.parse("0", "2030-01-02t03:04:05z", OP).deadline())
        .isEqualTo(Instant.parse("2030-01-02T03:04:05Z"));
  }

  @Test
  void refusesAMissingHeaderNamingIt() {
    assertThatThrownBy(() -> CommandHeaders.parse(null, "2030-01-02T03:04:05Z", OP))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("X-Berth-Intent-Version")
        .hasMessageContaining("absent");
  }

  @Test
  void refusesANegativeOrNonNumericVersionNamingHeaderValueAndForm() {
    assertThatThrownBy(() -> CommandHeaders.parse("-1", "2030-01-02T03:04:05Z", OP))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("X-Berth-Intent-Version")
        .hasMessageContaining("\"-1\"")
        .hasMessageContaining("long >= 0");
    assertThatThrownBy(() -> CommandHeaders.parse("seven", "2030-01-02T03:04:05Z", OP))
        .hasMessageContaining("\"seven\"");
  }

  @Test
  void refusesADeadlineThatIsNotRfc3339NamingHeaderValueAndForm() {
    assertThatThrownBy(() -> CommandHeaders.parse("1", "2030-01-02 03:04", OP))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("X-Berth-Deadline")
        .hasMessageContaining("\"2030-01-02 03:04\"")
        .hasMessageContaining("RFC 3339");
    assertThatThrownBy(() -> CommandHeaders.parse("1", "2030-01-02T03:04:05", OP))
        .hasMessageContaining("X-Berth-Deadline");
  }

  @Test
  void refusesAMalformedOperationNamingHeaderAndValue() {
    assertThatThrownBy(() -> CommandHeaders.parse("1", "2030-01-02T03:04:05Z", "op-1"))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("X-Berth-Operation")
        .hasMessageContaining("\"op-1\"");
  }

  @Test
  void optionalHeadersAllAbsentAreEmpty() {
    assertThat(CommandHeaders.parseOptional(null, null, null)).isEmpty();
    assertThat(CommandHeaders.parseOptional("", " ", null)).isEmpty();
  }

  @Test
  void optionalHeadersAllPresentAreParsed() {
    assertThat(CommandHeaders.parseOptional("3", "2030-01-02T03:04:05Z", OP))
        .hasValueSatisfying(h -> assertThat(h.intentVersion()).isEqualTo(3));
  }

  @Test
  void optionalHeadersPartlyPresentAreRefusedNamingTheMissingOnes() {
    assertThatThrownBy(() -> CommandHeaders.parseOptional("3", null, null))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("X-Berth-Deadline and X-Berth-Operation are missing")
        .hasMessageContaining("send all three or none");
  }
}
