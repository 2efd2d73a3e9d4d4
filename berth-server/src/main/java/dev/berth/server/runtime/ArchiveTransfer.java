package dev.berth.server.runtime;

import dev.berth.core.agent.CommandContext;
import dev.berth.core.agent.Refusal;
import dev.berth.core.archive.ArchiveStore;
import dev.berth.core.archive.ArchiveUpload;
import dev.berth.core.archive.RestoreProgress;
import dev.berth.core.error.AgentUnreachableException;
import dev.berth.core.session.ArchiveRef;
import dev.berth.core.session.SessionId;
import dev.berth.protocol.contract.CommandHeaders;
import dev.berth.protocol.wire.AgentEndpoints;
import dev.berth.protocol.wire.ArchiveWire;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Moves archives between an agent and the archive store, streamed end to end (never held whole in
 * memory): a checkpoint flows from the agent's {@code checkpoint/prepare} answer into an upload
 * that is committed only when the agent's stream ended cleanly; a restore flows from the store into
 * the agent's {@code restore}. Neither call has an overall timeout: archives can be large.
 */
public final class ArchiveTransfer {

  private final HttpClient http = HttpClient.newHttpClient();
  private final JsonMapper json = JsonMapper.builder().build();
  private final RestoreProgress progress;
  private final StoreEpochStamp epoch;

  /**
   * @param progress where restores report the bytes they have streamed
   */
  public ArchiveTransfer(RestoreProgress progress) {
    this(progress, StoreEpochStamp.none());
  }

  /** As the other constructor, stamping each command with {@code epoch}. */
  public ArchiveTransfer(RestoreProgress progress, StoreEpochStamp epoch) {
    this.progress = progress;
    this.epoch = epoch;
  }

  public ArchiveRef checkpoint(
      AgentEndpoints.Endpoint agent, CommandContext context, long generation, ArchiveStore store) {
    HttpRequest request =
        withContext(
                HttpRequest.newBuilder(
                    URI.create(agent.url("/checkpoint/prepare", "generation=" + generation))),
                agent,
                context)
            .POST(HttpRequest.BodyPublishers.noBody())
            .build();
    HttpResponse<InputStream> response = send(agent, request);
    failOnProblem(agent, response, context);
    List<String> contents =
        response
            .headers()
            .firstValue(ArchiveWire.CONTENTS_HEADER)
            .map(
                v ->
                    Arrays.stream(v.split(","))
                        .map(String::strip)
                        .filter(s -> !s.isEmpty())
                        .toList())
            .orElse(List.of());
    try (InputStream in = response.body();
        ArchiveUpload upload = store.begin(context.session(), generation)) {
      try (OutputStream out = upload.stream()) {
        in.transferTo(out);
      }
      // Asked before the commit: an archive is never recorded without what it left out.
      List<ArchiveRef.Skipped> skipped = skipped(agent, context, generation);
      // Before the commit: the archive store's mark is never below an archive it holds.
      if (epoch.current() > 0) {
        store.recordStoreEpoch(epoch.current());
      }
      return upload.commit(contents).withSkipped(skipped);
    } catch (IOException e) {
      throw new AgentUnreachableException(
          agent.runtimeName(), "the checkpoint stream broke off: " + e, e);
    }
  }

  public void restore(
      AgentEndpoints.Endpoint agent,
      CommandContext context,
      ArchiveRef archive,
      ArchiveStore store) {
    // Opened before the request: a missing archive is a fact about the store, reported as such
    // (the restore fails with ARCHIVE_MISSING), not a broken upload the reconciler would retry.
    InputStream source;
    try {
      source = store.open(archive);
    } catch (dev.berth.core.error.NotFoundException e) {
      throw new dev.berth.core.agent.AgentRefusedException(
          Refusal.ARCHIVE_MISSING,
          "archive generation "
              + archive.generation()
              + " ("
              + archive.uri()
              + ") is not in the archive store; the session cannot be restored from it");
    }
    HttpRequest request =
        withContext(
                HttpRequest.newBuilder(
                    URI.create(
                        agent.url(
                            "/restore",
                            "generation="
                                + archive.generation()
                                + ownerUnlessOwn(archive, context.session())))),
                agent,
                context)
            .header("Content-Type", ArchiveWire.CONTENT_TYPE)
            .POST(
                HttpRequest.BodyPublishers.ofInputStream(
                    () ->
                        progress.counting(
                            context.session(), archive.generation(), archive.sizeBytes(), source)))
            .build();
    try (source) {
      HttpResponse<InputStream> response = send(agent, request);
      failOnProblem(agent, response, context);
      try (InputStream body = response.body()) {
        body.readAllBytes();
      }
    } catch (IOException e) {
      throw new AgentUnreachableException(agent.runtimeName(), e.toString(), e);
    } finally {
      progress.finished(context.session());
    }
  }

  /**
   * The archive stores name a session's archives {@code <scheme>://<session>/<generation>}. The
   * agent checks an archive's identity against the session it restores into, unless told whose
   * archive it is: a recovered session restores the deleted one's.
   */
  private static String ownerUnlessOwn(ArchiveRef archive, SessionId session) {
    Matcher owner = OWNER.matcher(archive.uri());
    if (!owner.lookingAt() || owner.group(1).equals(session.value())) {
      return "";
    }
    return "&archiveSession=" + owner.group(1);
  }

  private static final Pattern OWNER = Pattern.compile("[a-z][a-z0-9+.-]*://([0-9a-f]{32})/");

  /**
   * What the agent left out of the archive of {@code generation} it just streamed, at most {@link
   * ArchiveRef#MAX_SKIPPED} by name and one entry counting the rest.
   */
  private List<ArchiveRef.Skipped> skipped(
      AgentEndpoints.Endpoint agent, CommandContext context, long generation) {
    HttpRequest request =
        withContext(
                HttpRequest.newBuilder(
                    URI.create(agent.url("/checkpoint/" + generation + "/summary", ""))),
                agent,
                context)
            .GET()
            .build();
    HttpResponse<InputStream> response = send(agent, request);
    failOnProblem(agent, response, context);
    JsonNode summary;
    try (InputStream body = response.body()) {
      summary = json.readTree(body);
    } catch (IOException | RuntimeException e) {
      throw new AgentUnreachableException(
          agent.runtimeName(), "unreadable checkpoint summary: " + e, e);
    }
    List<ArchiveRef.Skipped> skipped = new java.util.ArrayList<>();
    JsonNode entries = summary.path("skipped");
    for (JsonNode entry : entries) {
      if (skipped.size() == ArchiveRef.MAX_SKIPPED) {
        skipped.add(
            new ArchiveRef.Skipped(
                ArchiveRef.Skipped.MORE,
                (entries.size() - ArchiveRef.MAX_SKIPPED) + " more entries left out"));
        break;
      }
      skipped.add(
          new ArchiveRef.Skipped(
              entry.path("path").asString(""), entry.path("reason").asString("left out")));
    }
    return skipped;
  }

  /** Plain command calls (abort) go through the same headers. */
  public void abort(AgentEndpoints.Endpoint agent, CommandContext context, long generation) {
    HttpRequest request =
        withContext(
                HttpRequest.newBuilder(
                    URI.create(agent.url("/checkpoint/" + generation + "/abort", ""))),
                agent,
                context)
            .POST(HttpRequest.BodyPublishers.noBody())
            .build();
    HttpResponse<InputStream> response = send(agent, request);
    failOnProblem(agent, response, context);
    try (InputStream body = response.body()) {
      body.readAllBytes();
    } catch (IOException e) {
      throw new AgentUnreachableException(agent.runtimeName(), e.toString(), e);
    }
  }

  private HttpRequest.Builder withContext(
      HttpRequest.Builder request, AgentEndpoints.Endpoint agent, CommandContext context) {
    request.header("Authorization", "Bearer " + agent.token());
    CommandHeaders.of(context).forEach(request::header);
    epoch.stamp(request::header);
    return request;
  }

  private HttpResponse<InputStream> send(AgentEndpoints.Endpoint agent, HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofInputStream());
    } catch (IOException e) {
      throw new AgentUnreachableException(agent.runtimeName(), e.toString(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AgentUnreachableException(agent.runtimeName(), "interrupted", e);
    }
  }

  private void failOnProblem(
      AgentEndpoints.Endpoint agent, HttpResponse<InputStream> response, CommandContext context) {
    if (response.statusCode() < 400) {
      return;
    }
    String text;
    try (InputStream body = response.body()) {
      text = new String(body.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      text = "";
    }
    Optional<JsonNode> problem;
    try {
      problem = Optional.of(json.readTree(text));
    } catch (RuntimeException e) {
      problem = Optional.empty();
    }
    throw AgentWireClient.problem(
        agent.runtimeName(), response.statusCode(), problem, Optional.of(context));
  }
}
