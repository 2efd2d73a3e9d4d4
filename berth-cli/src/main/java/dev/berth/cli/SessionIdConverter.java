package dev.berth.cli;

import dev.berth.core.session.SessionId;
import picocli.CommandLine;

/**
 * Reads a session id argument; a malformed one is a usage error that says what an id looks like.
 */
final class SessionIdConverter implements CommandLine.ITypeConverter<SessionId> {

  @Override
  public SessionId convert(String value) {
    try {
      return new SessionId(value.strip());
    } catch (RuntimeException e) {
      throw new CommandLine.TypeConversionException(
          e.getMessage() + "; 'berth sessions list' shows the ids");
    }
  }
}
