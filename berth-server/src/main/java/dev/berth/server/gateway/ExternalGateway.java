package dev.berth.server.gateway;

import dev.berth.core.approval.Approval;
import dev.berth.core.approval.ApprovalId;
import dev.berth.core.approval.ApprovalRelay;
import dev.berth.core.approval.ApprovalState;
import dev.berth.core.approval.Approvals;
import dev.berth.core.approval.DecideApproval;
import dev.berth.core.approval.DecideApproval.Decision;
import dev.berth.core.approval.ReadApprovals;
import dev.berth.core.error.ApprovalRefusedException;
import dev.berth.core.store.SessionStore;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Forwards each new approval to an external gateway, with the protocol the sessions' proxies speak
 * to Berth ({@code POST <url>/api/requests}, {@code GET <url>/api/requests/<id>}, {@code
 * x-api-key}), and polls it in the background until it decides; the decision is recorded as {@code
 * decidedBy: gateway}. A gateway that cannot be reached, or answers errors, for longer than the
 * retry window ends the approval REJECTED with the reason {@value #UNAVAILABLE}: the proxy then
 * refuses the call rather than waiting out the timeout. An approval decided through Berth's own API
 * meanwhile (or cancelled, or expired) is no longer polled.
 *
 * <p>The polling lives in this replica's memory, so {@link #resume} takes up from the store what a
 * restart (or a replica that died) left: every approval still waiting is relayed again, which the
 * protocol makes harmless (the same id with the same digest is answered {@code 200}, not a second
 * request). A replica polls an approval at most once at a time; two replicas polling the same one
 * both record the gateway's answer through {@link DecideApproval}, a compare-and-set on the stored
 * state, so one decision lands and the other is refused as decided already.
 */
public final class ExternalGateway implements ApprovalRelay, AutoCloseable {

  /** The reason of an approval the gateway could not decide. */
  public static final String UNAVAILABLE = "gateway unavailable";

  /** Who the decisions are recorded as made by. */
  public static final String DECIDER = "gateway";

  private static final Logger LOG = LoggerFactory.getLogger(ExternalGateway.class);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /**
   * @param url the gateway's base
   * @param key its {@code x-api-key}
   * @param user the {@code userId} sent with each request
   * @param poll how often a pending approval is asked about
   * @param retryWindow how long errors may last before the approval is given up
   */
  public record Settings(
      URI url, String key, Optional<String> user, Duration poll, Duration retryWindow) {
    public Settings {
      Objects.requireNonNull(url, "url");
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(user, "user");
      Objects.requireNonNull(poll, "poll");
      Objects.requireNonNull(retryWindow, "retryWindow");
    }

    @Override
    public String toString() {
      return "ExternalGateway.Settings[" + url + "]"; // never the key
    }
  }

  private final Settings settings;
  private final Approvals approvals;
  private final ReadApprovals read;
  private final DecideApproval decide;
  private final InstantSource clock;
  private final HttpClient http;
  private final ScheduledExecutorService timer;

  /** The approvals this replica forwards or polls now: each is asked about by one chain only. */
  private final Set<ApprovalId> relaying = ConcurrentHashMap.newKeySet();

  public ExternalGateway(
      Settings settings, Approvals approvals, SessionStore sessions, InstantSource clock) {
    this.settings = settings;
    this.approvals = approvals;
    this.read = new ReadApprovals(approvals, sessions, clock);
    this.decide = new DecideApproval(approvals, sessions, clock);
    this.clock = clock;
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "berth-approval-gateway");
              t.setDaemon(true);
              return t;
            });
  }

  @Override
  public void relay(Approval approval) {
    if (relaying.add(approval.id())) {
      execute(() -> forward(approval, clock.instant()));
    }
  }

  /**
   * Relays again every approval the store holds waiting that this replica does not poll already: at
   * start, and with each sweep, so that an approval whose replica restarted or died is decided by
   * the gateway rather than waiting out its expiry. Runs in the background.
   */
  public void resume() {
    execute(
        () -> {
          try {
            approvals.waitingAt(clock.instant()).forEach(this::relay);
          } catch (RuntimeException e) {
            LOG.warn("listing the waiting approvals failed; the next sweep retries", e);
          }
        });
  }

  /** Whether this replica forwards or polls {@code id} now. */
  boolean relaying(ApprovalId id) {
    return relaying.contains(id);
  }

  /** POSTs the approval, again each poll while errors last no longer than the retry window. */
  private void forward(Approval approval, Instant failingSince) {
    if (!stillPending(approval)) {
      done(approval);
      return;
    }
    try {
      HttpResponse<String> answer = send(post(approval));
      if (answer.statusCode() == 200 || answer.statusCode() == 201) {
        schedule(() -> poll(approval, Optional.empty()));
        return;
      }
      LOG.warn(
          "the approval gateway answered {} to approval {}; retrying",
          answer.statusCode(),
          approval.id());
    } catch (IOException e) {
      LOG.warn(
          "the approval gateway is unreachable for approval {}: {}", approval.id(), e.toString());
    }
    retryOrGiveUp(approval, failingSince, () -> forward(approval, failingSince));
  }

  private void poll(Approval approval, Optional<Instant> failingSince) {
    if (!stillPending(approval)) {
      done(approval);
      return;
    }
    try {
      HttpResponse<String> answer =
          send(
              request(URI.create(base() + "/api/requests/" + approval.id().value())).GET().build());
      if (answer.statusCode() == 200) {
        JsonNode body = JSON.readTree(answer.body());
        ApprovalState status = ApprovalState.parse(body.path("status").asString(""));
        Optional<String> reason =
            Optional.ofNullable(body.get("reason"))
                .filter(JsonNode::isString)
                .map(JsonNode::asString);
        if (status == ApprovalState.PENDING) {
          schedule(() -> poll(approval, Optional.empty()));
        } else {
          record(approval, status, reason);
          done(approval);
        }
        return;
      }
      LOG.warn(
          "the approval gateway answered {} for approval {}", answer.statusCode(), approval.id());
    } catch (IOException | JacksonException | dev.berth.core.error.InvalidValueException e) {
      LOG.warn(
          "polling the approval gateway for approval {} failed: {}", approval.id(), e.toString());
    }
    Instant since = failingSince.orElse(clock.instant());
    retryOrGiveUp(approval, since, () -> poll(approval, Optional.of(since)));
  }

  private void retryOrGiveUp(Approval approval, Instant failingSince, Runnable again) {
    if (Duration.between(failingSince, clock.instant()).compareTo(settings.retryWindow()) >= 0) {
      end(approval, Decision.REJECT, Optional.of(UNAVAILABLE));
      done(approval);
    } else {
      schedule(again);
    }
  }

  /** The gateway's final status: its approval approves; any other end rejects, with its reason. */
  private void record(Approval approval, ApprovalState status, Optional<String> reason) {
    if (status == ApprovalState.APPROVED) {
      end(approval, Decision.APPROVE, reason);
    } else {
      end(
          approval,
          Decision.REJECT,
          reason.or(() -> Optional.of("the gateway answered " + status.wireName())));
    }
  }

  private void end(Approval approval, Decision decision, Optional<String> reason) {
    try {
      decide.decide(approval.session(), approval.id(), decision, reason, DECIDER);
    } catch (ApprovalRefusedException decidedMeanwhile) {
      // Berth's own API, a cancel or the expiry came first: that end stands.
    } catch (RuntimeException e) {
      LOG.warn("recording the gateway's decision on approval {} failed", approval.id(), e);
    }
  }

  private boolean stillPending(Approval approval) {
    try {
      return read.find(approval.id()).map(a -> a.state() == ApprovalState.PENDING).orElse(false);
    } catch (RuntimeException e) {
      LOG.warn("reading approval {} failed; asking again", approval.id(), e);
      return true;
    }
  }

  private HttpRequest post(Approval approval) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("id", approval.id().value());
    body.put("tool", approval.tool());
    body.put("argumentsDigest", approval.argumentsDigest());
    body.put("arguments", arguments(approval.argumentsPreview()));
    settings.user().ifPresent(u -> body.put("userId", u));
    return request(URI.create(base() + "/api/requests"))
        .header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
        .build();
  }

  /** The arguments as JSON where the preview is JSON (not cut short), else as the text it is. */
  private static Object arguments(String preview) {
    try {
      return JSON.readTree(preview);
    } catch (JacksonException e) {
      return preview;
    }
  }

  private HttpRequest.Builder request(URI uri) {
    return HttpRequest.newBuilder(uri)
        .timeout(Duration.ofSeconds(10))
        .header("x-api-key", settings.key());
  }

  private HttpResponse<String> send(HttpRequest request) throws IOException {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  private String base() {
    String url = settings.url().toString();
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }

  /** The chain of {@code approval} ended: a later {@link #resume} may take it up again. */
  private void done(Approval approval) {
    relaying.remove(approval.id());
  }

  private void execute(Runnable task) {
    try {
      timer.execute(task);
    } catch (RejectedExecutionException closed) {
      // Closed: the server is stopping, and the next one resumes from the store.
    }
  }

  private void schedule(Runnable task) {
    try {
      // Each task catches its own failures, so the future holds nothing to check.
      java.util.concurrent.Future<?> unused =
          timer.schedule(task, settings.poll().toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException closed) {
      // Closed: the server is stopping, and the next one resumes from the store.
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    http.close();
  }
}
