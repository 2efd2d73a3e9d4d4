package dev.berth.agent.agentcli;

import java.util.OptionalDouble;
import java.util.OptionalLong;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Claude Code's {@code --output-format stream-json --verbose --include-partial-messages},
 * projected.
 *
 * <p><b>Byte log</b> (the original platform's projection): the assistant's {@code text_delta}s in
 * order, and the text a {@code content_block_start} already carries; a newline at {@code
 * message_stop} when the message wrote text that did not end with one. The final {@code result} is
 * not written (its text has streamed already), except when no text streamed in the whole run: then
 * it is the answer. A line that is not JSON passes through unchanged; other events are not written.
 *
 * <p><b>Transcript</b>: text deltas, thinking (summarised), tool calls and results, permission
 * denials, errors and the run's usage and cost; events of a type it does not know are kept raw.
 *
 * <p><b>Usage</b>: the {@code result}'s {@code usage} counts this run's tokens, but its {@code
 * total_cost_usd} and the tokens of its {@code modelUsage} are the conversation's running totals
 * (the CLI restores them when it resumes): they are reported as totals, from which the runner
 * derives the turn's own cost ({@link UsageLedger}).
 *
 * <p><b>Retries</b>: {@code system}/{@code api_retry} (the CLI's call to the model failed, it waits
 * and tries again, up to ten times) is a {@code retry} entry and a line of the byte log, so that
 * whoever reads the output sees why the answer is late.
 */
public final class ClaudeStreamProjector implements StreamProjector {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private boolean streamedAny;
  private boolean messageWrote;
  private boolean messageEndsWithNewline = true;

  @Override
  public void line(String line, ProjectionSink sink) {
    JsonNode event = StreamJson.parse(line);
    if (event == null) {
      sink.text(line + "\n");
      return;
    }
    switch (event.path("type").asString("")) {
      case "stream_event" -> streamEvent(event.path("event"), sink);
      case "assistant" -> assistant(event.path("message"), sink);
      case "user" -> user(event.path("message"), sink);
      case "result" -> result(event, sink);
      case "system" -> system(event, line, sink);
      default -> sink.event(new TranscriptEvent.Raw(line));
    }
  }

  @Override
  public void end(ProjectionSink sink) {
    endLine(sink);
    messageWrote = false;
  }

  /** Ends the line a message left open, so that what the byte log gets next starts a line. */
  private void endLine(ProjectionSink sink) {
    if (messageWrote && !messageEndsWithNewline) {
      sink.text("\n");
      messageEndsWithNewline = true;
    }
  }

  private void streamEvent(JsonNode event, ProjectionSink sink) {
    switch (event.path("type").asString("")) {
      case "message_start" -> {
        messageWrote = false;
        messageEndsWithNewline = true;
      }
      case "content_block_start" -> {
        JsonNode block = event.path("content_block");
        if (block.path("type").asString("").equals("text")) {
          write(block.path("text").asString(""), sink);
        }
      }
      case "content_block_delta" -> {
        JsonNode delta = event.path("delta");
        if (delta.path("type").asString("").equals("text_delta")) {
          write(delta.path("text").asString(""), sink);
        }
      }
      case "message_stop" -> end(sink);
      default -> {
        // message_delta, content_block_stop, thinking and tool-input deltas: the assistant and
        // user events that follow carry them whole.
      }
    }
  }

  private void write(String text, ProjectionSink sink) {
    if (text.isEmpty()) {
      return;
    }
    sink.text(text);
    sink.event(new TranscriptEvent.AssistantText(text));
    streamedAny = true;
    messageWrote = true;
    messageEndsWithNewline = text.endsWith("\n");
  }

  /** A whole assistant message: its text has streamed; its thoughts and tool calls are noted. */
  private static void assistant(JsonNode message, ProjectionSink sink) {
    for (JsonNode block : message.path("content")) {
      switch (block.path("type").asString("")) {
        case "thinking" -> {
          String thought = block.path("thinking").asString("");
          sink.event(new TranscriptEvent.Thinking(StreamJson.summary(thought), thought.length()));
        }
        case "tool_use" ->
            sink.event(
                new TranscriptEvent.ToolCall(
                    block.path("id").asString(""),
                    block.path("name").asString(""),
                    StreamJson.summary(JSON.writeValueAsString(block.path("input")))));
        default -> {
          // text: streamed already.
        }
      }
    }
  }

  private static void user(JsonNode message, ProjectionSink sink) {
    for (JsonNode block : message.path("content")) {
      if (block.path("type").asString("").equals("tool_result")) {
        JsonNode content = block.path("content");
        long size =
            content.isString() ? content.asString("").length() : content.toString().length();
        sink.event(
            new TranscriptEvent.ToolResult(
                block.path("tool_use_id").asString(""),
                block.path("is_error").asBoolean(false),
                size));
      }
    }
  }

  private void result(JsonNode result, ProjectionSink sink) {
    if (!streamedAny) {
      String text = result.path("result").asString("");
      if (!text.isEmpty()) {
        sink.text(text.endsWith("\n") ? text : text + "\n");
        sink.event(new TranscriptEvent.AssistantText(text));
      }
    }
    if (result.path("is_error").asBoolean(false)) {
      String message = result.path("result").asString("");
      sink.event(
          new TranscriptEvent.Failure(
              message.isEmpty() ? result.path("subtype").asString("error") : message));
    }
    JsonNode usage = result.path("usage");
    JsonNode models = result.path("modelUsage");
    sink.event(
        new TranscriptEvent.Usage(
            StreamJson.count(usage.path("input_tokens")),
            StreamJson.count(usage.path("output_tokens")),
            OptionalDouble.empty(),
            sum(models, "inputTokens"),
            sum(models, "outputTokens"),
            result.path("total_cost_usd").isNumber()
                ? OptionalDouble.of(result.path("total_cost_usd").asDouble())
                : OptionalDouble.empty()));
  }

  /** The sum of {@code field} over the models of {@code modelUsage}; none when one lacks it. */
  private static OptionalLong sum(JsonNode models, String field) {
    if (!models.isObject() || models.isEmpty()) {
      return OptionalLong.empty();
    }
    long sum = 0;
    for (JsonNode model : models) {
      OptionalLong count = StreamJson.count(model.path(field));
      if (count.isEmpty()) {
        return OptionalLong.empty();
      }
      sum += count.getAsLong();
    }
    return OptionalLong.of(sum);
  }

  private void system(JsonNode event, String line, ProjectionSink sink) {
    switch (event.path("subtype").asString("")) {
      case "init", "status" -> {
        // The run's set-up and progress: nothing a reader of the transcript needs.
      }
      case "api_retry" -> {
        TranscriptEvent.Retry retry =
            new TranscriptEvent.Retry(
                event.path("attempt").asInt(0),
                StreamJson.integer(event.path("max_retries")),
                StreamJson.count(event.path("retry_delay_ms")),
                StreamJson.integer(event.path("error_status")),
                event.path("error").asString(""));
        endLine(sink);
        sink.text(retry.line());
        sink.event(retry);
      }
      case "permission_denied" ->
          sink.event(
              new TranscriptEvent.PermissionDenied(
                  event.path("tool_name").asString(""), event.path("message").asString("")));
      default -> sink.event(new TranscriptEvent.Raw(line));
    }
  }
}
