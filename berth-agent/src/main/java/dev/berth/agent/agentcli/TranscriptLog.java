package dev.berth.agent.agentcli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
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
 *
 * <p>Reads seek: the log keeps the byte offset of every {@value #STRIDE}th entry, so that a read
 * after cursor {@code c} starts at most {@value #STRIDE} lines before it instead of at the file's
 * start (a follower reads after every entry, so reading from the start made a long session's
 * transcript cost the square of its length). A read takes the lock only to note where to start and
 * how many entries exist; it reads the file outside it, so a slow reader never holds up the
 * runner's appends. A crash in the middle of an append leaves a torn last line: opening the log
 * cuts it off (that entry is lost, every earlier one kept), and an append that fails cuts its own
 * bytes off again, so the file never holds half an entry before a whole one.
 *
 * <p>Its size is capped ({@link #DEFAULT_CAP}, 256 MiB, as the session's byte log is): the entry
 * that would pass the cap is replaced by one {@code error} entry that says so ({@link #FULL}), and
 * later entries are not kept. The byte log still takes the output up to its own cap; where the host
 * is root, it keeps room on the session's disk for both (see {@code HostConfig#diskReserveBytes},
 * at most the disk's cap).
 */
public final class TranscriptLog {

  public static final String FILE = "transcript.jsonl";

  /** One entry in this many has its byte offset kept. */
  static final int STRIDE = 64;

  /** The most a session's transcript holds. */
  public static final long DEFAULT_CAP = 256L << 20;

  /**
   * The execution of the last entry of a full transcript: no prompt's (theirs are made by the node,
   * {@code x-…}), so that no CLI event can pass for it.
   */
  static final String FULL_EXECUTION = "berth";

  /** The message of the last entry of a full transcript. */
  public static final String FULL =
      "[berth: transcript limit reached; later entries are not kept (the output is still in the"
          + " byte log)]";

  // Room under the cap for that last entry.
  private static final long FULL_ENTRY_ROOM = 4096;

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(TranscriptLog.class);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final Path file;
  private final Clock clock;
  private final Object lock = new Object();
  // Byte offsets of entries 0, STRIDE, 2 * STRIDE, ... (counted from 0).
  private final List<Long> index;
  private final long cap;
  private long last;
  private long length;
  private boolean full;
  private boolean closed;

  private TranscriptLog(
      Path file, Clock clock, List<Long> index, long last, long length, long cap) {
    this.file = file;
    this.clock = clock;
    this.index = index;
    this.last = last;
    this.length = length;
    this.cap = cap;
  }

  /** Opens the transcript in {@code state}, continuing its numbering. */
  public static TranscriptLog open(Path state, Clock clock) {
    return open(state, clock, DEFAULT_CAP, true);
  }

  /**
   * Opens the transcript of a runtime that runs nothing, to read it: a torn last entry is left as
   * it is (the runtime's own next open cuts it off) and not read.
   */
  public static TranscriptLog read(Path state, Clock clock) {
    return open(state, clock, DEFAULT_CAP, false);
  }

  /** As {@link #open(Path, Clock)} with another cap (tests fill a small one). */
  static TranscriptLog open(Path state, Clock clock, long cap) {
    return open(state, clock, cap, true);
  }

  private static TranscriptLog open(Path state, Clock clock, long cap, boolean repair) {
    Path file = state.resolve(FILE);
    List<Long> index = new ArrayList<>();
    long entries = 0;
    long whole = 0;
    long lastEntry = 0;
    if (Files.isRegularFile(file)) {
      try (var in = new java.io.BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
        long offset = 0;
        long lineStart = 0;
        boolean blank = true;
        int b;
        while ((b = in.read()) >= 0) {
          offset++;
          if (b == '\n') {
            if (!blank) {
              if (entries % STRIDE == 0) {
                index.add(lineStart);
              }
              lastEntry = lineStart;
              entries++;
            }
            whole = offset;
            lineStart = offset;
            blank = true;
          } else if (b != ' ' && b != '\t' && b != '\r') {
            blank = false;
          }
        }
        if (offset > whole && repair) {
          LOG.warn(
              "the transcript {} ends in a torn entry ({} bytes, a crash while it was written):"
                  + " it is cut off, the {} entries before it are kept",
              file,
              offset - whole,
              entries);
          try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(whole);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the transcript " + file, e);
      }
    }
    TranscriptLog log = new TranscriptLog(file, clock, index, entries, whole, cap);
    log.full = entries > 0 && isFullMarker(file, lastEntry);
    return log;
  }

  /** Whether the entry at {@code offset} is the one that ends a full transcript. */
  private static boolean isFullMarker(Path file, long offset) {
    try (var lines = lines(file, offset)) {
      String line = lines.readLine();
      if (line == null) {
        return false;
      }
      JsonNode entry = JSON.readTree(line);
      return entry.path("type").asString("").equals("error")
          && entry.path("execution").asString("").equals(FULL_EXECUTION)
          && entry.path("message").asString("").equals(FULL);
    } catch (IOException | tools.jackson.core.JacksonException e) {
      return false;
    }
  }

  /**
   * Appends {@code event} of the prompt {@code execution}; its number. Once the transcript is full,
   * nothing is appended and the number is the last entry's.
   */
  public long append(String execution, TranscriptEvent event) {
    synchronized (lock) {
      if (full) {
        return last;
      }
      byte[] line = line(execution, event);
      boolean fills = length + line.length > cap - FULL_ENTRY_ROOM;
      if (fills) {
        line = line(FULL_EXECUTION, new TranscriptEvent.Failure(FULL));
      }
      write(line);
      full = fills;
      if (last % STRIDE == 0) {
        index.add(length);
      }
      length += line.length;
      last++;
      lock.notifyAll();
      return last;
    }
  }

  private byte[] line(String execution, TranscriptEvent event) {
    ObjectNode entry = JSON.createObjectNode();
    entry.put("seq", last + 1);
    entry.put("at", clock.instant().toString());
    entry.put("execution", execution);
    entry.put("type", event.type());
    fields(event, entry);
    return (JSON.writeValueAsString(entry) + "\n").getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Under the lock: appends {@code line} whole, or leaves the file as it was and throws. Through a
   * stream an interrupt does not close (the runner's thread is interrupted when its runtime stops,
   * and the end of the prompt it ran is still written).
   */
  private void write(byte[] line) {
    try (var out = new java.io.FileOutputStream(file.toFile(), true)) {
      out.write(line);
    } catch (IOException e) {
      // A full disk may have taken part of the line: cut it off, so the next entry starts clean.
      try (var cut = new java.io.RandomAccessFile(file.toFile(), "rw")) {
        cut.setLength(length);
      } catch (IOException again) {
        e.addSuppressed(again);
      }
      throw new UncheckedIOException("cannot append to the transcript " + file, e);
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
    long from = Math.max(0, cursor);
    long count;
    long start;
    synchronized (lock) {
      count = Math.min(max, last - from);
      if (count <= 0) {
        return List.of();
      }
      start = index.get((int) (from / STRIDE));
    }
    // Entries before the count are whole and never change: read without the lock, from the kept
    // offset at or before the cursor.
    long skip = from % STRIDE;
    List<JsonNode> entries = new ArrayList<>();
    try (var lines = lines(file, start)) {
      String line;
      while (entries.size() < count && (line = lines.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        if (skip > 0) {
          skip--;
          continue;
        }
        entries.add(JSON.readTree(line));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the transcript " + file, e);
    }
    return entries;
  }

  /**
   * Every entry of type {@code type} so far, in order: one pass over the file that parses only the
   * lines that name the type (a node reads a session's approvals so, once).
   */
  public List<JsonNode> ofType(String type) {
    long count = size();
    String named = "\"type\":" + JSON.writeValueAsString(type);
    List<JsonNode> entries = new ArrayList<>();
    try (var lines = lines(file, 0)) {
      String line;
      long read = 0;
      while (read < count && (line = lines.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        read++;
        if (line.contains(named)) {
          JsonNode entry = JSON.readTree(line);
          if (entry.path("type").asString("").equals(type)) {
            entries.add(entry);
          }
        }
      }
    } catch (java.nio.file.NoSuchFileException e) {
      return List.of();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the transcript " + file, e);
    }
    return entries;
  }

  /** The file's lines from the byte {@code offset} on (the start of a line). */
  private static java.io.BufferedReader lines(Path file, long offset) throws IOException {
    FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
    try {
      return new java.io.BufferedReader(
          new java.io.InputStreamReader(
              java.nio.channels.Channels.newInputStream(channel.position(offset)),
              StandardCharsets.UTF_8),
          1 << 16);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
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
      case TranscriptEvent.Warning t -> entry.put("message", t.message());
      case TranscriptEvent.Retry t -> {
        entry.put("attempt", t.attempt());
        t.maxAttempts().ifPresent(v -> entry.put("maxAttempts", v));
        t.delayMs().ifPresent(v -> entry.put("delayMs", v));
        t.status().ifPresent(v -> entry.put("status", v));
        entry.put("message", t.message());
      }
      case TranscriptEvent.Usage t -> {
        t.inputTokens().ifPresent(v -> entry.put("inputTokens", v));
        t.outputTokens().ifPresent(v -> entry.put("outputTokens", v));
        t.costUsd().ifPresent(v -> entry.put("costUsd", v));
        t.totalInputTokens().ifPresent(v -> entry.put("totalInputTokens", v));
        t.totalOutputTokens().ifPresent(v -> entry.put("totalOutputTokens", v));
        t.totalCostUsd().ifPresent(v -> entry.put("totalCostUsd", v));
      }
      case TranscriptEvent.TurnFinished t -> {
        entry.put("outcome", t.outcome());
        t.exitStatus().ifPresent(v -> entry.put("exitStatus", v));
      }
      case TranscriptEvent.Raw t -> entry.set("event", parseOrText(t.json()));
      case TranscriptEvent.Approval t -> {
        entry.put("approvalId", t.approvalId());
        entry.put("tool", t.tool());
        entry.put("state", t.state());
        t.reason().ifPresent(r -> entry.put("reason", r));
      }
    }
  }

  private static JsonNode parseOrText(String json) {
    return Optional.ofNullable(StreamJson.parse(json))
        .orElseGet(() -> JSON.getNodeFactory().stringNode(json));
  }
}
