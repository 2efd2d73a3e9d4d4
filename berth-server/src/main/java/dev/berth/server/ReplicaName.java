package dev.berth.server;

/**
 * A replica's name is its identity among those sharing a store: the lease holder of the sessions it
 * reconciles and the holder of the duties it performs. Two replicas given the same {@code
 * --replica} would pass for one, each renewing the other's leases and both reconciling the same
 * sessions, so the name is claimed on the store for as long as the replica runs, and a second
 * replica with that name is refused at start.
 *
 * <p>The claim is PostgreSQL's advisory lock on a connection of its own ({@link
 * SqlSessionStore#claim}): it needs no heartbeat and no clock, the database drops it the moment its
 * holder's connection ends (a replica killed with SIGKILL included), and a replica restarted under
 * its name takes it again at once. An embedded store has one server, so nothing is claimed.
 */
final class ReplicaName {

  /** The prefix of the claim's key; the replica's name follows. */
  static final String CLAIM = "berth-replica ";

  private ReplicaName() {}

  /**
   * Claims {@code name} on {@code store} for this process until the handle is closed.
   *
   * @param option how the name was given, for the way out ({@code --replica} or the default)
   * @throws dev.berth.server.store.StoreAccessException naming the name, who holds it and the way
   *     out when another running replica holds it
   */
  static AutoCloseable claim(ServerBackends.Claims store, String name, boolean given) {
    return store.claim(
        CLAIM + name,
        false,
        "another replica named \""
            + name
            + "\" already runs on this store"
            + (given ? "" : " (the name is the default: host name and data directory's digest)")
            + "; two replicas under one name would renew each other's leases and reconcile the"
            + " same sessions. Give this one a name of its own with --replica NAME, or stop the"
            + " other one first");
  }
}
