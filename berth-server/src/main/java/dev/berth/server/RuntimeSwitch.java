package dev.berth.server;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.Session;
import dev.berth.core.store.SessionQuery;
import dev.berth.core.store.SessionStore;
import dev.berth.kubernetes.runtime.KubernetesRuntime;
import dev.berth.server.runtime.local.LocalRuntime;
import java.util.ArrayList;
import java.util.List;

/**
 * A server started with another {@code --runtime} than the one its sessions' runtimes run on (a
 * data directory or store used with {@code local} restarted with {@code kubernetes}, or the other
 * way round) would look for each session's runtime where it is not, find it missing and start the
 * session again there, while the first runtime kept running unseen. So a start is refused while the
 * store holds a session whose runtime is of another kind; sessions without a runtime (suspended,
 * deleted, never started) move freely, since they are started from their archive wherever the
 * server runs.
 */
final class RuntimeSwitch {

  private static final int PAGE = 200;
  private static final int NAMED = 3;

  private RuntimeSwitch() {}

  /** The kind of runtime {@code choice} starts, as sessions record it. */
  static String kind(RuntimeChoice choice) {
    return switch (choice) {
      case RuntimeChoice.Local l -> LocalRuntime.KIND;
      case RuntimeChoice.Kubernetes k -> KubernetesRuntime.KIND;
    };
  }

  /**
   * Refuses to start on {@code store} with {@code choice} while a session there has a runtime of
   * another kind.
   *
   * @throws InvalidValueException naming the flag, the sessions, their runtime and the ways out
   */
  static void requireSameKind(SessionStore store, RuntimeChoice choice) {
    String chosen = kind(choice);
    List<Session> others = new ArrayList<>();
    store.forEach(
        SessionQuery.all(PAGE),
        s -> {
          if (s.runtime().isPresent() && !s.runtime().get().kind().equals(chosen)) {
            others.add(s);
          }
        });
    if (others.isEmpty()) {
      return;
    }
    String other = others.get(0).runtime().orElseThrow().kind();
    List<String> named = others.stream().limit(NAMED).map(s -> s.id().value()).toList();
    throw new InvalidValueException(
        "--runtime "
            + chosen
            + " was given, but this server's store holds "
            + others.size()
            + (others.size() == 1 ? " session" : " sessions")
            + " whose runtime runs on "
            + other
            + " ("
            + String.join(", ", named)
            + (others.size() > NAMED ? ", …" : "")
            + "): with "
            + chosen
            + " they would be started again while their "
            + other
            + " runtimes kept running. Start with --runtime "
            + other
            + " as before; to move, suspend or delete those sessions under --runtime "
            + other
            + " first (a suspended session resumes on the new runtime from its archive), or give"
            + " this server a data directory and store of their own");
  }
}
