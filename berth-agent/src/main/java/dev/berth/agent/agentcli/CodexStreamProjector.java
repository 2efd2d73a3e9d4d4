package dev.berth.agent.agentcli;

import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * {@code codex exec --json}, projected. Codex reports whole items, not deltas: an agent message
 * reaches the byte log when it completes, with a newline after it when it has none.
 *
 * <p>{@code thread.started} announces the conversation id, which the next prompt resumes. Errors
 * ({@code error}, {@code turn.failed}) are written to the byte log too, as a line the reader sees
 * where the answer would be. Command executions, file changes, tool calls and web searches become
 * tool calls and results in the transcript; reasoning becomes a summarised thought.
 */
public final class CodexStreamProjector implements StreamProjector {

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
                StreamJson.count(usage.path("input_tokens")),
                StreamJson.count(usage.path("output_tokens")),
                java.util.OptionalDouble.empty()));
      }
      case "turn.failed" ->
          error(event.path("error").path("message").asString("turn failed"), sink);
      case "error" -> error(event.path("message").asString("error"), sink);
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
      case "error" -> error(item.path("message").asString("error"), sink);
      default -> sink.event(new TranscriptEvent.Raw(line));
    }
  }

  private static void error(String message, ProjectionSink sink) {
    sink.text("[codex] " + message + "\n");
    sink.event(new TranscriptEvent.Failure(message));
  }
}
