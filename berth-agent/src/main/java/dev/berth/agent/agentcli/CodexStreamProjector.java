package dev.berth.agent.agentcli;

import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * {@code codex exec --json}, projected. Codex reports whole items, not deltas: an agent message
 * reaches the byte log when it completes, with a newline after it when it has none.
 *
 * <p>{@code thread.started} announces the conversation id, which the next prompt resumes. Errors
 * ({@code error}, {@code turn.failed}) are written to the byte log too, as a line the reader sees
 * where the answer would be. Command executions, file changes, tool calls and web searches become
 * tool calls and results in the transcript; reasoning becomes a summarised thought.
 *
 * <p>Codex has no warning event: {@code codex exec} reports its warnings (a model it has no
 * metadata for, config warnings, deprecations, a rerouted model) as an {@code error} <em>item</em>
 * while the turn goes on. Those are {@code warning} entries, not written to the byte log; a
 * top-level {@code error} event is an error, except {@code Reconnecting... N/M (why)}, its retry of
 * a failed call to the model, which is a {@code retry} entry and a line of the byte log.
 *
 * <p>Its {@code turn.completed} usage counts the thread's tokens so far, not the turn's: they are
 * reported as running totals, from which the runner derives the turn's own ({@link UsageLedger}).
 * Codex reports no cost.
 */
public final class CodexStreamProjector implements StreamProjector {

  /** How Codex 0.169 says it retries: {@code Reconnecting... 1/5 (unexpected status 502 ...)}. */
  private static final Pattern RECONNECTING =
      Pattern.compile(
          "^Reconnecting\\.\\.\\. (\\d{1,6})/(\\d{1,6})(?: \\((.*)\\))?$", Pattern.DOTALL);

  private static final Pattern STATUS = Pattern.compile("\\bstatus (\\d{3})\\b");

  private Optional<String> conversation = Optional.empty();

  @Override
  public void line(String line, ProjectionSink sink) {
    JsonNode event = StreamJson.parse(line);
    if (event == null) {
      sink.text(line + "\n");
      return;
    }
    switch (event.path("type").asString("")) {
      case "thread.started" -> {
        String id = event.path("thread_id").asString("");
        if (!id.isEmpty()) {
          conversation = Optional.of(id);
        }
      }
      case "turn.started" -> {
        // The runner notes the turn's start itself, with the prompt.
      }
      case "item.started" -> started(event.path("item"), sink);
      case "item.completed" -> completed(event.path("item"), line, sink);
      case "turn.completed" -> {
        JsonNode usage = event.path("usage");
        sink.event(
            new TranscriptEvent.Usage(
                OptionalLong.empty(),
                OptionalLong.empty(),
                OptionalDouble.empty(),
                StreamJson.count(usage.path("input_tokens")),
                StreamJson.count(usage.path("output_tokens")),
                OptionalDouble.empty()));
      }
      case "turn.failed" ->
          error(event.path("error").path("message").asString("turn failed"), sink);
      case "error" -> errorOrRetry(event.path("message").asString("error"), sink);
      default -> sink.event(new TranscriptEvent.Raw(line));
    }
  }

  @Override
  public void end(ProjectionSink sink) {}

  @Override
  public Optional<String> announcedConversation() {
    return conversation;
  }

  private static void started(JsonNode item, ProjectionSink sink) {
    if (item.path("type").asString("").equals("command_execution")) {
      sink.event(
          new TranscriptEvent.ToolCall(
              item.path("id").asString(""),
              "command",
              StreamJson.summary(item.path("command").asString(""))));
    }
  }

  private static void completed(JsonNode item, String line, ProjectionSink sink) {
    String id = item.path("id").asString("");
    switch (item.path("type").asString("")) {
      case "agent_message" -> {
        String text = item.path("text").asString("");
        if (!text.isEmpty()) {
          sink.text(text.endsWith("\n") ? text : text + "\n");
          sink.event(new TranscriptEvent.AssistantText(text));
        }
      }
      case "reasoning" -> {
        String thought = item.path("text").asString("");
        sink.event(new TranscriptEvent.Thinking(StreamJson.summary(thought), thought.length()));
      }
      case "command_execution" ->
          sink.event(
              new TranscriptEvent.ToolResult(
                  id,
                  item.path("exit_code").asInt(0) != 0
                      || item.path("status").asString("").equals("failed"),
                  item.path("aggregated_output").asString("").length()));
      case "file_change", "mcp_tool_call", "web_search" -> {
        String kind = item.path("type").asString("");
        sink.event(new TranscriptEvent.ToolCall(id, kind, StreamJson.summary(item.toString())));
        sink.event(
            new TranscriptEvent.ToolResult(
                id, item.path("status").asString("").equals("failed"), item.toString().length()));
      }
      case "error" -> {
        String message = item.path("message").asString("");
        // Berth's own flag (CodexAdapter), not the session's: no warning of the session's.
        if (!message.startsWith(CodexAdapter.HOOK_TRUST_NOTICE)) {
          sink.event(new TranscriptEvent.Warning(message));
        }
      }
      default -> sink.event(new TranscriptEvent.Raw(line));
    }
  }

  private static void errorOrRetry(String message, ProjectionSink sink) {
    Matcher reconnecting = RECONNECTING.matcher(message);
    if (!reconnecting.matches()) {
      error(message, sink);
      return;
    }
    String why = reconnecting.group(3) == null ? "" : reconnecting.group(3);
    Matcher status = STATUS.matcher(why);
    TranscriptEvent.Retry retry =
        new TranscriptEvent.Retry(
            Integer.parseInt(reconnecting.group(1)),
            OptionalInt.of(Integer.parseInt(reconnecting.group(2))),
            OptionalLong.empty(),
            status.find() ? OptionalInt.of(Integer.parseInt(status.group(1))) : OptionalInt.empty(),
            why);
    sink.text(retry.line());
    sink.event(retry);
  }

  private static void error(String message, ProjectionSink sink) {
    sink.text("[codex] " + message + "\n");
    sink.event(new TranscriptEvent.Failure(message));
  }
}
