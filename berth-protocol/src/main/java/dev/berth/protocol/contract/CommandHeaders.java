package dev.berth.protocol.contract;

import dev.berth.core.agent.CommandContext;
import dev.berth.core.error.InvalidValueException;
import dev.berth.core.operation.OperationId;
import dev.berth.core.session.SessionId;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The three headers of the local contract that a command carries: the intent version it serves, the
 * absolute deadline after which it must be refused, and the operation it belongs to (commands are
 * idempotent by it). Lifecycle commands must carry all three; data-plane commands may carry all
 * three or none, never some.
 */
public record CommandHeaders(long intentVersion, Instant deadline, OperationId operation) {

  public static final String INTENT_VERSION = "X-Berth-Intent-Version";
  public static final String DEADLINE = "X-Berth-Deadline";
  public static final String OPERATION = "X-Berth-Operation";

  /**
   * The three headers of a command, in the order they are sent: what every client of the agent (the
   * control plane's commands, its archive transfers) writes, so that no caller spells them.
   */
  public static Map<String, String> of(CommandContext context) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put(INTENT_VERSION, Long.toString(context.intentVersion()));
    headers.put(DEADLINE, context.deadline().toString());
    headers.put(OPERATION, context.operation().value());
    return headers;
  }

  public CommandHeaders {
    if (intentVersion < 0) {
      throw new InvalidValueException(
          "intent version must be at least 0, was "
              + intentVersion
              + "; send the session's version");
    }
    Objects.requireNonNull(deadline, "deadline");
    Objects.requireNonNull(operation, "operation");
  }

  /**
   * Parses the three header values (each may be {@code null} when the header is absent).
   *
   * @throws InvalidValueException naming the header, its value and the expected form when a header
   *     is missing or malformed
   */
  public static CommandHeaders parse(String intentVersion, String deadline, String operation) {
    return new CommandHeaders(
        parseVersion(required(INTENT_VERSION, intentVersion, "a decimal long >= 0")),
        parseDeadline(required(DEADLINE, deadline, "an RFC 3339 instant")),
        parseOperation(required(OPERATION, operation, "op-<session id>-<type>-<number>")));
  }

  /**
   * Parses headers that are optional as a group: all three absent gives empty, all three present
   * are parsed as by {@link #parse}.
   *
   * @throws InvalidValueException when only some are present, naming the missing ones, or when a
   *     present one is malformed
   */
  public static Optional<CommandHeaders> parseOptional(
      String intentVersion, String deadline, String operation) {
    List<String> missing = new ArrayList<>();
    if (absent(intentVersion)) {
      missing.add(INTENT_VERSION);
    }
    if (absent(deadline)) {
      missing.add(DEADLINE);
    }
    if (absent(operation)) {
      missing.add(OPERATION);
    }
    if (missing.size() == 3) {
      return Optional.empty();
    }
    if (!missing.isEmpty()) {
      throw new InvalidValueException(
          "headers "
              + INTENT_VERSION
              + ", "
              + DEADLINE
              + " and "
              + OPERATION
              + " go together, but "
              + String.join(" and ", missing)
              + " "
              + (missing.size() == 1 ? "is" : "are")
              + " missing; send all three or none");
    }
    return Optional.of(parse(intentVersion, deadline, operation));
  }

  /** The core command context of these headers, scoped to {@code session}. */
  public CommandContext context(SessionId session) {
    return new CommandContext(session, intentVersion, deadline, operation);
  }

  private static boolean absent(String value) {
    return value == null || value.isBlank();
  }

  private static String required(String header, String value, String expected) {
    if (absent(value)) {
      throw new InvalidValueException(
          "header " + header + " is required and must be " + expected + ", was absent");
    }
    return value.strip();
  }

  private static long parseVersion(String value) {
    try {
      long version = Long.parseLong(value);
      if (version >= 0) {
        return version;
      }
    } catch (NumberFormatException e) {
      // Falls through to the one error below, which names the header and the expected form.
    }
    throw new InvalidValueException(
        "header " + INTENT_VERSION + " must be a decimal long >= 0, was \"" + value + "\"");
  }

  private static Instant parseDeadline(String value) {
    try {
      // RFC 3339 allows a lower-case 't' and 'z'; ISO_OFFSET_DATE_TIME wants upper case.
      return OffsetDateTime.parse(
              value.toUpperCase(Locale.ROOT), DateTimeFormatter.ISO_OFFSET_DATE_TIME)
          .toInstant();
    } catch (DateTimeException e) {
      throw new InvalidValueException(
          "header "
              + DEADLINE
              + " must be an RFC 3339 instant such as 2030-01-02T03:04:05Z, was \""
              + value
              + "\"");
    }
  }

  private static OperationId parseOperation(String value) {
    try {
      return new OperationId(value);
    } catch (InvalidValueException e) {
      throw new InvalidValueException(
          "header "
              + OPERATION
              + " must look like op-<session id>-<type>-<number>, was \""
              + value
              + "\"");
    }
  }
}
