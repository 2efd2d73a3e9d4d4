package dev.berth.agent.agentcli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A session's transcript: one JSON object per line in {@code transcript.jsonl} of its state (so
 * that it travels in the archive), numbered from 1. A reader's cursor is the number of the last
 * entry it has; entries are never rewritten.
 *
 * <p>Each entry: {@code seq}, {@code at} (ISO-8601), {@code execution} (the prompt's execution id),
 * {@code type} ({@link TranscriptEvent#type()}) and the event's own fields.
 */
public final class TranscriptLog {

  public static final String FILE = "transcript.jsonl";

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final Path file;
  private final Clock clock;
  private final Object lock = new Object();
  private long last;
  private boolean closed;

  private TranscriptLog(Path file, Clock clock, long last) {
    this.file = file;
    this.clock = clock;
    this.last = last;
  }

  /** Opens the transcript in {@code state}, continuing its numbering. */
  public static TranscriptLog open(Path state, Clock clock) {
    Path file = state.resolve(FILE);
    long last = 0;
    if (Files.isRegularFile(file)) {
      try (var lines = Files.lines(file, StandardCharsets.UTF_8)) {
        last = lines.filter(l -> !l.isBlank()).count();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the transcript " + file, e);
      }
    }
    return new TranscriptLog(file, clock, last);
  }

  /** Appends {@code event} of the prompt {@code execution}; its number. */
  public long append(String execution, TranscriptEvent event) {
    synchronized (lock) {
      ObjectNode entry = JSON.createObjectNode();
      entry.put("seq", last + 1);
      entry.put("at", clock.instant().toString());
      entry.put("execution", execution);
      entry.put("type", event.type());
      fields(event, entry);
      try {
        Files.writeString(
            file,
            JSON.writeValueAsString(entry) + "\n",
            StandardCharsets.UTF_8,
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot append to the transcript " + file, e);
      }
      last++;
      lock.notifyAll();
      return last;
    }
  }

  /** The number of entries so far: the cursor after the last. */
  public long size() {
    synchronized (lock) {
      return last;
    }
  }

  /**
   * Waits up to {@code wait} for an entry after {@code cursor}, or for the log to close; whether
   * there is one.
   */
  public boolean awaitBeyond(long cursor, java.time.Duration wait) throws InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    synchronized (lock) {
      while (last <= cursor && !closed) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(lock, left);
      }
      return last > cursor;
    }
  }

  /** Ends the waits: the runtime is going away, and whoever follows the log stops. */
  public void close() {
    synchronized (lock) {
      closed = true;
      lock.notifyAll();
    }
  }

  /** Whether {@link #close} was called. */
  public boolean closed() {
    synchronized (lock) {
      return closed;
    }
  }

  /** Up to {@code max} entries after {@code cursor}, in order. */
  public List<JsonNode> after(long cursor, int max) {
    List<JsonNode> entries = new ArrayList<>();
    // Under the append lock and up to the entries counted: never a line half written.
    synchronized (lock) {
      long available = last - Math.max(0, cursor);
      if (available <= 0 || !Files.isRegularFile(file)) {
        return entries;
      }
      try (var lines = Files.lines(file, StandardCharsets.UTF_8)) {
        lines
            .filter(l -> !l.isBlank())
            .skip(Math.max(0, cursor))
            .limit(Math.min(max, available))
            .forEach(l -> entries.add(JSON.readTree(l)));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the transcript " + file, e);
      }
    }
    return entries;
  }

  private static void fields(TranscriptEvent event, ObjectNode entry) {
    switch (event) {
      case TranscriptEvent.TurnStarted t -> {
        entry.put("prompt", t.prompt());
        t.model().ifPresent(m -> entry.put("model", m));
      }
      case TranscriptEvent.AssistantText t -> entry.put("text", t.text());
      case TranscriptEvent.Thinking t -> {
        entry.put("summary", t.summary());
        entry.put("length", t.length());
      }
      case TranscriptEvent.ToolCall t -> {
        entry.put("id", t.id());
        entry.put("name", t.name());
        entry.put("input", t.inputSummary());
      }
      case TranscriptEvent.ToolResult t -> {
        entry.put("id", t.id());
        entry.put("error", t.error());
        entry.put("size", t.size());
      }
      case TranscriptEvent.PermissionDenied t -> {
        entry.put("tool", t.tool());
        entry.put("message", t.message());
      }
      case TranscriptEvent.Failure t -> entry.put("message", t.message());
      case TranscriptEvent.Usage t -> {
        t.inputTokens().ifPresent(v -> entry.put("inputTokens", v));
        t.outputTokens().ifPresent(v -> entry.put("outputTokens", v));
        t.costUsd().ifPresent(v -> entry.put("costUsd", v));
      }
      case TranscriptEvent.TurnFinished t -> {
        entry.put("outcome", t.outcome());
        t.exitStatus().ifPresent(v -> entry.put("exitStatus", v));
      }
      case TranscriptEvent.Raw t -> entry.set("event", parseOrText(t.json()));
    }
  }

  private static JsonNode parseOrText(String json) {
    return Optional.ofNullable(StreamJson.parse(json))
        .orElseGet(() -> JSON.getNodeFactory().stringNode(json));
  }
}
