package dev.berth.cli;

import dev.berth.client.BerthClient;
import dev.berth.client.SessionQuery;
import dev.berth.client.SessionView;
import dev.berth.core.session.SessionId;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * How a command names a session: its full id, a prefix of its id that only it has, or its name when
 * only it has that name. A full id is used as given (no listing); anything else is looked up in the
 * sessions the caller sees, and must match exactly one: when several match, the error lists them,
 * so that the next try can be exact.
 */
record SessionRef(String text) {

  static final String DESCRIPTION =
      "The session: its id, a prefix of its id that no other session has, or its name.";

  private static final Pattern FULL_ID = Pattern.compile("[0-9a-f]{32}");

  /** The most candidates an ambiguity error lists. */
  private static final int SHOWN = 10;

  SessionId resolve(BerthClient client) {
    return resolve(client, List.of(SessionQuery.all()));
  }

  /** The deleted session it names (for recover: the sessions it looks in are the deleted ones). */
  SessionId resolveDeleted(BerthClient client) {
    return resolve(client, List.of(SessionQuery.all().onlyDeleted()));
  }

  /** The session it names, live or deleted (for the audit log, which outlives a deletion). */
  SessionId resolveLiveOrDeleted(BerthClient client) {
    return resolve(client, List.of(SessionQuery.all(), SessionQuery.all().onlyDeleted()));
  }

  private SessionId resolve(BerthClient client, List<SessionQuery> among) {
    String given = text.strip();
    if (FULL_ID.matcher(given).matches()) {
      return new SessionId(given);
    }
    List<SessionView> matches = new ArrayList<>();
    String prefix = given.toLowerCase(Locale.ROOT);
    for (SessionQuery query : among) {
      for (Iterator<SessionView> all = client.iterateSessions(query); all.hasNext(); ) {
        SessionView s = all.next();
        if (s.name().equals(given) || (!prefix.isEmpty() && s.id().value().startsWith(prefix))) {
          matches.add(s);
        }
      }
    }
    return switch (matches.size()) {
      case 0 ->
          throw new UsageException(
              "no session has the id, id prefix or name \""
                  + given
                  + "\"; berth sessions list shows them");
      case 1 -> matches.get(0).id();
      default -> throw ambiguous(given, matches);
    };
  }

  private static UsageException ambiguous(String given, List<SessionView> matches) {
    StringBuilder message =
        new StringBuilder("\"" + given + "\" names " + matches.size() + " sessions; say which:");
    for (SessionView s : matches.subList(0, Math.min(SHOWN, matches.size()))) {
      message.append("\n  ").append(s.id()).append("  ").append(s.name()).append("  ");
      message.append(s.state());
    }
    if (matches.size() > SHOWN) {
      message.append("\n  … and ").append(matches.size() - SHOWN).append(" more");
    }
    return new UsageException(message.toString());
  }

  /** Takes any non-blank text; what it names is found when the command runs. */
  static final class Converter implements CommandLine.ITypeConverter<SessionRef> {
    @Override
    public SessionRef convert(String value) {
      if (value.isBlank()) {
        throw new CommandLine.TypeConversionException(
            "a session must be named by its id, an id prefix or its name, not an empty string");
      }
      return new SessionRef(value);
    }
  }
}
