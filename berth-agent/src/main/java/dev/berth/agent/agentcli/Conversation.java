package dev.berth.agent.agentcli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A session's conversation with its CLI, as the next prompt needs it: the conversation id (chosen
 * by Berth for Claude Code, announced by the CLI for Codex), whether a run of it has succeeded,
 * after which a prompt resumes it, and the running totals its CLI last reported ({@link
 * RunningTotals}). Kept in the session's state ({@link #FILE}) so that it travels in the archive: a
 * restored session continues its conversation.
 */
public record Conversation(Optional<String> id, boolean hasRun, RunningTotals totals) {

  /** Where in the session's state directory it is kept. */
  public static final String FILE = ".berth-agent.json";

  private static final JsonMapper JSON = JsonMapper.builder().build();

  public Conversation {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(totals, "totals");
  }

  /** A conversation whose CLI has reported no totals yet. */
  public Conversation(Optional<String> id, boolean hasRun) {
    this(id, hasRun, RunningTotals.NONE);
  }

  /** The same conversation with {@code totals}. */
  public Conversation withTotals(RunningTotals totals) {
    return new Conversation(id, hasRun, totals);
  }

  /** No conversation yet. */
  public static Conversation none() {
    return new Conversation(Optional.empty(), false);
  }

  /** The conversation kept in {@code state}, or none when no run has written one. */
  public static Conversation read(Path state) {
    Path file = state.resolve(FILE);
    if (!Files.isRegularFile(file)) {
      return none();
    }
    try {
      JsonNode node = JSON.readTree(Files.readString(file));
      String id = node.path("conversationId").asString("");
      return new Conversation(
          id.isEmpty() ? Optional.empty() : Optional.of(id),
          node.path("hasRun").asBoolean(false),
          RunningTotals.read(node.path("totals")));
    } catch (IOException | JacksonException e) {
      // A damaged file loses the resume, never the session: the next prompt starts afresh.
      return none();
    }
  }

  /** Writes it to {@code state} atomically (a crash leaves the old or the new one). */
  public void write(Path state) {
    ObjectNode node = JSON.createObjectNode();
    node.put("version", 1);
    id.ifPresent(v -> node.put("conversationId", v));
    node.put("hasRun", hasRun);
    if (!totals.equals(RunningTotals.NONE)) {
      totals.write(node.putObject("totals"));
    }
    Path file = state.resolve(FILE);
    Path next = state.resolve(FILE + ".next");
    try {
      Files.writeString(next, JSON.writeValueAsString(node));
      Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot keep the conversation state in " + file, e);
    }
  }
}
