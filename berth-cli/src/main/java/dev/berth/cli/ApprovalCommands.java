package dev.berth.cli;

import dev.berth.client.Approval;
import dev.berth.client.BerthClient;
import dev.berth.core.approval.ApprovalId;
import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.SessionId;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code berth approvals}, {@code approve} and {@code reject}: the tool calls an agent session's
 * credential proxy holds until a person decides, listed and decided. Listing is passive (not an
 * access); a decision releases or drops the held call.
 */
final class ApprovalCommands {

  static final List<String> HEADERS =
      List.of("ID", "TOOL", "ARGUMENTS", "STATE", "AGE", "EXPIRES", "DIGEST", "REASON");

  /** The characters of an argument digest a table shows: enough to tell calls apart. */
  private static final int DIGEST_SHOWN = 12;

  private ApprovalCommands() {}

  /** {@code berth approvals SESSION [--pending]}. */
  @Command(
      name = "approvals",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description =
          "An agent session's approvals, newest first: the tool calls its proxy held for a"
              + " decision (berth approve, berth reject), and what became of them.")
  static final class Listing extends ClientCommand {
    @Parameters(
        paramLabel = "SESSION",
        converter = SessionRef.Converter.class,
        description = SessionRef.DESCRIPTION)
    SessionRef session;

    @Option(names = "--pending", description = "Only the approvals still waiting for a decision.")
    boolean pending;

    @Mixin FormatOption format;

    @Override
    int run(BerthClient client) {
      List<Approval> approvals = client.approvals(session.resolve(client), pending);
      ObjectNode document = JsonMapper.builder().build().createObjectNode();
      ArrayNode items = document.putArray("items");
      approvals.forEach(a -> items.add(a.json()));
      print(
          format.format, document, wide -> table(approvals, environment().clock().instant(), wide));
      return 0;
    }
  }

  /** What {@code approve} and {@code reject} share: the session, the approval, the reason. */
  abstract static class Decide extends ClientCommand {
    @Parameters(
        index = "0",
        paramLabel = "SESSION",
        converter = SessionRef.Converter.class,
        description = SessionRef.DESCRIPTION)
    SessionRef session;

    @Parameters(
        index = "1",
        paramLabel = "APPROVAL",
        description =
            "The approval: its id as berth approvals lists it (the request id), a prefix of it"
                + " that no other approval of the session has, or the full SESSION:REQUEST id.")
    String approval;

    @Option(
        names = "--reason",
        paramLabel = "TEXT",
        description = "Why; recorded with the decision (a rejection shows it to the agent).")
    @Nullable String reason;

    @Mixin FormatOption format;

    abstract Approval.Decision decision();

    @Override
    int run(BerthClient client) {
      SessionId id = session.resolve(client);
      Approval decided =
          client.decideApproval(
              id, resolve(client, id, approval), decision(), Optional.ofNullable(reason));
      print(
          format.format,
          decided.json(),
          wide -> table(List.of(decided), environment().clock().instant(), wide));
      return 0;
    }
  }

  /** {@code berth approve SESSION APPROVAL [--reason TEXT]}. */
  @Command(
      name = "approve",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description = "Approves a held tool call: the proxy releases it and the agent runs it.")
  static final class Approve extends Decide {
    @Override
    Approval.Decision decision() {
      return Approval.Decision.APPROVE;
    }
  }

  /** {@code berth reject SESSION APPROVAL [--reason TEXT]}. */
  @Command(
      name = "reject",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description =
          "Rejects a held tool call: the proxy drops it and ends the agent's turn with the"
              + " reason; the session stays, and the next prompt works.")
  static final class Reject extends Decide {
    @Override
    Approval.Decision decision() {
      return Approval.Decision.REJECT;
    }
  }

  /**
   * The full id {@code given} names: itself when it has the session part, else the one approval of
   * the session whose request id starts with it.
   *
   * @throws UsageException when it names none, or several (listing them)
   */
  static ApprovalId resolve(BerthClient client, SessionId session, String given) {
    String text = given.strip().toLowerCase(Locale.ROOT);
    if (text.contains(":")) {
      try {
        return new ApprovalId(text);
      } catch (InvalidValueException e) {
        throw new UsageException(
            "'" + given + "' is not an approval id (SESSION:REQUEST, 32 hex digits each)");
      }
    }
    List<Approval> matches =
        text.isEmpty()
            ? List.of()
            : client.approvals(session, false).stream()
                .filter(a -> a.requestId().startsWith(text))
                .toList();
    if (matches.size() == 1) {
      return matches.get(0).id();
    }
    if (matches.isEmpty()) {
      throw new UsageException(
          "session "
              + session
              + " has no approval whose id starts with '"
              + given
              + "'; berth approvals "
              + session
              + " lists them");
    }
    StringBuilder message =
        new StringBuilder(
            "'" + given + "' names " + matches.size() + " approvals of session " + session);
    message.append("; give more of the id:");
    matches.forEach(
        a ->
            message
                .append("\n  ")
                .append(a.requestId())
                .append("  ")
                .append(Escape.cell(a.tool()))
                .append("  ")
                .append(Escape.cell(a.state())));
    throw new UsageException(message.toString());
  }

  /**
   * Approvals as a table, one row each; times relative to {@code now}; the arguments' preview cut
   * shorter than {@code -o wide} cuts it.
   */
  static String table(List<Approval> approvals, Instant now, boolean wide) {
    Table table = new Table(HEADERS);
    for (Approval a : approvals) {
      table.row(
          List.of(
              a.requestId(),
              a.tool(),
              ArgumentsPreview.of(
                  a.argumentsText(), wide ? ArgumentsPreview.WIDE : ArgumentsPreview.TABLE),
              a.state(),
              SessionPrinter.age(a.createdAt(), now),
              expires(a, now),
              digest(a.argumentsDigest()),
              a.reason().orElse("")));
    }
    return table.render();
  }

  /** A pending approval's time left ({@code in 9m}); {@code -} once it is decided. */
  static String expires(Approval a, Instant now) {
    if (!a.isPending() || a.expiresAt().isEmpty()) {
      return "-";
    }
    Duration left = Duration.between(now, a.expiresAt().get());
    if (left.isNegative() || left.isZero()) {
      return "now";
    }
    return "in " + SessionPrinter.age(Optional.of(now), now.plus(left));
  }

  /** {@code sha256:ab12…} cut to its first hex digits. */
  static String digest(String digest) {
    String hex = digest.startsWith("sha256:") ? digest.substring("sha256:".length()) : digest;
    return hex.length() > DIGEST_SHOWN ? hex.substring(0, DIGEST_SHOWN) : hex;
  }
}
