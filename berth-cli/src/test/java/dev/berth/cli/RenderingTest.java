package dev.berth.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** R-5.11 (b): server text in tables, messages and JSON output carries no control sequence. */
class RenderingTest {

  /** What a hostile workload might name a session. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "\u001b]0;pwned\u0007",
        "\u001b[2J\u001b[H",
        "innocent\roverwritten",
        "\u009b31m8-bit CSI",
        "\u001b]52;c;ZXZpbA==\u0007",
        "abc\u202edcba",
        "\u2066isolate\u2069",
        "del\u007f",
        "line\nbreak\ttab"
      })
  void noControlCharacterReachesATableOrAMessage(String hostile) {
    String table = new Table(List.of("NAME")).row(List.of(hostile)).render();
    String message = Escape.text(hostile);

    assertThat(withoutLayout(table)).doesNotContainPattern(CONTROLS);
    assertThat(withoutLayout(message)).doesNotContainPattern(CONTROLS);
    assertThat(table.lines()).hasSize(2);
  }

  private static final String CONTROLS = "[\\x00-\\x1f\\x7f-\\x9f\\u202a-\\u202e\\u2066-\\u2069]";

  private static String withoutLayout(String text) {
    return text.replace("\n", "").replace("\t", "");
  }

  @Test
  void escapesAreVisibleAndReadable() {
    assertThat(Escape.cell("\u001b]0;x\u0007")).isEqualTo("\\x1b]0;x\\x07");
    assertThat(Escape.cell("a\rb\nc\td")).isEqualTo("a\\rb\\nc\\td");
    assertThat(Escape.text("a\nb\tc")).isEqualTo("a\nb\tc");
    assertThat(Escape.cell("\u009b")).isEqualTo("\\x9b");
    assertThat(Escape.cell("\u202e")).isEqualTo("\\u202e");
    assertThat(Escape.cell("naïve 名前 🚢")).isEqualTo("naïve 名前 🚢");
  }

  @Test
  void alignsColumnsWithTwoSpacesAndNoTrailingBlanks() {
    String table =
        new Table(List.of("ID", "NAME", "AGE"))
            .row(List.of("a", "long name", "5s"))
            .row(List.of("bbbb", "x", "12d"))
            .render();

    assertThat(table)
        .isEqualTo("ID    NAME       AGE\n" + "a     long name  5s\n" + "bbbb  x          12d\n");
  }

  @Test
  void escapedCellsAreMeasuredAsPrinted() {
    String table = new Table(List.of("A", "B")).row(List.of("\u001b", "x")).render();
    assertThat(table).isEqualTo("A     B\n\\x1b  x\n");
  }

  @Test
  void agesUseTheirLargestUnit() {
    Instant now = Instant.parse("2026-01-10T00:00:00Z");
    assertThat(SessionPrinter.age(Optional.of(now.minusSeconds(42)), now)).isEqualTo("42s");
    assertThat(SessionPrinter.age(Optional.of(now.minus(Duration.ofMinutes(5))), now))
        .isEqualTo("5m");
    assertThat(SessionPrinter.age(Optional.of(now.minus(Duration.ofHours(30))), now))
        .isEqualTo("30h");
    assertThat(SessionPrinter.age(Optional.of(now.minus(Duration.ofDays(9))), now)).isEqualTo("9d");
    assertThat(SessionPrinter.age(Optional.of(now.plusSeconds(3)), now)).isEqualTo("0s");
    assertThat(SessionPrinter.age(Optional.empty(), now)).isEqualTo("-");
  }

  @Test
  void jsonOutputEscapesControlsButKeepsTheValues() throws Exception {
    ObjectNode node = JsonMapper.builder().build().createObjectNode();
    node.put("name", "\u001b[2J\u009b\u202e\u007fnaïve");

    String json = JsonOutput.render(node);

    assertThat(json)
        .doesNotContainPattern(CONTROLS.replace("\\x00-\\x1f", "\\x00-\\x09\\x0b-\\x1f"));
    assertThat(json)
        .contains("\\u001B[2J")
        .contains("\\u009b")
        .contains("\\u202e")
        .contains("naïve");
    assertThat(JsonMapper.builder().build().readTree(json).path("name").asString())
        .isEqualTo("\u001b[2J\u009b\u202e\u007fnaïve");
  }
}
