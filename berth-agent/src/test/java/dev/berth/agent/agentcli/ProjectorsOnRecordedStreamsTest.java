package dev.berth.agent.agentcli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Both projectors on streams the real CLIs printed (Claude Code 2.1.328, Codex 0.169.0) when they
 * ran against the tests' fake model provider; the files are committed under {@code agentcli/}
 * (codex-tool-call.jsonl: Codex running the {@code exec_command} the fake provider scripts, as in
 * {@code PromptRunnerWithRealClisTest}).
 */
class ProjectorsOnRecordedStreamsTest {

  @Test
  void claudesStreamedAnswerIsTheByteLogOnceWithANewlineAtTheMessageEnd() throws IOException {
    RecordingSink sink = project(new ClaudeStreamProjector(), "claude-answer.jsonl");

    // The deltas, not the final result too: the answer is written once.
    assertThat(sink.text()).isEqualTo("Hello from the fake ü provider.\n");
    assertThat(sink.events(TranscriptEvent.AssistantText.class))
        .extracting(TranscriptEvent.AssistantText::text)
        .containsExactly("Hello", " from", " the fake ü provider.");
    TranscriptEvent.Usage usage = sink.events(TranscriptEvent.Usage.class).getFirst();
    assertThat(usage.inputTokens()).hasValue(10);
    assertThat(usage.outputTokens()).hasValue(5);
    assertThat(usage.costUsd()).isPresent();
    assertThat(sink.events(TranscriptEvent.Raw.class)).isEmpty();
  }

  @Test
  void claudesToolCallItsDenialAndTheResultAreInTheTranscriptNotTheByteLog() throws IOException {
    RecordingSink sink = project(new ClaudeStreamProjector(), "claude-tool-denied.jsonl");

    TranscriptEvent.ToolCall call = sink.events(TranscriptEvent.ToolCall.class).getFirst();
    assertThat(call.name()).isEqualTo("Bash");
    assertThat(call.inputSummary()).contains("touch marker.txt");
    assertThat(sink.events(TranscriptEvent.PermissionDenied.class))
        .extracting(TranscriptEvent.PermissionDenied::tool)
        .containsExactly("Bash");
    assertThat(sink.events(TranscriptEvent.ToolResult.class))
        .singleElement()
        .satisfies(result -> assertThat(result.id()).isEqualTo(call.id()));
    assertThat(sink.text()).isEqualTo("Hello from the fake ü provider.\n");
  }

  @Test
  void aLineThatIsNotJsonPassesThroughAndAResultIsTheAnswerOnlyWhenNothingStreamed() {
    RecordingSink sink = new RecordingSink();
    ClaudeStreamProjector projector = new ClaudeStreamProjector();

    projector.line("npm notice: something", sink);
    projector.line(
        "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"only this\","
            + "\"usage\":{\"input_tokens\":1,\"output_tokens\":2}}",
        sink);

    assertThat(sink.text()).isEqualTo("npm notice: something\nonly this\n");
  }

  @Test
  void anEventOfAnUnknownTypeIsKeptRawInTheTranscript() {
    RecordingSink sink = new RecordingSink();
    new ClaudeStreamProjector().line("{\"type\":\"something_new\",\"x\":1}", sink);

    assertThat(sink.events(TranscriptEvent.Raw.class))
        .extracting(TranscriptEvent.Raw::json)
        .containsExactly("{\"type\":\"something_new\",\"x\":1}");
    assertThat(sink.text()).isEmpty();
  }

  @Test
  void codexsAgentMessageIsTheByteLogAndItsThreadIdTheConversation() throws IOException {
    CodexStreamProjector projector = new CodexStreamProjector();
    RecordingSink sink = project(projector, "codex-answer.jsonl");

    assertThat(sink.text()).isEqualTo("Hello from the fake ü provider.\n");
    assertThat(projector.announcedConversation()).hasValue("01a2338c-e1e3-7f40-bac7-eefc20d9b1ce");
    assertThat(sink.events(TranscriptEvent.Usage.class).getFirst().inputTokens()).hasValue(12);
  }

  @Test
  void codexsCommandIsACallAndAResultInTheTranscriptAndOnlyItsAnswerInTheByteLog()
      throws IOException {
    CodexStreamProjector projector = new CodexStreamProjector();
    RecordingSink sink = project(projector, "codex-tool-call.jsonl");

    assertThat(sink.events(TranscriptEvent.ToolCall.class)).hasSize(1);
    TranscriptEvent.ToolCall call = sink.events(TranscriptEvent.ToolCall.class).getFirst();
    assertThat(call.name()).isEqualTo("command");
    assertThat(call.inputSummary()).contains("touch marker.txt");
    assertThat(sink.events(TranscriptEvent.ToolResult.class))
        .singleElement()
        .satisfies(
            result -> {
              assertThat(result.id()).isEqualTo(call.id());
              assertThat(result.error()).isFalse();
            });
    // Codex reports a model it has no metadata for as an error item, though the turn goes on:
    // it is kept as Codex labelled it, a line of the byte log before the answer.
    assertThat(sink.text())
        .isEqualTo(
            "[codex] Model metadata for `gpt-5-codex` not found. Defaulting to fallback metadata;"
                + " this can degrade performance and cause issues.\nDone.\n");
    assertThat(projector.announcedConversation()).hasValue("01a2359b-dfa0-7e92-80ff-54d90f6f1515");
    assertThat(sink.events(TranscriptEvent.Usage.class).getFirst().outputTokens()).hasValue(12);
  }

  @Test
  void codexsErrorsReachTheByteLogAsALineAndTheTranscriptAsAnError() {
    RecordingSink sink = new RecordingSink();
    new CodexStreamProjector()
        .line("{\"type\":\"turn.failed\",\"error\":{\"message\":\"stream disconnected\"}}", sink);

    assertThat(sink.text()).isEqualTo("[codex] stream disconnected\n");
    assertThat(sink.events(TranscriptEvent.Failure.class))
        .extracting(TranscriptEvent.Failure::message)
        .containsExactly("stream disconnected");
  }

  private static RecordingSink project(StreamProjector projector, String fixture)
      throws IOException {
    RecordingSink sink = new RecordingSink();
    for (String line : lines(fixture)) {
      projector.line(line, sink);
    }
    projector.end(sink);
    return sink;
  }

  private static List<String> lines(String fixture) throws IOException {
    try (InputStream in =
        ProjectorsOnRecordedStreamsTest.class.getResourceAsStream("/agentcli/" + fixture)) {
      assertThat(in).as(fixture).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    }
  }
}
