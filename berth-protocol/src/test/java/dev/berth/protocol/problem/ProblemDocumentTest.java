package dev.berth.protocol.problem;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class ProblemDocumentTest {

  @Test
  void aProblemCarriesItsReasonAndTheSameMessageAsDetailAndAsTheOriginalsError() {
    var body = ProblemDocument.of(409, "SUSPENDING", "being suspended", Optional.of("abc"));

    assertThat(body)
        .containsExactly(
            java.util.Map.entry("type", "about:blank"),
            java.util.Map.entry("title", "Conflict"),
            java.util.Map.entry("status", 409),
            java.util.Map.entry("reason", "SUSPENDING"),
            java.util.Map.entry("detail", "being suspended"),
            java.util.Map.entry("error", "being suspended"),
            java.util.Map.entry("session", "abc"));
  }

  @Test
  void aProblemOutsideASessionNamesNone() {
    assertThat(ProblemDocument.of(404, "NOT_FOUND", "no route", Optional.empty()))
        .doesNotContainKey("session");
  }

  @Test
  void everyStatusTheApiAnswersHasItsTitle() {
    for (int status :
        new int[] {400, 401, 403, 404, 409, 410, 412, 413, 422, 429, 502, 503, 504, 507}) {
      assertThat(ProblemDocument.title(status)).as("status %d", status).isNotEqualTo("Error");
    }
    assertThat(ProblemDocument.reasonOf(405)).isEqualTo("METHOD_NOT_ALLOWED");
  }
}
