package dev.berth.agent.proxy.gate;

import dev.berth.agent.proxy.ProviderProfile;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A session's approval gate as its credential proxy runs it: which calls wait ({@link GatePolicy}),
 * who decides ({@link ToolGate}), the secrets kept out of what the decider sees, and how often a
 * held answer gets a keepalive. Each answer gets its own {@link AnswerGate}.
 */
public final class Gatekeeper {

  /**
   * How often a held answer gets a keepalive: well inside the CLIs' idle limits (Claude Code's
   * stream watchdog and Codex's {@code stream_idle_timeout_ms} both default to 5 minutes) and any
   * proxy's between.
   */
  public static final Duration KEEPALIVE = Duration.ofSeconds(10);

  private final GatePolicy policy;
  private final ToolGate gate;
  private final List<String> secrets;
  private final Duration keepalive;
  private final MarkerRecord markers = new MarkerRecord();

  public Gatekeeper(GatePolicy policy, ToolGate gate, List<String> secrets, Duration keepalive) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.gate = Objects.requireNonNull(gate, "gate");
    this.secrets = List.copyOf(secrets);
    this.keepalive = Objects.requireNonNull(keepalive, "keepalive");
  }

  /** The gate of session {@code session} with {@code settings}, asking their gateway. */
  public static Gatekeeper of(GateSettings settings, String session, List<String> secrets) {
    return new Gatekeeper(
        new GatePolicy(settings.policy()),
        new GatewayToolGate(settings, session),
        secrets,
        KEEPALIVE);
  }

  /**
   * The gate for one answer of {@code api}: an event stream is rewritten as it comes; any other
   * body (a JSON answer) is held whole and rewritten at its end.
   */
  public AnswerGate forAnswer(ProviderProfile.Api api, boolean eventStream) {
    if (!eventStream) {
      return new JsonAnswerGate(this, api);
    }
    return switch (api) {
      case ANTHROPIC -> new AnthropicGate(this);
      case OPENAI -> new ResponsesGate(this);
    };
  }

  /** The markers this gate's answers carried, for the node to confirm them. */
  public MarkerRecord markers() {
    return markers;
  }

  /** The marker before {@code id}'s call is held, recorded before any answer carries it. */
  String awaiting(String tool, String id) {
    markers.wrote(id, tool, new MarkerRecord.Marker("pending", java.util.Optional.empty()));
    return Markers.awaiting(tool, id);
  }

  /** The marker of {@code id}'s {@code decision}, recorded before any answer carries it. */
  String result(String tool, String id, Decision decision) {
    markers.wrote(id, tool, Markers.recorded(decision));
    return Markers.result(tool, id, decision);
  }

  GatePolicy policy() {
    return policy;
  }

  ToolGate gate() {
    return gate;
  }

  /** Asks about {@code tool}'s call with {@code arguments} under {@code id}, without keepalives. */
  Decision decide(String id, String tool, String arguments) throws InterruptedException {
    return gate.decide(id, ToolCall.of(tool, arguments, secrets));
  }

  /** The same, sending {@code ping} to {@code out} while it waits. */
  Decision hold(String id, String tool, String arguments, String ping, AnswerGate.Downstream out)
      throws java.io.IOException, InterruptedException {
    return Holding.await(gate, id, ToolCall.of(tool, arguments, secrets), keepalive, ping, out);
  }
}
