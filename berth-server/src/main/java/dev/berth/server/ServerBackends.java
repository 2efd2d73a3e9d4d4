package dev.berth.server;

import dev.berth.archive.s3.S3ArchiveStore;
import dev.berth.core.approval.Approvals;
import dev.berth.core.archive.ArchiveStore;
import dev.berth.core.error.InvalidValueException;
import dev.berth.core.lifecycle.Failpoints;
import dev.berth.core.store.Duties;
import dev.berth.core.tenant.AdmissionLock;
import dev.berth.core.tenant.TenantDirectory;
import dev.berth.server.archive.filesystem.FilesystemArchiveStore;
import dev.berth.server.auth.AdminToken;
import dev.berth.server.store.sql.SqlAdmissionLock;
import dev.berth.server.store.sql.SqlApprovals;
import dev.berth.server.store.sql.SqlDuties;
import dev.berth.server.store.sql.SqlSessionStore;
import dev.berth.server.store.sql.SqlTenantDirectory;
import dev.berth.server.store.sql.SqlTimings;
import dev.berth.store.ControlPlaneStore;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.HexFormat;
import java.util.Optional;
import java.util.function.IntSupplier;

/**
 * The records a server runs on, opened as its {@link ServerConfig.Backends} say: the store, the
 * tenant directory, admission lock, duties and approvals that share it, the installation id and
 * this replica's name. A SQL store keeps them all in its database ({@link #openSql}); a Kubernetes
 * namespace keeps them in ConfigMaps and Leases ({@link KubernetesBackends}).
 *
 * <p>A shared store (PostgreSQL, a Kubernetes namespace) changes three things. The installation id
 * is the store's, not the data directory's, or each replica would label its runtimes as another
 * installation's. The lease holder names the replica, or two replicas would pass for one and both
 * reconcile a session. The archives must be shared too (S3). And the admin token must be given
 * (BERTH_ADMIN_TOKEN): one minted into a replica's data directory would be known to that replica
 * only.
 *
 * <p>The local runtime's sessions live on its own machine's node, which no other server reaches: a
 * second server with the local runtime on the same store would take leases on sessions it cannot
 * observe, find their runtimes gone and start them again. So such a server claims the store for
 * itself ({@link SqlSessionStore#claim}), and a second one refuses to start.
 *
 * @param connection what the store's objects share and the server closes after them (the Kubernetes
 *     client); nothing for a SQL store, which owns its pool
 */
record ServerBackends(
    ControlPlaneStore store,
    TenantDirectory directory,
    AdmissionLock admissionLock,
    Duties duties,
    StoredApprovals approvals,
    String installation,
    String holder,
    AutoCloseable runtimeClaim,
    AutoCloseable connection) {

  static final String HOLDER_PREFIX = "berth-server@";

  /** The claim a server with the local runtime holds on a shared store; see {@link #open}. */
  static final String RUNTIME_CLAIM = "berth-local-runtime";

  /** The approvals in the store, and how many of them are pending (for the gauge). */
  record StoredApprovals(Approvals approvals, IntSupplier pending) {}

  /**
   * Opens the store (its migrations run first) and reads or mints the installation id.
   *
   * @throws InvalidValueException when a shared store is given without an admin token or with the
   *     data directory's archives
   */
  static ServerBackends open(ServerConfig config, Clock clock, SqlTimings timings) {
    requireSharedSettings(config);
    return switch (config.backends().store()) {
      case StoreChoice.Sqlite s ->
          openSql(
              config,
              SqlSessionStore.openSqlite(
                  config.dataDir().resolve(DataDirectory.DATABASE), clock, timings),
              clock);
      case StoreChoice.Postgres p ->
          openSql(config, SqlSessionStore.openPostgres(p.location(), clock, timings), clock);
      case StoreChoice.Kubernetes k -> KubernetesBackends.open(config, k, clock);
    };
  }

  private static ServerBackends openSql(ServerConfig config, SqlSessionStore store, Clock clock) {
    try {
      String installation =
          switch (config.backends().store()) {
            case StoreChoice.Sqlite s -> Installation.loadOrCreate(config.dataDir());
            case StoreChoice.Postgres p -> store.installation(Installation::mint);
            case StoreChoice.Kubernetes k -> throw new IllegalStateException("not a SQL store");
          };
      String holder = holder(config, installation);
      AutoCloseable claim =
          claimRuntime(
              config.backends().runtime(),
              (shared, refusal) -> store.claim(RUNTIME_CLAIM, shared, refusal));
      SqlApprovals approvals = SqlApprovals.sharing(store);
      return new ServerBackends(
          store,
          SqlTenantDirectory.sharing(store),
          SqlAdmissionLock.sharing(store),
          SqlDuties.sharing(store, clock),
          new StoredApprovals(approvals, approvals::countAllPending),
          installation,
          holder,
          claim,
          () -> {});
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /** A shared store needs what every replica shares: the admin token and the archives. */
  private static void requireSharedSettings(ServerConfig config) {
    ServerConfig.Backends backends = config.backends();
    if (backends.store().shared() && config.adminToken().isEmpty()) {
      throw new InvalidValueException(
          "--store "
              + describe(backends.store())
              + " is shared by every replica, so the admin token must be given to each: set "
              + AdminToken.ENV
              + " (at least "
              + AdminToken.MIN_LENGTH
              + " characters, the same for every replica)");
    }
    if (backends.store().shared() && backends.archive() instanceof ArchiveChoice.Filesystem) {
      // Another replica could not read this one's archives, and each sweeps the directory's
      // unfinished uploads when it starts: a shared directory would lose archives in flight.
      throw new InvalidValueException(
          "--store "
              + describe(backends.store())
              + " is shared by every replica, so the archives must be too: give --archive"
              + " s3://bucket/prefix (the data directory's archives are this replica's alone)");
    }
  }

  /** The lease holder: the installation's server, and on a shared store which replica it is. */
  static String holder(ServerConfig config, String installation) {
    return config.backends().store().shared()
        ? HOLDER_PREFIX + installation + "/" + replica(config)
        : HOLDER_PREFIX + installation;
  }

  /** A claim on the store: shared or exclusive, refused with the message given. */
  @FunctionalInterface
  interface Claims {
    AutoCloseable claim(boolean shared, String refusal);
  }

  /**
   * The local runtime's sessions live on one machine, the Kubernetes runtime's in pods every
   * replica reaches: any number of Kubernetes replicas share the store, a local server holds it
   * alone, and each kind refuses to start beside the other (each would find the other's runtimes
   * missing and start their sessions again).
   */
  static AutoCloseable claimRuntime(RuntimeChoice runtime, Claims store) {
    return switch (runtime) {
      case RuntimeChoice.Local l ->
          store.claim(
              false,
              "another berth server already runs on this store (one with the local runtime,"
                  + " whose sessions live on its machine, out of this one's reach; or"
                  + " replicas with the kubernetes runtime); stop it first, or give this"
                  + " server a store of its own");
      case RuntimeChoice.Kubernetes k ->
          store.claim(
              true,
              "a berth server with the local runtime runs on this store, and its sessions"
                  + " live on its machine, out of a pod's reach; stop it first, or give the"
                  + " kubernetes replicas a store of their own");
    };
  }

  /** The archive store; the caller closes it when it is {@link AutoCloseable}. */
  static ArchiveStore openArchives(ServerConfig config, Clock clock, Failpoints failpoints) {
    return switch (config.backends().archive()) {
      case ArchiveChoice.Filesystem f ->
          new FilesystemArchiveStore(config.dataDir().resolve("archives"), clock, failpoints);
      case ArchiveChoice.S3 s3 -> S3ArchiveStore.open(s3.settings(), owner(config), clock);
    };
  }

  /**
   * This replica's name: {@code --replica}, or the host name and a digest of the data directory
   * (stable across restarts of one replica, distinct for two on one machine).
   */
  static String replica(ServerConfig config) {
    Optional<String> given = config.backends().replica();
    if (given.isPresent()) {
      return given.get();
    }
    String directory = config.dataDir().toAbsolutePath().normalize().toString();
    return hostName() + "-" + digest(directory).substring(0, 8);
  }

  /** The replica's name as an S3 upload owner: letters, digits, _ and -, at most 64. */
  private static String owner(ServerConfig config) {
    String name = replica(config).replaceAll("[^A-Za-z0-9_-]", "-");
    return name.length() > 64 ? name.substring(0, 64) : name;
  }

  private static String describe(StoreChoice store) {
    return switch (store) {
      case StoreChoice.Sqlite s -> "sqlite";
      case StoreChoice.Postgres p -> p.location().toString();
      case StoreChoice.Kubernetes k -> StoreChoice.KUBERNETES + k.namespace();
    };
  }

  private static String hostName() {
    String fromEnvironment = System.getenv("HOSTNAME");
    if (fromEnvironment != null && !fromEnvironment.isBlank()) {
      return fromEnvironment;
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "host-" + HexFormat.of().formatHex(new SecureRandom().generateSeed(4));
    }
  }

  private static String digest(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
