package dev.berth.server.api;

import dev.berth.core.access.Scope;
import io.javalin.http.Context;

/**
 * Who is calling, as the authentication filter established it: the sessions they may see and the
 * name recorded as the actor of what they change.
 */
record Caller(Scope scope, String actor) {

  static final String ATTRIBUTE = "berth.caller";

  static Caller of(Context ctx) {
    Caller caller = ctx.attribute(ATTRIBUTE);
    if (caller == null) {
      throw new IllegalStateException("no caller: the authentication filter did not run");
    }
    return caller;
  }

  void attachTo(Context ctx) {
    ctx.attribute(ATTRIBUTE, this);
  }
}
