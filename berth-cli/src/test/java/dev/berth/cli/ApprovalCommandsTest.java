package dev.berth.cli;

import static dev.berth.cli.FakeApi.SID;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/** berth approvals, approve and reject against a stand-in API: tables, ids, errors, exit codes. */
class ApprovalCommandsTest {

  private static final String FIRST = "00112233445566778899aabbccddeeff";
  private static final String SECOND = "00119999445566778899aabbccddeeff";
  private static final String PATH = "/api/v1/sessions/" + SID + "/approvals";

  @TempDir Path home;

  private CliHarness cli(FakeApi api) {
    CliHarness cli = new CliHarness(home);
    cli.variables.put("BERTH_URL", api.url());
    cli.variables.put("BERTH_TOKEN", FakeApi.TOKEN);
    return cli;
  }

  /** An approval made 2 minutes before the harness's clock, expiring 8 minutes after it. */
  private static String approval(String request, String tool, String state, String extra) {
    return "{\"id\":\""
        + SID
        + ":"
        + request
        + "\",\"sessionId\":\""
        + SID
        + "\",\"tool\":"
        + FakeApi.quote(tool)
        + ",\"argumentsDigest\":\"sha256:"
        + "0123456789abcdef".repeat(4)
        + "\",\"arguments\":\"{\\\"command\\\":\\\"touch marker.txt\\\"}\",\"requester\":\"admin\","
        + "\"state\":\""
        + state
        + "\",\"createdAt\":\"2026-01-02T04:02:05Z\",\"expiresAt\":\"2026-01-02T04:12:05Z\""
        + extra
        + "}";
  }

  /** A stand-in API whose one approval has {@code arguments} (JSON text, as the server sends). */
  private static FakeApi apiWithArguments(String arguments) {
    String item =
        "{\"id\":\""
            + SID
            + ":"
            + FIRST
            + "\",\"sessionId\":\""
            + SID
            + "\",\"tool\":\"Bash\",\"argumentsDigest\":\"sha256:"
            + "0123456789abcdef".repeat(4)
            + "\",\"arguments\":"
            + FakeApi.quote(arguments)
            + ",\"requester\":\"admin\",\"state\":\"pending\","
            + "\"createdAt\":\"2026-01-02T04:02:05Z\",\"expiresAt\":\"2026-01-02T04:12:05Z\"}";
    return new FakeApi(
        r -> r.get(PATH, ctx -> FakeApi.json(ctx, 200, "{\"items\":[" + item + "]}")));
  }

  private static FakeApi api() {
    return new FakeApi(
        r -> {
          r.get(
              PATH,
              ctx ->
                  FakeApi.json(
                      ctx,
                      200,
                      "{\"items\":["
                          + approval(FIRST, "Bash", "pending", "")
                          + ","
                          + approval(
                              SECOND,
                              "Web\u001b[2JFetch",
                              "rejected",
                              ",\"reason\":\"not today\",\"decidedBy\":\"admin\"")
                          + "]}"));
          r.post(
              PATH + "/{approval}",
              ctx -> {
                if (ctx.pathParam("approval").endsWith(SECOND)) {
                  FakeApi.problem(ctx, 409, "APPROVAL_DECIDED", "approval was rejected already");
                } else {
                  boolean approve = ctx.body().contains("\"approve\"");
                  FakeApi.json(
                      ctx,
                      200,
                      approval(
                          FIRST,
                          "Bash",
                          approve ? "approved" : "rejected",
                          approve ? "" : ",\"reason\":\"too risky\""));
                }
              });
        });
  }

  @Test
  void listsTheApprovalsAsATableWithTheirAgeTimeLeftAndShortDigest() {
    try (FakeApi api = api()) {
      CliHarness cli = cli(api);

      assertThat(cli.run("approvals", SID)).as(cli.err.toString()).isZero();

      String arguments = "{\"command\":\"touch marker.txt\"}";
      assertThat(cli.out.toString())
          .isEqualTo(
              "ID                                TOOL             ARGUMENTS                       "
                  + "STATE     AGE  EXPIRES  DIGEST        REASON\n"
                  + FIRST
                  + "  Bash             "
                  + arguments
                  + "  pending   2m   in 8m    0123456789ab\n"
                  + SECOND
                  + "  Web\\x1b[2JFetch  "
                  + arguments
                  + "  rejected  2m   -        0123456789ab  not today\n");
      assertThat(api.seen.get(0).query()).isNull();
    }
  }

  @Test
  void pendingAsksOnlyForThePendingOnesAndJsonPrintsTheServersDocument() throws Exception {
    try (FakeApi api = api()) {
      CliHarness cli = cli(api);

      assertThat(cli.run("approvals", SID, "--pending", "-o", "json")).isZero();

      var document = JsonMapper.builder().build().readTree(cli.out.toString());
      assertThat(document.path("items")).hasSize(2);
      assertThat(document.path("items").get(0).path("id").asString()).isEqualTo(SID + ":" + FIRST);
      assertThat(api.seen.get(0).query()).isEqualTo("state=pending");
    }
  }

  @Test
  void approveTakesAUniquePrefixOfTheRequestIdAndPrintsTheDecidedApproval() {
    try (FakeApi api = api()) {
      CliHarness cli = cli(api);

      assertThat(cli.run("approve", SID, "001122")).as(cli.err.toString()).isZero();

      assertThat(cli.out.toString()).contains(FIRST).contains("approved");
      FakeApi.Seen decision = api.seen.get(1);
      assertThat(decision.path()).isEqualTo(PATH + "/" + SID + ":" + FIRST);
      assertThat(decision.body()).isEqualTo("{\"decision\":\"approve\"}");
    }
  }

  @Test
  void rejectTakesTheFullIdAsItIsAndSendsTheReason() {
    try (FakeApi api = api()) {
      CliHarness cli = cli(api);

      assertThat(cli.run("reject", SID, SID + ":" + FIRST, "--reason", "too risky", "-o", "yaml"))
          .as(cli.err.toString())
          .isZero();

      assertThat(cli.out.toString()).contains("state: \"rejected\"").contains("too risky");
      assertThat(api.seen).hasSize(1);
      assertThat(api.seen.get(0).body())
          .isEqualTo("{\"decision\":\"reject\",\"reason\":\"too risky\"}");
    }
  }

  @Test
  void anAmbiguousOrUnknownApprovalIsAUsageErrorThatSaysWhatToType() {
    try (FakeApi api = api()) {
      CliHarness ambiguous = cli(api);
      assertThat(ambiguous.run("approve", SID, "0011")).isEqualTo(2);
      assertThat(ambiguous.err.toString())
          .contains("'0011' names 2 approvals of session " + SID)
          .contains(FIRST + "  Bash  pending")
          .contains(SECOND + "  Web\\x1b[2JFetch  rejected")
          .doesNotContain("\u001b");

      CliHarness unknown = cli(api);
      assertThat(unknown.run("reject", SID, "ff")).isEqualTo(2);
      assertThat(unknown.err.toString())
          .contains("has no approval whose id starts with 'ff'")
          .contains("berth approvals " + SID);

      CliHarness malformed = cli(api);
      assertThat(malformed.run("approve", SID, SID + ":../../admin")).isEqualTo(2);
      assertThat(malformed.err.toString()).contains("is not an approval id");
      assertThat(api.seen).noneMatch(s -> s.method().equals("POST"));
    }
  }

  @Test
  void anApprovalDecidedAlreadyPrintsTheProblemsReasonAndExitsOne() {
    try (FakeApi api = api()) {
      CliHarness cli = cli(api);

      assertThat(cli.run("approve", SID, SID + ":" + SECOND)).isEqualTo(1);

      assertThat(cli.err.toString())
          .isEqualTo("berth: APPROVAL_DECIDED: approval was rejected already\n");
    }
  }

  @Test
  void theArgumentsShowOnOneLineWithControlAndFormatCharactersEscapedAndALongOneCut() {
    String arguments =
        "{\"command\":\"echo \u202eexe.txt\u200b\\n\u001b[2J\",\"note\":\"line\nbreak\tand "
            + "x".repeat(300)
            + "\"}";
    try (FakeApi api = apiWithArguments(arguments)) {
      CliHarness cli = cli(api);
      assertThat(cli.run("approvals", SID)).as(cli.err.toString()).isZero();
      CliHarness wide = cli(api);
      assertThat(wide.run("approvals", SID, "-o", "wide")).as(wide.err.toString()).isZero();

      String cell = argumentsCell(cli.out.toString());
      assertThat(cell)
          .isEqualTo(
              "{\"command\":\"echo \\u{202e}exe.txt\\u{200b}… ("
                  + arguments.length()
                  + " characters)");
      assertThat(argumentsCell(wide.out.toString()))
          .startsWith(
              "{\"command\":\"echo \\u{202e}exe.txt\\u{200b}\\n\\u{001b}[2J\","
                  + "\"note\":\"line\\nbreak\\tand xxx")
          .endsWith("x… (" + arguments.length() + " characters)");
      assertThat(cli.out.toString() + wide.out.toString())
          .doesNotContain("\u202e", "\u200b", "\u001b", "\t");
      assertThat(cli.out.toString().lines()).hasSize(2);
      assertThat(wide.out.toString().lines()).hasSize(2);
    }
  }

  /** The ARGUMENTS cell of a one-approval table: from its column to the STATE column. */
  private static String argumentsCell(String table) {
    List<String> lines = table.lines().toList();
    int from = lines.get(0).indexOf("ARGUMENTS");
    int to = lines.get(0).indexOf("STATE");
    String row = lines.get(1);
    // Columns are aligned by code points, and every character before the cell is one.
    return row.substring(from, row.offsetByCodePoints(0, to)).strip();
  }

  @Test
  void wideShowsMoreOfTheArgumentsAndJsonKeepsThemWhole() throws Exception {
    String arguments = "{\"url\":\"https://example.com/" + "a".repeat(200) + "\"}";
    try (FakeApi api = apiWithArguments(arguments)) {
      CliHarness table = cli(api);
      assertThat(table.run("approvals", SID)).isZero();
      CliHarness wide = cli(api);
      assertThat(wide.run("approvals", SID, "-o", "wide")).isZero();
      CliHarness json = cli(api);
      assertThat(json.run("approvals", SID, "-o", "json")).isZero();

      assertThat(wide.out.toString().lines().toList().get(1).length())
          .isGreaterThan(table.out.toString().lines().toList().get(1).length() + 60);
      assertThat(wide.out.toString()).contains("… (" + arguments.length() + " characters)");
      assertThat(
              JsonMapper.builder()
                  .build()
                  .readTree(json.out.toString())
                  .path("items")
                  .get(0)
                  .path("arguments")
                  .asString())
          .isEqualTo(arguments);
    }
  }
}
