package dev.berth.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code --log-format json}: one JSON object per line, dated with its zone; the flags' values. */
class JsonLogEncoderTest {

  private final LoggerContext context = new LoggerContext();

  private JsonNode encode(LoggingEvent event) {
    JsonLogEncoder encoder = new JsonLogEncoder();
    encoder.setContext(context);
    encoder.start();
    String line = new String(encoder.encode(event), StandardCharsets.UTF_8);
    assertThat(line).endsWith("\n").doesNotContain("\n{");
    assertThat(line.strip().lines()).hasSize(1);
    return JsonMapper.builder().build().readTree(line);
  }

  @Test
  void aLineIsOneObjectWithAZonedTimeTheLevelTheLoggerAndTheFormattedMessage() {
    LoggingEvent event =
        new LoggingEvent(
            "x",
            context.getLogger("dev.berth.server.api.RequestLog"),
            Level.INFO,
            "GET {} {}\nsecond line",
            null,
            new Object[] {"/api/v1/sessions", 200});
    JsonNode json = encode(event);
    assertThat(OffsetDateTime.parse(json.path("time").asString())).isNotNull();
    assertThat(json.path("level").asString()).isEqualTo("INFO");
    assertThat(json.path("logger").asString()).isEqualTo("dev.berth.server.api.RequestLog");
    assertThat(json.path("message").asString()).isEqualTo("GET /api/v1/sessions 200\nsecond line");
    assertThat(json.has("error")).isFalse();
  }

  @Test
  void aFailureCarriesItsStackTrace() {
    LoggingEvent event =
        new LoggingEvent(
            "x",
            context.getLogger("t"),
            Level.WARN,
            "failed",
            new IllegalStateException("the reason"),
            null);
    assertThat(encode(event).path("error").asString())
        .contains("IllegalStateException: the reason")
        .contains("aFailureCarriesItsStackTrace");
  }

  @Test
  void theFlagsTakeTheirDocumentedValuesAndNameAWrongOne() {
    assertThat(LogSetup.Format.parse("JSON")).isEqualTo(LogSetup.Format.JSON);
    assertThat(LogSetup.level("warn")).isEqualTo(Level.WARN);
    assertThatThrownBy(() -> LogSetup.Format.parse("xml")).hasMessageContaining("\"xml\"");
    assertThatThrownBy(() -> LogSetup.level("loud"))
        .hasMessageContaining("trace, debug, info, warn, error");
  }
}
