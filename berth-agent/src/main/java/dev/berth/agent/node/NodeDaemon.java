package dev.berth.agent.node;

import dev.berth.agent.host.HostConfig;
import dev.berth.agent.host.SessionHost;
import dev.berth.agent.http.AgentHttpServer;
import dev.berth.agent.telemetry.NodeTelemetry;
import dev.berth.protocol.files.PrivacyRule;
import dev.berth.protocol.files.PrivateFiles;
import dev.berth.protocol.node.NodeFiles;
import dev.berth.protocol.node.NodeInfo;
import dev.berth.protocol.node.NodeToken;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * {@code berth node}: the local session host as a process of its own, so that a control plane that
 * exits or restarts never takes a session down with it. One node per state directory, guarded by an
 * exclusive lock on {@code node.lock} that the operating system releases when the process dies (a
 * crashed node leaves no stale lock). Once it listens it publishes {@link NodeInfo}. It owns its
 * meters ({@link NodeTelemetry}), which its API serves at {@code GET /metrics} behind its token.
 *
 * <p>The state directory is private to the node's user (0700, and every file in it 0600; see {@code
 * dev.berth.protocol.files}): a node refuses to start on one that others may reach.
 */
public final class NodeDaemon implements AutoCloseable {

  public static final String LOCK_FILE = NodeFiles.LOCK;
  public static final String LOG_FILE = NodeFiles.LOG;

  /** What the state directory is called in messages. */
  public static final String STATE_DIRECTORY = NodeFiles.STATE_DIRECTORY;

  /*
   * The state directories a node of this process holds. The OS lock belongs to the process: a
   * second tryLock in the same JVM throws OverlappingFileLockException instead of returning null,
   * and closing that second channel would drop the first node's lock in the kernel (POSIX record
   * locks are released by any close of the file by their process). HostRestartTest found both, so
   * a second node in this process is refused here, before it opens the lock file.
   */
  private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

  private final Path stateDirectory;
  private final FileChannel lockChannel;
  private final FileLock lock;
  private final SessionHost host;
  private final AgentHttpServer server;
  private final NodeTelemetry telemetry;
  private boolean closed;

  private NodeDaemon(
      Path stateDirectory,
      FileChannel lockChannel,
      FileLock lock,
      SessionHost host,
      AgentHttpServer server,
      NodeTelemetry telemetry) {
    this.stateDirectory = stateDirectory;
    this.lockChannel = lockChannel;
    this.lock = lock;
    this.host = host;
    this.server = server;
    this.telemetry = telemetry;
  }

  /**
   * Starts a node on {@code stateDirectory}, created with mode 0700 when missing.
   *
   * @param configure adjusts the default host configuration (tests shorten timings with it)
   * @throws NodeAlreadyRunningException when another node holds the directory's lock
   * @throws dev.berth.protocol.files.NotPrivateException when the directory or its token is owned
   *     by another user or open to group or others
   */
  public static NodeDaemon start(
      Path stateDirectory, AgentHttpServer.Settings settings, UnaryOperator<HostConfig> configure) {
    Path dir = stateDirectory.toAbsolutePath().normalize();
    if (!HELD.add(dir)) {
      throw new NodeAlreadyRunningException(dir, NodeInfo.read(dir));
    }
    FileChannel channel = null;
    try {
      PrivateFiles.createDirectories(dir);
      PrivacyRule.requirePrivate(dir, STATE_DIRECTORY);
      channel =
          PrivateFiles.open(
              dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock = channel.tryLock();
      if (lock == null) {
        channel.close();
        throw new NodeAlreadyRunningException(dir, NodeInfo.read(dir));
      }
      String token = NodeToken.readOrCreate(dir);
      HostConfig config = configure.apply(HostConfig.defaults(dir, token));
      NodeTelemetry telemetry = new NodeTelemetry();
      SessionHost host;
      AgentHttpServer server;
      try {
        host = SessionHost.open(config, Clock.systemUTC(), telemetry);
      } catch (RuntimeException e) {
        telemetry.close();
        throw e;
      }
      try {
        telemetry.watch(host);
        server =
            AgentHttpServer.start(
                host,
                token,
                settings,
                Optional.of(
                    new AgentHttpServer.Metrics(telemetry, NodeToken.readOrCreateMetrics(dir))));
      } catch (RuntimeException e) {
        host.close();
        telemetry.close();
        throw e;
      }
      new NodeInfo(1, ProcessHandle.current().pid(), settings.host(), server.port(), host.now())
          .write(dir);
      return new NodeDaemon(dir, channel, lock, host, server, telemetry);
    } catch (IOException e) {
      HELD.remove(dir);
      closeQuietly(channel);
      throw new UncheckedIOException("cannot start a node on " + dir, e);
    } catch (RuntimeException e) {
      HELD.remove(dir);
      if (!(e instanceof NodeAlreadyRunningException)) {
        closeQuietly(channel);
      }
      throw e;
    }
  }

  public int port() {
    return server.port();
  }

  public SessionHost host() {
    return host;
  }

  /** Stops serving, stops every runtime's workload, withdraws node.json, releases the lock. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      Files.deleteIfExists(stateDirectory.resolve(NodeInfo.FILE));
    } catch (IOException e) {
      // A stale node.json names a dead pid; readers check for that.
    }
    server.close();
    host.close();
    telemetry.close();
    try {
      lock.release();
    } catch (IOException e) {
      // The channel close below releases it too.
    }
    closeQuietly(lockChannel);
    HELD.remove(stateDirectory);
  }

  private static void closeQuietly(@Nullable FileChannel channel) {
    if (channel == null) {
      return;
    }
    try {
      channel.close();
    } catch (IOException e) {
      // nothing left to release
    }
  }
}
