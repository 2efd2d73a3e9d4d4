package dev.berth.server.runtime.local;

import dev.berth.core.error.AgentUnreachableException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.runtime.OwnershipLabels;
import dev.berth.core.runtime.RemovalResult;
import dev.berth.core.runtime.Runtime;
import dev.berth.core.runtime.RuntimeListing;
import dev.berth.core.runtime.RuntimeObservation;
import dev.berth.core.runtime.RuntimeSpec;
import dev.berth.core.session.RuntimeRef;
import dev.berth.core.session.SessionId;
import dev.berth.core.tenant.DisconnectGrant;
import dev.berth.core.tenant.NetworkAccess;
import dev.berth.protocol.wire.AgentEndpoints;
import dev.berth.server.runtime.AgentCallTimings;
import dev.berth.server.runtime.AgentWireClient;
import dev.berth.server.runtime.StoreEpochStamp;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@code local} runtime: each session's runtime is a sandboxed process tree hosted by the local
 * node ({@code berth node}), a separate process the adapter starts when none runs. Creation and
 * removal are idempotent by the runtime's name, which carries the incarnation, so a stale request
 * can never touch a newer incarnation.
 *
 * <p>The node addresses a runtime under its session. The session of each runtime is the one its
 * spec was provisioned for, or, for a runtime this process did not provision (the server
 * restarted), the one the node lists it under; never read out of the runtime's name.
 */
public final class LocalRuntime implements Runtime, AgentEndpoints {

  public static final String KIND = "local";

  private final LocalNode node;
  private final String installation;
  private final AgentWireClient wire;
  private final JsonMapper json = JsonMapper.builder().build();

  private final Function<SessionId, NetworkAccess> networkAccess;
  private final Function<RuntimeSpec, Optional<Map<String, Object>>> agents;
  private final Function<SessionId, Optional<DisconnectGrant>> disconnect;

  /** The session of each runtime by its name, as provisioned or as the node lists it. */
  private final ConcurrentMap<String, SessionId> sessions = new ConcurrentHashMap<>();

  /** A runtime whose sessions all get the node's network. */
  public LocalRuntime(LocalNode node, String installation) {
    this(node, installation, session -> NetworkAccess.EGRESS);
  }

  /**
   * @param networkAccess the most network a session may have (its tenant's grant): a session
   *     narrowed to {@code none} is provisioned with loopback only, whatever the node's mode
   */
  public LocalRuntime(
      LocalNode node, String installation, Function<SessionId, NetworkAccess> networkAccess) {
    this(node, installation, networkAccess, spec -> Optional.empty());
  }

  /**
   * @param agents an agent runtime's launch for the node (its CLI, model, plugins and provider, see
   *     the node's {@code AgentLaunch}); empty for a shell, or for a type not configured (the node
   *     refuses)
   */
  public LocalRuntime(
      LocalNode node,
      String installation,
      Function<SessionId, NetworkAccess> networkAccess,
      Function<RuntimeSpec, Optional<Map<String, Object>>> agents) {
    this(node, installation, networkAccess, agents, AgentCallTimings.NONE);
  }

  /** As the other constructors, telling {@code timings} of each call to the node. */
  public LocalRuntime(
      LocalNode node,
      String installation,
      Function<SessionId, NetworkAccess> networkAccess,
      Function<RuntimeSpec, Optional<Map<String, Object>>> agents,
      AgentCallTimings timings) {
    this(
        node,
        installation,
        networkAccess,
        agents,
        timings,
        session -> Optional.empty(),
        StoreEpochStamp.none());
  }

  /**
   * @param disconnect what a session's runtime does when its control lease expires (its tenant's
   *     policy, or the server's default), sent with its creation; empty leaves it to the node's own
   *     ({@code berth node --disconnect-policy})
   * @param epoch the store's epoch, stamped on every call to the node
   */
  public LocalRuntime(
      LocalNode node,
      String installation,
      Function<SessionId, NetworkAccess> networkAccess,
      Function<RuntimeSpec, Optional<Map<String, Object>>> agents,
      AgentCallTimings timings,
      Function<SessionId, Optional<DisconnectGrant>> disconnect,
      StoreEpochStamp epoch) {
    this.disconnect = Objects.requireNonNull(disconnect, "disconnect");
    this.wire = new AgentWireClient(timings, epoch);
    this.node = Objects.requireNonNull(node, "node");
    this.installation = Objects.requireNonNull(installation, "installation");
    this.networkAccess = Objects.requireNonNull(networkAccess, "networkAccess");
    this.agents = Objects.requireNonNull(agents, "agents");
  }

  @Override
  public String kind() {
    return KIND;
  }

  @Override
  public void provision(RuntimeSpec spec) {
    LocalNode.Connection connection = node.ensureRunning();
    RuntimeRef runtime = spec.runtime();
    sessions.put(runtime.name(), spec.labels().session());
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("runtime", runtime.name());
    body.put("incarnation", runtime.incarnation());
    body.put("workload", spec.workload().value());
    body.put("labels", spec.labels().asMap());
    if (spec.awaitRestore()) {
      body.put("awaitRestore", true);
    }
    if (networkAccess.apply(spec.labels().session()) == NetworkAccess.NONE) {
      body.put("network", NetworkAccess.NONE.wireName());
    }
    agents.apply(spec).ifPresent(agent -> body.put("agent", agent));
    disconnect
        .apply(spec.labels().session())
        .ifPresent(
            grant ->
                body.put(
                    "disconnect",
                    Map.of(
                        "policy",
                        grant.policy().wireName(),
                        "graceSeconds",
                        grant.grace().toSeconds())));
    wire.call(
        runtime.name(),
        "PUT",
        sessionUrl(connection, spec.labels().session()),
        connection.token(),
        Optional.of(json.writeValueAsString(body)),
        Optional.empty());
  }

  /**
   * A node that cannot be reached, or not even started (the launch failed), is lost contact: the
   * runtime may well still run, so it is Unknown, and its removal unconfirmed.
   */
  @Override
  public RuntimeObservation observe(RuntimeRef runtime) {
    try {
      LocalNode.Connection connection = node.ensureRunning();
      Optional<SessionId> session = sessionOf(runtime);
      if (session.isEmpty()) {
        return new RuntimeObservation.Gone("the node does not host " + runtime.name());
      }
      wire.call(
          runtime.name(),
          "GET",
          sessionUrl(connection, session.get()) + "/status?runtime=" + runtime.name(),
          connection.token(),
          Optional.empty(),
          Optional.empty());
      return new RuntimeObservation.Running(Optional.of(sessionUrl(connection, session.get())));
    } catch (NotFoundException e) {
      return new RuntimeObservation.Gone("the node does not host " + runtime.name());
    } catch (AgentUnreachableException | IllegalStateException | java.io.UncheckedIOException e) {
      return new RuntimeObservation.Unknown(
          Objects.requireNonNullElse(e.getMessage(), e.toString()));
    }
  }

  @Override
  public RemovalResult remove(RuntimeRef runtime) {
    try {
      LocalNode.Connection connection = node.ensureRunning();
      Optional<SessionId> session = sessionOf(runtime);
      if (session.isEmpty()) {
        // The node hosts no runtime of that name: there is nothing to remove.
        return new RemovalResult.Confirmed();
      }
      String url = sessionUrl(connection, session.get()) + "?runtime=" + runtime.name();
      wire.call(
          runtime.name(), "DELETE", url, connection.token(), Optional.empty(), Optional.empty());
      sessions.remove(runtime.name(), session.get());
      return new RemovalResult.Confirmed();
    } catch (AgentUnreachableException | IllegalStateException | java.io.UncheckedIOException e) {
      return new RemovalResult.Unconfirmed(
          Objects.requireNonNullElse(e.getMessage(), e.toString()));
    }
  }

  /** Lists the node's sessions: the node answers (and is started when it was not running). */
  @Override
  public void checkReachable() {
    var unused = list();
  }

  @Override
  public List<RuntimeListing> list() {
    LocalNode.Connection connection = node.ensureRunning();
    List<RuntimeListing> listings = new ArrayList<>();
    for (JsonNode status : hosted(connection)) {
      JsonNode labels = status.path("labels");
      if (!installation.equals(labels.path(OwnershipLabels.INSTALLATION).asString(""))) {
        continue;
      }
      OwnershipLabels owner =
          new OwnershipLabels(
              installation,
              new SessionId(labels.path(OwnershipLabels.SESSION).asString()),
              labels.path(OwnershipLabels.INCARNATION).asLong());
      listings.add(
          new RuntimeListing(
              status.path("runtime").asString(),
              owner,
              new RuntimeObservation.Running(
                  Optional.of(sessionUrl(connection, owner.session())))));
    }
    return listings;
  }

  /**
   * The highest store epoch the node saw on a control plane's request (docs/agent-protocol.md); the
   * node is started when it was not running.
   */
  public long storeEpochSeen() {
    LocalNode.Connection connection = node.ensureRunning();
    return wire.call(
            "node " + connection.baseUrl(),
            "GET",
            connection.baseUrl() + "/v1/store-epoch",
            connection.token(),
            Optional.empty(),
            Optional.empty())
        .json()
        .path("storeEpoch")
        .asLong(0);
  }

  @Override
  public void unreachable(RuntimeRef runtime) {
    node.forget();
  }

  /**
   * @throws NotFoundException when the node hosts no runtime of that name, as its 404 would
   */
  @Override
  public Endpoint resolve(RuntimeRef runtime) {
    LocalNode.Connection connection = node.ensureRunning();
    SessionId session = sessionOf(runtime).orElseThrow(() -> new NotFoundException(runtime.name()));
    return new Endpoint(sessionUrl(connection, session), connection.token(), runtime.name());
  }

  /**
   * The session {@code runtime} belongs to: as provisioned by this process, else as the node lists
   * it now; empty when the node hosts no runtime of that name.
   */
  private Optional<SessionId> sessionOf(RuntimeRef runtime) {
    SessionId known = sessions.get(runtime.name());
    if (known != null) {
      return Optional.of(known);
    }
    var unused = hosted(node.ensureRunning());
    return Optional.ofNullable(sessions.get(runtime.name()));
  }

  /** The node's status of every runtime it hosts, whoever owns it; records their sessions. */
  private List<JsonNode> hosted(LocalNode.Connection connection) {
    JsonNode answer =
        wire.call(
                "node " + connection.baseUrl(),
                "GET",
                connection.baseUrl() + "/v1/sessions",
                connection.token(),
                Optional.empty(),
                Optional.empty())
            .json();
    List<JsonNode> statuses = new ArrayList<>();
    for (JsonNode status : answer.path("sessions")) {
      String session = status.path("session").asString("");
      String name = status.path("runtime").asString("");
      if (!session.isEmpty() && !name.isEmpty()) {
        sessions.put(name, new SessionId(session));
      }
      statuses.add(status);
    }
    return statuses;
  }

  static String sessionUrl(LocalNode.Connection connection, SessionId session) {
    return connection.baseUrl() + "/v1/sessions/" + session.value();
  }
}
