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
 * {@code PromptRunnerWithRealClisTest}; claude-retried.jsonl and codex-retried.jsonl: the second
 * turn of a conversation while the fake provider answered 502 three and seven times).
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
    // The cost Claude Code reports is the conversation's so far: the runner derives the turn's.
    assertThat(usage.costUsd()).isEmpty();
    assertThat(usage.totalCostUsd()).hasValue(0.00014000000000000001);
    assertThat(usage.totalInputTokens()).hasValue(10);
    assertThat(sink.events(TranscriptEvent.Raw.class)).isEmpty();
  }

  @Test
  void claudesApiRetriesAreRetryEntriesAndLinesOfTheByteLogBeforeTheAnswer() throws IOException {
    // The second turn of a conversation, the fake provider answering 502 three times first.
    RecordingSink sink = project(new ClaudeStreamProjector(), "claude-retried.jsonl");

    assertThat(sink.text())
        .isEqualTo(
            "[model API error 502 (server_error); retry 1 of 10 in 0.6 s]\n"
                + "[model API error 502 (server_error); retry 2 of 10 in 1.2 s]\n"
                + "[model API error 502 (server_error); retry 3 of 10 in 2.3 s]\n"
                + "Hello from the fake provider.\n");
    assertThat(sink.events(TranscriptEvent.Retry.class))
        .extracting(TranscriptEvent.Retry::attempt)
        .containsExactly(1, 2, 3);
    TranscriptEvent.Retry first = sink.events(TranscriptEvent.Retry.class).getFirst();
    assertThat(first.maxAttempts()).hasValue(10);
    assertThat(first.delayMs()).hasValue(588);
    assertThat(first.status()).hasValue(502);
    assertThat(first.message()).isEqualTo("server_error");
    assertThat(sink.events(TranscriptEvent.Failure.class)).isEmpty();
    assertThat(sink.events(TranscriptEvent.Raw.class)).isEmpty();
    // Tokens of this turn, cost and tokens of the conversation so far.
    TranscriptEvent.Usage usage = sink.events(TranscriptEvent.Usage.class).getFirst();
    assertThat(usage.inputTokens()).hasValue(10);
    assertThat(usage.totalInputTokens()).hasValue(20);
    assertThat(usage.totalOutputTokens()).hasValue(10);
    assertThat(usage.totalCostUsd()).hasValue(0.00028000000000000003);
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
    // Codex counts the thread's tokens so far: totals, from which the runner derives the turn's.
    TranscriptEvent.Usage usage = sink.events(TranscriptEvent.Usage.class).getFirst();
    assertThat(usage.totalInputTokens()).hasValue(12);
    assertThat(usage.inputTokens()).isEmpty();
    assertThat(usage.totalCostUsd()).isEmpty();
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
    // Codex reports a model it has no metadata for as an error item, though the turn goes on (its
    // exec reports every warning so): a warning in the transcript, not an error, and not in the
    // byte log, which has the answer only.
    assertThat(sink.text()).isEqualTo("Done.\n");
    assertThat(sink.events(TranscriptEvent.Warning.class))
        .extracting(TranscriptEvent.Warning::message)
        .containsExactly(
            "Model metadata for `gpt-5-codex` not found. Defaulting to fallback metadata;"
                + " this can degrade performance and cause issues.");
    assertThat(sink.events(TranscriptEvent.Failure.class)).isEmpty();
    assertThat(projector.announcedConversation()).hasValue("01a2359b-dfa0-7e92-80ff-54d90f6f1515");
    assertThat(sink.events(TranscriptEvent.Usage.class).getFirst().totalOutputTokens())
        .hasValue(12);
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

  @Test
  void codexsReconnectIsARetryAndALineOfTheByteLogNotAnError() throws IOException {
    // The fake provider answered 502 seven times: Codex retried four silently, then reconnected.
    RecordingSink sink = project(new CodexStreamProjector(), "codex-retried.jsonl");

    assertThat(sink.text())
        .isEqualTo(
            "[model API error 502 (unexpected status 502 Bad Gateway: bad gateway (fake), url:"
                + " http://127.0.0.1:37639/v1/responses); retry 1 of 5]\n"
                + "Hello from the fake provider.\n");
    TranscriptEvent.Retry retry = sink.events(TranscriptEvent.Retry.class).getFirst();
    assertThat(retry.attempt()).isEqualTo(1);
    assertThat(retry.maxAttempts()).hasValue(5);
    assertThat(retry.status()).hasValue(502);
    assertThat(retry.delayMs()).isEmpty();
    assertThat(sink.events(TranscriptEvent.Failure.class)).isEmpty();
    assertThat(sink.events(TranscriptEvent.Usage.class).getFirst().totalInputTokens()).hasValue(24);
  }

  @Test
  void codexsOtherErrorEventsStayErrors() {
    RecordingSink sink = new RecordingSink();
    new CodexStreamProjector().line("{\"type\":\"error\",\"message\":\"Reconnecting soon\"}", sink);

    assertThat(sink.text()).isEqualTo("[codex] Reconnecting soon\n");
    assertThat(sink.events(TranscriptEvent.Failure.class))
        .extracting(TranscriptEvent.Failure::message)
        .containsExactly("Reconnecting soon");
    assertThat(sink.events(TranscriptEvent.Retry.class)).isEmpty();
  }

  static RecordingSink project(StreamProjector projector, String fixture) throws IOException {
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
