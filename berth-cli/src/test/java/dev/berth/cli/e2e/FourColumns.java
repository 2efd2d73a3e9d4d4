package dev.berth.cli.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;

/**
 * What the state model says must be asserted separately for each of its five cases (STATE-MODEL.md
 * §5): the session (intent, phase, conditions), the operations, the quota reservation and the
 * cleanup obligations, read through the API at one moment, and written as one row of a table.
 */
final class FourColumns {

  private FourColumns() {}

  /** Everything the API shows of one session at one moment, for the four columns. */
  record Look(JsonNode session, List<JsonNode> operations, JsonNode tenant) {

    /**
     * Reads session {@code id} through the admin API: the session (or, once deleted, as {@code
     * deleted=true} lists it), every operation of it, and its tenant's quota.
     */
    static Look at(Api admin, String id) {
      Api.Answer live = admin.get("/sessions/" + id);
      JsonNode session = live.status() == 200 ? live.json() : admin.deleted(id);
      if (session.isMissingNode()) {
        throw new AssertionError("session " + id + " is neither live nor deleted: " + live);
      }
      Api.Answer operations = admin.get("/admin/sessions/" + id + "/operations");
      if (operations.status() != 200) {
        throw new AssertionError("the operations of " + id + " answered " + operations);
      }
      String tenant = session.path("tenant").asString();
      JsonNode quota =
          admin
              .get("/admin/tenants")
              .json()
              .path("tenants")
              .valueStream()
              .filter(t -> t.path("tenant").asString().equals(tenant))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no tenant " + tenant));
      return new Look(
          session, List.copyOf(operations.json().path("operations").valueStream().toList()), quota);
    }

    /** The condition {@code type}, or a missing node. */
    JsonNode condition(String type) {
      return session
          .path("conditions")
          .valueStream()
          .filter(c -> c.path("type").asString().equals(type))
          .findFirst()
          .orElse(tools.jackson.databind.node.MissingNode.getInstance());
    }

    String conditionStatus(String type) {
      return condition(type).path("status").asString("absent");
    }

    String phase() {
      return session.path("phase").asString();
    }

    String reservation() {
      return session.path("reservation").asString();
    }

    long intentVersion() {
      return session.path("intentVersion").asLong();
    }

    /** How many sessions the tenant holds against its quota (reservation HELD or UNCERTAIN). */
    int held() {
      return tenant.path("sessions").asInt();
    }

    /** The operations of {@code type}. */
    List<JsonNode> operations(String type) {
      return operations.stream().filter(o -> o.path("type").asString().equals(type)).toList();
    }

    /** The operations that {@code before} did not know, or knew in another state. */
    List<JsonNode> operationsSince(Look before) {
      Set<String> known =
          before.operations.stream()
              .map(o -> o.path("id").asString() + "/" + o.path("state").asString())
              .collect(Collectors.toSet());
      return operations.stream()
          .filter(o -> !known.contains(o.path("id").asString() + "/" + o.path("state").asString()))
          .toList();
    }

    List<JsonNode> obligations() {
      return session.path("obligations").valueStream().toList();
    }
  }

  /** One row of the table: a case at one moment, its four columns rendered. */
  record Row(
      String pair,
      String kase,
      String moment,
      String session,
      String operation,
      String reservation,
      String obligations) {

    /**
     * The row of {@code look}; {@code shown} are the operations the case is about (the termination,
     * or those started since the fault).
     */
    static Row of(String pair, String kase, String moment, Look look, List<JsonNode> shown) {
      return new Row(
          pair,
          kase,
          moment,
          FourColumns.session(look),
          FourColumns.operations(shown),
          FourColumns.reservation(look),
          FourColumns.obligations(look));
    }
  }

  /**
   * {@code intent D vN · PHASE (failure) · RuntimeObserved=S (reason), and every other not True}.
   */
  static String session(Look look) {
    JsonNode s = look.session();
    StringBuilder out = new StringBuilder();
    out.append("intent ")
        .append(s.path("intent").path("desired").asString())
        .append(" v")
        .append(s.path("intentVersion").asLong())
        .append(" · ")
        .append(s.path("phase").asString());
    if (s.path("failure").has("reason")) {
      out.append(" (").append(s.path("failure").path("reason").asString()).append(')');
    }
    List<String> conditions = new ArrayList<>();
    for (JsonNode c : s.path("conditions")) {
      String type = c.path("type").asString();
      String status = c.path("status").asString();
      if (type.equals("RuntimeObserved") || !status.equals("True")) {
        conditions.add(type + "=" + status + " (" + c.path("reason").asString() + ")");
      }
    }
    if (!conditions.isEmpty()) {
      out.append(" · ").append(String.join(", ", conditions));
    }
    return out.toString();
  }

  /** {@code TYPE STATE, N attempt(s), error REASON}, joined; {@code none} when empty. */
  static String operations(List<JsonNode> ops) {
    if (ops.isEmpty()) {
      return "none";
    }
    return ops.stream()
        .map(
            o -> {
              int attempts = o.path("attempts").asInt();
              String line =
                  o.path("type").asString()
                      + " v"
                      + o.path("intentVersion").asLong()
                      + " "
                      + o.path("state").asString()
                      + ", "
                      + attempts
                      + (attempts == 1 ? " attempt" : " attempts");
              return o.path("error").has("reason")
                  ? line + ", " + o.path("error").path("reason").asString()
                  : line;
            })
        .collect(Collectors.joining("; "));
  }

  /** {@code HELD (tenant holds 1 of 2)}. */
  static String reservation(Look look) {
    return look.reservation()
        + " (tenant holds "
        + look.held()
        + " of "
        + look.tenant().path("maxSessions").asInt()
        + ")";
  }

  /** {@code ACTION STATE [until DATE]}, joined; {@code none} when empty. */
  static String obligations(Look look) {
    if (look.obligations().isEmpty()) {
      return "none";
    }
    return look.obligations().stream()
        .map(
            o ->
                o.path("action").asString()
                    + " "
                    + o.path("state").asString()
                    + (o.has("retainUntil")
                        ? " until " + o.path("retainUntil").asString().substring(0, 10)
                        : ""))
        .collect(Collectors.joining("; "));
  }

  /** The rows as a Markdown table, in the order given. */
  static String markdown(List<Row> rows) {
    StringBuilder out = new StringBuilder();
    out.append(
        "| store × runtime | case | moment | session (intent, phase, conditions) | operation"
            + " (type, state, attempts, reason) | quota reservation | cleanup obligations |\n");
    out.append("|---|---|---|---|---|---|---|\n");
    for (Row r : rows) {
      out.append("| ")
          .append(
              String.join(
                  " | ",
                  List.of(
                          r.pair(),
                          r.kase(),
                          r.moment(),
                          r.session(),
                          r.operation(),
                          r.reservation(),
                          r.obligations())
                      .stream()
                      .map(cell -> cell.replace("|", "\\|"))
                      .toList()))
          .append(" |\n");
    }
    return out.toString();
  }
}
