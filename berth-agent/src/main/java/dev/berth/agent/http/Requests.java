package dev.berth.agent.http;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.SessionId;
import dev.berth.protocol.contract.CommandHeaders;
import io.javalin.http.Context;
import java.util.Optional;
import tools.jackson.databind.json.JsonMapper;

/** Reads what a request carries: the session, the command headers, a strict JSON body, a cursor. */
final class Requests {

  static final String INTENT_VERSION = CommandHeaders.INTENT_VERSION;
  static final String DEADLINE = CommandHeaders.DEADLINE;
  static final String OPERATION = CommandHeaders.OPERATION;

  private final JsonMapper json;

  Requests(JsonMapper json) {
    this.json = json;
  }

  static SessionId session(Context ctx) {
    return new SessionId(ctx.pathParam("sid"));
  }

  /** The local-contract headers, which lifecycle commands must carry. */
  CommandHeaders command(Context ctx) {
    return CommandHeaders.parse(
        ctx.header(INTENT_VERSION), ctx.header(DEADLINE), ctx.header(OPERATION));
  }

  /** The local-contract headers of a data command: checked when present. */
  Optional<CommandHeaders> optionalCommand(Context ctx) {
    return CommandHeaders.parseOptional(
        ctx.header(INTENT_VERSION), ctx.header(DEADLINE), ctx.header(OPERATION));
  }

  /** A required JSON body of type {@code type}; strict (unknown fields, nulls, trailing data). */
  <T> T body(Context ctx, Class<T> type) {
    byte[] bytes = ctx.bodyAsBytes();
    if (bytes.length == 0) {
      throw new InvalidValueException(
          "the request needs a JSON body (" + type.getSimpleName() + "); none was sent");
    }
    T value = json.readValue(bytes, type);
    if (value == null) {
      throw new InvalidValueException("the request body must be a JSON object, was null");
    }
    return value;
  }

  /** A byte cursor from {@code name}: absent means 0; negative or non-integer is refused. */
  static long cursor(String value, String name) {
    if (value == null || value.isEmpty()) {
      return 0;
    }
    try {
      long cursor = Long.parseLong(value);
      if (cursor >= 0) {
        return cursor;
      }
    } catch (NumberFormatException e) {
      // falls through to the refusal below
    }
    throw new InvalidValueException(
        name + " must be a non-negative integer byte offset, was \"" + value + "\"");
  }
}
