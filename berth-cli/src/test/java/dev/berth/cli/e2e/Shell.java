package dev.berth.cli.e2e;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs a command line in a session's shell through the public API, as a person at its terminal
 * would ({@code write}, then {@code read} until it is done), and gives back what it printed and its
 * exit status. The markers around the output are typed split by an empty quote, so that the
 * terminal's echo of the typed line never looks like them.
 */
final class Shell {
  private static final Duration WAIT = Duration.ofSeconds(90);

  record Result(String output, int rc) {}

  private Shell() {}

  static Result run(Api api, String id, String command) {
    String marker = "m" + Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, 36);
    long cursor = end(api, id);
    write(
        api,
        id,
        "echo B\"\"EGIN-"
            + marker
            + "; { "
            + command
            + "\n} 2>&1; echo \"E\"\"ND-"
            + marker
            + " rc=$?\"\n");
    Pattern done =
        Pattern.compile(
            "BEGIN-" + marker + "\r?\n(.*?)END-" + marker + " rc=(\\d+)", Pattern.DOTALL);
    String[] text = new String[1];
    await()
        .atMost(WAIT)
        .until(
            () -> {
              text[0] = api.text(id, cursor);
              return done.matcher(text[0]).find();
            });
    Matcher matcher = done.matcher(text[0]);
    matcher.find();
    return new Result(matcher.group(1).replace("\r\n", "\n"), Integer.parseInt(matcher.group(2)));
  }

  static void write(Api api, String id, String text) {
    String payload = Api.JSON.writeValueAsString(java.util.Map.of("payload", text));
    Api.Answer answer = api.post("/sessions/" + id + "/write", payload);
    if (answer.status() != 200) {
      throw new AssertionError("write answered " + answer);
    }
  }

  /** The end of the session's output now. */
  static long end(Api api, String id) {
    long offset = 0;
    while (true) {
      Api.Answer answer = api.post("/sessions/" + id + "/read", "{\"offset\":" + offset + "}");
      if (answer.status() != 200) {
        throw new AssertionError("read answered " + answer);
      }
      long next = answer.json().path("nextOffset").asLong();
      byte[] bytes = Base64.getDecoder().decode(answer.json().path("payloadBase64").asString());
      if (bytes.length == 0 || next == offset) {
        return next;
      }
      offset = next;
    }
  }
}
