package dev.berth.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.cli.e2e.FiveCases.Case;
import dev.berth.cli.e2e.FourColumns.Look;
import dev.berth.cli.e2e.FourColumns.Row;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;

/**
 * What the cases of {@link FiveCases} and {@link HostFaults} share: the deployed pair, its admin
 * API, the table their rows go to, and the steps and readings every case uses.
 */
final class CaseKit {

  static final Duration CONVERGE = Duration.ofSeconds(150);

  final Deployment deployment;
  final Api admin;
  private final Consumer<Row> table;

  CaseKit(Deployment deployment, Consumer<Row> table) {
    this.deployment = deployment;
    this.admin = deployment.admin();
    this.table = table;
  }

  /**
   * A tenant of this case and pair, allowed {@code maxSessions} shells, and {@code clients} clients
   * of it, each with a token of its own, client i on replica i.
   */
  List<Api> tenant(String kase, int maxSessions, int clients) {
    String name = kase + "-" + deployment.pair().code();
    List<Api> apis = new ArrayList<>();
    for (int i = 0; i < clients; i++) {
      Api.Answer issued =
          admin.post(
              "/admin/tokens",
              "{\"tenant\":\""
                  + name
                  + "\",\"workloadTypes\":[\"shell\"],\"maxSessions\":"
                  + maxSessions
                  + "}");
      assertThat(issued.status()).as(issued.body()).isEqualTo(201);
      apis.add(deployment.api(i, issued.json().path("token").asString()));
    }
    return apis;
  }

  /** Suspends the session and brings it back: it then has an archive, and a newer intent. */
  static void snapshotAndResume(Api client, String id) {
    Api.Answer suspended = client.post("/sessions/" + id + "/snapshot", "{}");
    assertThat(suspended.status()).as(suspended.body()).isEqualTo(200);
    resume(client, id);
  }

  static void resume(Api client, String id) {
    Api.Answer resumed = client.post("/sessions/" + id + "/switch", "{}");
    assertThat(resumed.status()).as(resumed.body()).isEqualTo(200);
    assertThat(resumed.json().path("state").asString()).isEqualTo("active");
  }

  static String runtimeName(Look look) {
    return look.session().path("runtime").path("name").asString();
  }

  static JsonNode obligation(Look look, String action) {
    return look.obligations().stream()
        .filter(o -> o.path("action").asString().equals(action))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + action + " obligation: " + look.session()));
  }

  /** The session's audit entries of {@code type} whose detail ends with {@code ending}. */
  List<JsonNode> auditEntries(String id, String type, String ending) {
    return admin
        .get("/admin/audit?session=" + id + "&limit=1000")
        .json()
        .path("events")
        .valueStream()
        .filter(e -> e.path("type").asString().equals(type))
        .filter(e -> e.path("detail").asString().endsWith(ending))
        .toList();
  }

  void record(Case c, String moment, Look look, List<JsonNode> operations) {
    table.accept(Row.of(deployment.pair().label(), c.title(), moment, look, operations));
  }
}
