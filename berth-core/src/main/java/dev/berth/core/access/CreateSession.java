package dev.berth.core.access;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.error.WorkloadUnavailableException;
import dev.berth.core.lifecycle.ReconcileQueue;
import dev.berth.core.lifecycle.SessionIntents;
import dev.berth.core.session.AgentModel;
import dev.berth.core.session.Phase;
import dev.berth.core.session.PluginName;
import dev.berth.core.session.Session;
import dev.berth.core.session.SessionId;
import dev.berth.core.session.TenantId;
import dev.berth.core.session.WorkloadType;
import dev.berth.core.store.SessionStore;
import dev.berth.core.tenant.Admission;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * Creates a session: the tenant's grants and quota first, then what the installation requires of a
 * new session (its isolation), then the intent to run, and waits (bounded) for it to start.
 */
public final class CreateSession {

  /** What a create asks for. */
  public record Request(
      String name,
      Optional<String> workloadType,
      Optional<String> model,
      List<String> plugins,
      Optional<TenantId> onBehalfOf,
      String actor,
      boolean awaitStart) {}

  /** A created session, and whether it became active within the wait. */
  public record Created(Session session, boolean active) {}

  private final SessionStore store;
  private final SessionIntents intents;
  private final ReconcileQueue queue;
  private final SessionWatch watch;
  private final Admission admission;
  private final SessionLookup lookup;
  private final AccessSettings settings;
  private final RandomGenerator random;
  private final Runnable newSessionRequirement;
  private final WorkloadCatalog catalog;

  /**
   * @param newSessionRequirement refuses a new session the installation cannot host as it must
   *     (e.g. without the isolation it requires); runs after the grants and the quota, so a refused
   *     tenant hears 403 or 429 first
   */
  public CreateSession(
      SessionStore store,
      SessionIntents intents,
      ReconcileQueue queue,
      SessionWatch watch,
      Admission admission,
      InstantSource clock,
      AccessSettings settings,
      RandomGenerator random,
      Runnable newSessionRequirement,
      WorkloadCatalog catalog) {
    this.store = store;
    this.intents = intents;
    this.queue = queue;
    this.watch = watch;
    this.admission = admission;
    this.lookup = new SessionLookup(store, clock);
    this.settings = settings;
    this.random = random;
    this.newSessionRequirement = newSessionRequirement;
    this.catalog = catalog;
  }

  public Created create(Scope scope, Request request) {
    String trimmed = request.name().strip();
    if (trimmed.isEmpty()) {
      throw new InvalidValueException("invalid input: name must not be blank");
    }
    WorkloadType type = workloadType(request.workloadType());
    Optional<AgentModel> model = model(type, request.model());
    List<PluginName> plugins = plugins(type, request.plugins());
    TenantId owner = admission.tenantFor(scope.principal(), request.onBehalfOf());
    Session stored =
        admission.admit(
            scope.principal(),
            type,
            owner,
            store,
            () -> {
              Optional<String> missing = catalog.unavailable(type);
              if (missing.isPresent()) {
                throw new WorkloadUnavailableException(missing.get());
              }
              checkOffered(type, plugins);
              newSessionRequirement.run();
              return intents.create(
                  SessionId.generate(random),
                  owner,
                  trimmed,
                  type,
                  model,
                  plugins,
                  request.actor());
            });
    queue.enqueue(stored.id());
    if (!request.awaitStart()) {
      return new Created(stored, false);
    }
    Session settled =
        watch
            .await(stored.id(), Settling::started, settings.createWait())
            .orElseGet(() -> lookup.get(scope, stored.id()));
    Refusals.failIfFailed(settled);
    return new Created(settled, settled.phase() == Phase.READY);
  }

  private static WorkloadType workloadType(Optional<String> requested) {
    String name = requested.orElse(WorkloadType.SHELL.value());
    Optional<WorkloadType> type = WorkloadTypes.parse(name);
    if (type.isEmpty()) {
      throw new InvalidValueException(
          "invalid input: workloadType \"" + name + "\" is not one of " + WorkloadTypes.names());
    }
    return type.get();
  }

  /** An agent session's model, {@code platform-default} when none was asked for; a shell none. */
  private static Optional<AgentModel> model(WorkloadType type, Optional<String> requested) {
    if (!WorkloadCatalog.isAgent(type)) {
      if (requested.isPresent()) {
        throw new InvalidValueException(
            "invalid input: model applies to agent sessions ("
                + WorkloadTypes.agentNames()
                + ") only; omit it for "
                + type.value());
      }
      return Optional.empty();
    }
    return Optional.of(requested.map(AgentModel::new).orElse(AgentModel.PLATFORM_DEFAULT));
  }

  /** The plugins asked for, as names: distinct, at most 32, and for agent sessions only. */
  private static List<PluginName> plugins(WorkloadType type, List<String> requested) {
    if (requested.isEmpty()) {
      return List.of();
    }
    if (!WorkloadCatalog.isAgent(type)) {
      throw new InvalidValueException(
          "invalid input: plugins apply to agent sessions only; omit them for " + type.value());
    }
    if (requested.size() > PluginName.MAX_PER_SESSION) {
      throw new InvalidValueException(
          "invalid input: a session takes at most "
              + PluginName.MAX_PER_SESSION
              + " plugins, "
              + requested.size()
              + " were given");
    }
    List<PluginName> names = requested.stream().map(PluginName::new).toList();
    if (new java.util.HashSet<>(names).size() != names.size()) {
      throw new InvalidValueException(
          "invalid input: plugins must not repeat a name, were " + requested);
    }
    return names;
  }

  /**
   * Plugins are taken only by a type that takes them here, and only from this installation's
   * marketplace: a name outside it is refused, never ignored.
   */
  private void checkOffered(WorkloadType type, List<PluginName> plugins) {
    if (plugins.isEmpty()) {
      return;
    }
    boolean takes =
        catalog.configuredAgents().stream()
            .anyMatch(offer -> offer.type().equals(type) && offer.takesPlugins());
    if (!takes) {
      throw new InvalidValueException(
          "invalid input: workload type "
              + type.value()
              + " takes no plugins on this installation (GET /config lists takesPlugins); omit"
              + " plugins");
    }
    List<PluginName> unknown =
        plugins.stream().filter(p -> !catalog.marketplace().contains(p)).toList();
    if (!unknown.isEmpty()) {
      throw new InvalidValueException(
          "invalid input: plugins "
              + unknown
              + " are not in this installation's marketplace, which offers "
              + catalog.marketplace()
              + " (GET /config lists them)");
    }
  }

  /** The family's names, for parsing and for messages. */
  private static final class WorkloadTypes {
    static Optional<WorkloadType> parse(String name) {
      String canonical = WorkloadCatalog.ALIASES.getOrDefault(name, name);
      return names().contains(canonical)
          ? Optional.of(new WorkloadType(canonical))
          : Optional.empty();
    }

    static java.util.List<String> names() {
      java.util.List<String> all = new java.util.ArrayList<>(agentNames());
      all.addFirst(WorkloadType.SHELL.value());
      return all;
    }

    static java.util.List<String> agentNames() {
      return WorkloadCatalog.AGENT_TYPES.stream().map(WorkloadType::value).sorted().toList();
    }
  }
}
