package dev.berth.cli;

import dev.berth.client.BerthClient;
import dev.berth.client.Deletion;
import dev.berth.client.NewSession;
import dev.berth.client.SessionPage;
import dev.berth.client.SessionQuery;
import dev.berth.client.SessionView;
import dev.berth.core.session.SessionId;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code berth sessions create|list|get|delete}. */
@Command(
    name = "sessions",
    mixinStandardHelpOptions = true,
    versionProvider = BerthCommand.Version.class,
    description = "Creates, lists, shows and deletes sessions.",
    subcommands = {
      SessionsCommand.CreateSession.class,
      SessionsCommand.ListSessions.class,
      SessionsCommand.GetSession.class,
      SessionsCommand.DeleteSession.class
    })
final class SessionsCommand {

  /** {@code berth sessions create NAME}. */
  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description =
          "Creates a session and waits until it is active (up to the server's 120 s; a session"
              + " still provisioning after that is shown as it is).")
  static final class CreateSession extends ClientCommand {
    @Parameters(paramLabel = "NAME", description = "The session's name.")
    String name;

    @Option(
        names = "--type",
        paramLabel = "TYPE",
        description = "The workload type, as shell (default: the server's default).")
    @Nullable String type;

    @Option(names = "--model", paramLabel = "MODEL", description = "The model of an agent session.")
    @Nullable String model;

    @Option(
        names = "--tenant",
        paramLabel = "TENANT",
        description = "Create on this tenant's behalf (admin token only).")
    @Nullable String tenant;

    @Option(names = "--no-wait", description = "Answer at once, while it is still provisioning.")
    boolean noWait;

    @Option(
        names = {"-q", "--quiet"},
        description = "Print only the new session's id.")
    boolean quiet;

    @Mixin FormatOption format;

    @Override
    int run(BerthClient client) {
      if (name.isBlank()) {
        throw new UsageException("a session's name must not be blank");
      }
      NewSession request = NewSession.named(name).waitForActive(!noWait);
      if (type != null) {
        request = request.workloadType(type);
      }
      if (model != null) {
        request = request.model(model);
      }
      if (tenant != null) {
        request = request.tenant(tenant);
      }
      SessionView session = client.createSession(request);
      if (quiet) {
        out().println(session.id());
        out().flush();
        return 0;
      }
      print(format.format, session);
      return 0;
    }
  }

  /** {@code berth sessions list}. */
  @Command(
      name = "list",
      aliases = "ls",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description =
          "Lists sessions: every live one, oldest first, or pages of --limit (--all reads them"
              + " all).")
  static final class ListSessions extends ClientCommand {
    @Option(
        names = "--state",
        paramLabel = "STATE",
        split = ",",
        description = "Only sessions in these states: active, idle, snapshot, failed.")
    @Nullable List<String> states;

    @Option(
        names = "--deleted",
        description =
            "Only deleted sessions, with when they were deleted and whether they can still be"
                + " recovered (POST /sessions/ID/recover).")
    boolean deleted;

    @Option(
        names = "--tenant",
        paramLabel = "TENANT",
        description = "Only this tenant's sessions (admin token only).")
    @Nullable String tenant;

    @Option(
        names = "--all",
        description = "Read every page (the JSON output is then one {\"sessions\":[…]}).")
    boolean all;

    @Option(
        names = "--limit",
        paramLabel = "N",
        description = "Sessions per page, 1 to 1000 (default: every session in one answer).")
    @Nullable Integer limit;

    @Option(
        names = "--page-token",
        paramLabel = "TOKEN",
        description = "Start at this page (a previous list's nextPageToken).")
    @Nullable String pageToken;

    @Mixin FormatOption format;

    @Option(
        names = {"-q", "--quiet"},
        description = "Print only the sessions' ids, one per line (every page, as --all).")
    boolean quiet;

    @Override
    int run(BerthClient client) {
      SessionQuery query = query();
      if (quiet) {
        client.iterateSessions(query).forEachRemaining(s -> out().println(s.id()));
        out().flush();
        return 0;
      }
      if (all) {
        List<SessionView> sessions = new ArrayList<>();
        Iterator<SessionView> iterator = client.iterateSessions(query);
        iterator.forEachRemaining(sessions::add);
        ObjectNode document = JsonMapper.builder().build().createObjectNode();
        ArrayNode array = document.putArray("sessions");
        sessions.forEach(s -> array.add(s.json()));
        print(format.format, sessions, document);
        return 0;
      }
      SessionPage page = client.listSessions(query);
      print(format.format, page.sessions(), page.json());
      if (!format.format.document() && page.nextPageToken().isPresent()) {
        err()
            .println(
                "berth: more sessions follow; use --all, or --page-token "
                    + Escape.cell(page.nextPageToken().get()));
        err().flush();
      }
      return 0;
    }

    private SessionQuery query() {
      SessionQuery query = SessionQuery.all();
      try {
        if (tenant != null) {
          query = query.tenant(tenant);
        }
        if (limit != null) {
          query = query.limit(limit);
        }
      } catch (IllegalArgumentException e) {
        throw new UsageException(Objects.requireNonNullElse(e.getMessage(), e.toString()));
      }
      if (pageToken != null) {
        query = query.pageToken(pageToken);
      }
      if (states != null) {
        query = query.states(states);
      }
      if (deleted) {
        query = query.onlyDeleted();
      }
      return query;
    }
  }

  /** {@code berth sessions get ID}. */
  @Command(
      name = "get",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description = "Shows a session.")
  static final class GetSession extends ClientCommand {
    @Parameters(
        paramLabel = "SESSION",
        converter = SessionRef.Converter.class,
        description = SessionRef.DESCRIPTION)
    SessionRef session;

    /** The session {@link #session} names, found at the start of {@code run}. */
    @SuppressWarnings("NullAway.Init")
    SessionId id;

    @Mixin FormatOption format;

    @Override
    int run(BerthClient client) {
      id = session.resolve(client);
      print(format.format, client.getSession(id));
      return 0;
    }
  }

  /** {@code berth sessions delete ID}. */
  @Command(
      name = "delete",
      aliases = "rm",
      mixinStandardHelpOptions = true,
      versionProvider = BerthCommand.Version.class,
      description =
          "Terminates a session and waits until it is terminated (up to the server's 60 s; after"
              + " that termination goes on by itself).")
  static final class DeleteSession extends LifecycleCommands.Lifecycle {
    @Override
    int run(BerthClient client) {
      id = session.resolve(client);
      Deletion deletion = client.deleteSession(id, ifMatch());
      if (format.format.document()) {
        if (deletion.session().isPresent()) {
          out().print(format.format.render(deletion.session().get().json()));
        } else {
          ObjectNode document = JsonMapper.builder().build().createObjectNode();
          document.put("id", id.value());
          document.put("state", "deleted");
          document.put("phase", "TERMINATED");
          out().print(format.format.render(document));
        }
      } else if (deletion.terminated()) {
        out().println("session " + id + " terminated");
      } else {
        out()
            .println(
                "session "
                    + id
                    + " is "
                    + Escape.cell(deletion.session().map(SessionView::lifecycle).orElse("deleting"))
                    + "; termination continues on the server"
                    + deletion
                        .session()
                        .flatMap(SessionView::operation)
                        .map(op -> " (operation " + Escape.cell(op) + ")")
                        .orElse(""));
      }
      out().flush();
      return 0;
    }
  }
}
