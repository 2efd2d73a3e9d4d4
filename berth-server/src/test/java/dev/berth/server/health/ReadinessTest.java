package dev.berth.server.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReadinessTest {

  @Test
  void everyCheckRunsInOrderAndOneFailureMakesTheServerNotReady() {
    List<String> ran = new ArrayList<>();
    Readiness readiness =
        new Readiness(
            List.of(
                new Readiness.Check("store", () -> ran.add("store")),
                new Readiness.Check(
                    "runtime",
                    () -> {
                      ran.add("runtime");
                      throw new IllegalStateException("node /var/lib/berth/node is down");
                    }),
                new Readiness.Check("archive", () -> ran.add("archive"))));

    Readiness.Answer answer = readiness.check();

    assertThat(ran).containsExactly("store", "runtime", "archive");
    assertThat(answer.ready()).isFalse();
    assertThat(answer.checks())
        .containsExactly(
            java.util.Map.entry("store", "ok"),
            java.util.Map.entry("runtime", "failed"),
            java.util.Map.entry("archive", "ok"));
  }

  @Test
  void allChecksPassingIsReady() {
    Readiness.Answer answer =
        new Readiness(List.of(new Readiness.Check("store", () -> {}))).check();

    assertThat(answer.ready()).isTrue();
  }
}
