package dev.berth.server.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What a runtime or an agent says reaches the log as one line. */
class OperationLogTest {

  @Test
  void lineBreaksAndOtherControlCharactersAreEscapedAndTheRestIsKept() {
    assertThat(OperationLog.oneLine("lost\n2026-12-03T10:00:00Z INFO forged\r\u001b[31m\u0085é"))
        .isEqualTo("lost\\x0a2026-12-03T10:00:00Z INFO forged\\x0d\\x1b[31m\\x85é")
        .doesNotContain("\n");
  }
}
