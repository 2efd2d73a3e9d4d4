package dev.berth.agent.proxy.gate;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The approval gateway's client: {@code POST <gateway>/api/requests} with the call (idempotent
 * under its id: a retry of the same call is answered 200), then {@code GET
 * <gateway>/api/requests/{id}} every {@link #POLL} until the request is decided or the settings'
 * timeout passes. The key goes in {@code x-api-key}. A gateway that keeps failing (no answer, or
 * not 2xx) for longer than {@link #RETRY_WINDOW} is a decision: {@code gateway error}; one that
 * refuses the key or the id at once (401, 403, 404 on the POST, 409) is one at once. A call it
 * gives up on its own is withdrawn ({@code DELETE <gateway>/api/requests/{id}}).
 */
public final class GatewayToolGate implements ToolGate {

  /** How often a pending request is asked about: a person decides in seconds at best. */
  static final Duration POLL = Duration.ofSeconds(1);

  /**
   * How long a gateway that fails the request itself is tried before the call is refused. Once the
   * gateway holds the request, a failing poll is tried until the call's own timeout instead: the
   * approval is stored there and may still be decided (a control plane restarting takes longer than
   * this window, and its pending approvals must not be left for a call already refused).
   */
  static final Duration RETRY_WINDOW = Duration.ofSeconds(5);

  /** How long a withdraw may take: the call is refused meanwhile, whatever it answers. */
  static final Duration WITHDRAW_TIMEOUT = Duration.ofSeconds(5);

  private static final Logger LOG = LoggerFactory.getLogger(GatewayToolGate.class);
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final SecureRandom RANDOM = new SecureRandom();

  private final GateSettings settings;
  private final String session;
  private final HttpClient http;
  private final InstantSource clock;
  private final Duration poll;

  /** The gate of session {@code session} (its id, which every request id starts with). */
  public GatewayToolGate(GateSettings settings, String session) {
    this(
        settings,
        session,
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER)
            .proxy(HttpClient.Builder.NO_PROXY)
            .build(),
        InstantSource.system(),
        POLL);
  }

  GatewayToolGate(
      GateSettings settings, String session, HttpClient http, InstantSource clock, Duration poll) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.session = Objects.requireNonNull(session, "session");
    this.http = http;
    this.clock = clock;
    this.poll = poll;
  }

  @Override
  public String requestId() {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    return session + ":" + HexFormat.of().formatHex(bytes);
  }

  /**
   * {@inheritDoc}
   *
   * <p>When it gives the call up while the gateway may hold the request (its deadline passed, the
   * gateway kept failing, or the exchange went away) it withdraws the request ({@code DELETE
   * <gateway>/api/requests/{id}}), so that nobody approves a call that no longer waits. The
   * withdraw is the gateway's compare-and-set: an approval that landed first is its answer, and
   * since the call is still held then, that approval lets it through.
   */
  @Override
  public Decision decide(String requestId, ToolCall call) throws InterruptedException {
    Instant deadline = clock.instant().plus(settings.timeout());
    Asked asked;
    try {
      asked = ask(requestId, call, deadline);
    } catch (InterruptedException e) {
      withdraw(requestId, "the held call's client went away");
      throw e;
    }
    if (!asked.givenUp()) {
      return asked.decision();
    }
    Optional<Decision> landedFirst =
        withdraw(requestId, asked.decision().reason().orElse(asked.decision().verdict().words()))
            .filter(d -> d.verdict() != Decision.Verdict.CANCELLED);
    return landedFirst.orElse(asked.decision());
  }

  /** A decision, and whether it is this proxy giving the call up rather than the gateway's. */
  private record Asked(Decision decision, boolean givenUp) {
    static Asked gateways(Decision decision) {
      return new Asked(decision, false);
    }

    static Asked givingUp(Decision decision) {
      return new Asked(decision, true);
    }
  }

  private Asked ask(String requestId, ToolCall call, Instant deadline) throws InterruptedException {
    Failing failing = new Failing();
    ObjectNode body = JSON.createObjectNode();
    body.put("id", requestId);
    body.put("tool", call.tool());
    body.put("argumentsDigest", call.argumentsDigest());
    body.set("arguments", call.arguments());
    // The gateway expires the request a grace after this deadline, not before nor long after.
    body.put("holdSeconds", Math.max(1, ceilSeconds(Duration.between(clock.instant(), deadline))));
    HttpRequest create =
        request("/api/requests")
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
            .build();
    while (true) {
      Answer answer = send(create);
      if (answer.ok()) {
        break;
      }
      if (answer.final4xx()) {
        return Asked.gateways(refusedBy(answer, requestId));
      }
      Decision gaveUp = failing.next(answer, deadline);
      if (gaveUp != null) {
        return Asked.givingUp(gaveUp);
      }
    }
    HttpRequest ask =
        request("/api/requests/" + URLEncoder.encode(requestId, StandardCharsets.UTF_8))
            .GET()
            .build();
    failing = new Failing(settings.timeout());
    while (true) {
      Answer answer = send(ask);
      if (answer.ok()) {
        failing = new Failing();
        Optional<Decision> decided = decided(answer.json());
        if (decided.isPresent()) {
          return Asked.gateways(decided.get());
        }
        if (!clock.instant().isBefore(deadline)) {
          return Asked.givingUp(timedOut());
        }
        Thread.sleep(until(deadline, poll));
        continue;
      }
      if (answer.final4xx()) {
        return Asked.gateways(refusedBy(answer, requestId));
      }
      Decision gaveUp = failing.next(answer, deadline);
      if (gaveUp != null) {
        return Asked.givingUp(gaveUp);
      }
    }
  }

  /**
   * Withdraws the request, once and briefly (the call is refused anyway when it cannot): the
   * gateway's answer, a decision that came first, or empty when it gave none. Runs also on a thread
   * whose exchange was interrupted, so the interrupt is set aside meanwhile and set again.
   */
  private Optional<Decision> withdraw(String requestId, String why) {
    boolean interrupted = Thread.interrupted();
    try {
      HttpRequest delete =
          request(
                  "/api/requests/"
                      + URLEncoder.encode(requestId, StandardCharsets.UTF_8)
                      + "?reason="
                      + URLEncoder.encode(why, StandardCharsets.UTF_8))
              .timeout(WITHDRAW_TIMEOUT)
              .DELETE()
              .build();
      Answer answer = send(delete);
      if (!answer.ok()) {
        LOG.info("withdrawing approval request {} failed: {}", requestId, answer.problem());
        return Optional.empty();
      }
      // ERROR is no status the gateway gave (it answered something unreadable): no decision.
      return decided(answer.json()).filter(d -> d.verdict() != Decision.Verdict.ERROR);
    } catch (InterruptedException e) {
      interrupted = true;
      return Optional.empty();
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static long ceilSeconds(Duration duration) {
    long seconds = duration.getSeconds();
    return duration.getNano() > 0 ? seconds + 1 : seconds;
  }

  /** A run of failed attempts: when it has lasted too long, the decision it makes. */
  private final class Failing {
    private final Duration window;
    private @Nullable Instant since;

    Failing() {
      this(RETRY_WINDOW);
    }

    Failing(Duration window) {
      this.window = window;
    }

    @Nullable Decision next(Answer answer, Instant deadline) throws InterruptedException {
      Instant now = clock.instant();
      if (since == null) {
        since = now;
      }
      if (!now.isBefore(deadline)) {
        return timedOut();
      }
      if (Duration.between(since, now).compareTo(window) >= 0) {
        LOG.info("approval gateway {} kept failing: {}", settings.gateway(), answer.problem());
        return Decision.of(Decision.Verdict.ERROR, answer.problem());
      }
      Thread.sleep(until(deadline, Duration.ofMillis(500)));
      return null;
    }
  }

  private Duration until(Instant deadline, Duration most) {
    Duration left = Duration.between(clock.instant(), deadline);
    return left.isNegative() ? Duration.ZERO : left.compareTo(most) < 0 ? left : most;
  }

  private Decision timedOut() {
    return Decision.of(
        Decision.Verdict.TIMED_OUT, "no decision within " + settings.timeout().toSeconds() + " s");
  }

  private static Decision refusedBy(Answer answer, String requestId) {
    return Decision.of(
        Decision.Verdict.ERROR,
        answer.status() == 409
            ? "the gateway holds another call under " + requestId
            : answer.problem());
  }

  private static Optional<Decision> decided(@Nullable JsonNode json) {
    if (json == null) {
      return Optional.of(
          Decision.of(Decision.Verdict.ERROR, "the gateway answered something other than JSON"));
    }
    Optional<String> reason =
        json.path("reason").isString() && !json.path("reason").asString().isBlank()
            ? Optional.of(json.path("reason").asString())
            : Optional.empty();
    String status = json.path("status").asString("");
    return switch (status) {
      case "PENDING" -> Optional.empty();
      case "APPROVED" -> Optional.of(Decision.approval());
      case "REJECTED" -> Optional.of(new Decision(Decision.Verdict.REJECTED, reason));
      case "EXPIRED" -> Optional.of(new Decision(Decision.Verdict.EXPIRED, reason));
      case "CANCELLED" -> Optional.of(new Decision(Decision.Verdict.CANCELLED, reason));
      default ->
          Optional.of(
              Decision.of(
                  Decision.Verdict.ERROR, "the gateway answered status \"" + status + "\""));
    };
  }

  private HttpRequest.Builder request(String path) {
    String base = settings.gateway().toString();
    base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
    return HttpRequest.newBuilder(URI.create(base + path))
        .timeout(Duration.ofSeconds(10))
        .header("x-api-key", settings.key())
        .header("Accept", "application/json");
  }

  /** One attempt's outcome: an HTTP status and body, or no answer (status 0). */
  private record Answer(int status, String body, String problem) {
    boolean ok() {
      return status / 100 == 2;
    }

    /** A refusal that asking again would not change. */
    boolean final4xx() {
      return status == 401 || status == 403 || status == 404 || status == 409 || status == 400;
    }

    @Nullable JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (JacksonException e) {
        return null;
      }
    }
  }

  private Answer send(HttpRequest request) throws InterruptedException {
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      return new Answer(
          response.statusCode(),
          response.body(),
          "the gateway answered " + response.statusCode() + " to " + request.method());
    } catch (IOException e) {
      return new Answer(
          0, "", "the gateway cannot be reached (" + e.getClass().getSimpleName() + ")");
    }
  }
}
