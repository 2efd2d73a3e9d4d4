package dev.berth.kubernetes.runtime;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretKeySelector;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.PodResource;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A kubelet (and scheduler) for fabric8's mock API server, which stores pods but runs nothing. It
 * watches the namespace's pods and, for each new one, does what a node would:
 *
 * <ul>
 *   <li>runs the pod's agent as a real local process ({@link SimulatedPodAgent}, from the test
 *       classpath) with the pod's container arguments and its {@code BERTH_AGENT_TOKEN} read from
 *       the Secret the pod's env refers to. Two arguments are rewritten, and only these: {@code
 *       --state-dir} to a directory of the pod's own under the simulator's root (a pod's emptyDir),
 *       and the host of {@code --listen} to the pod's own IP: each simulated pod gets an address of
 *       its own in 127.0.0.0/8 (every one of which the loopback interface answers), so its agent
 *       listens on the template's port as in a cluster, and the control plane reaches it at the pod
 *       IP with no seam of the test's own;
 *   <li>runs an agent session's {@code proxy} container as a process of its own too ({@link
 *       SimulatedContainers}): {@code berth proxy} with the container's environment, its
 *       secretKeyRefs resolved from the Secrets as a kubelet does (a missing Secret or key is the
 *       kubelet's {@code CreateContainerConfigError}, and nothing starts), on the pod IP's port
 *       8091, where the agent's {@code --proxy} is rewritten to lead (the pod's loopback);
 *   <li>then writes the status a kubelet writes for a started pod: phase Running, that pod IP, its
 *       containers running and ready (an agent session's once its agent's readiness, which needs
 *       its proxy, holds);
 *   <li>holds a finalizer of its own on the pod, so that a deletion is graceful as on a node: the
 *       pod stays, terminating, until the simulator has stopped its process and released it;
 *   <li>restarts an agent whose process dies of its own accord (killed from outside: the pod's
 *       restart policy is {@code OnFailure}), in the same pod with the same state directory, and
 *       writes the status a kubelet writes then: the container running again, its restart count up
 *       by one and its last state terminated with the exit code.
 * </ul>
 *
 * Failures are staged per pod: {@link #plan} makes a pod fail instead of starting (never scheduled,
 * image pull backing off, invalid image name, configuration error), {@link #inject} makes a running
 * pod's agent fail (killed for memory, crash-looping, evicted, its node lost). Each writes the
 * status a real kubelet (or scheduler, or node controller) reports in that case; where the agent
 * dies, its process is killed first.
 */
public final class KubeletSimulator implements AutoCloseable {
  static final String FINALIZER = "sim.berth.dev/kubelet";

  /**
   * The next pod IP: pods of every simulator in this JVM get distinct ones, from a random start so
   * that an agent a killed earlier run left behind does not hold the address a new pod gets.
   */
  private static final AtomicInteger NEXT_IP =
      new AtomicInteger(new java.security.SecureRandom().nextInt(1 << 20));

  /** A loopback address no other simulated pod of this JVM has: 127.64.0.1 to 127.253.255.254. */
  static String nextPodIp() {
    int n = NEXT_IP.getAndIncrement() % (190 * 256 * 254);
    return "127." + (64 + n / (256 * 254)) + "." + (n / 254 % 256) + "." + (1 + n % 254);
  }

  /** What can go wrong with a pod, and the status the cluster then reports. */
  public enum Fault {
    NEVER_SCHEDULED(true),
    IMAGE_PULL_BACKOFF(true),
    INVALID_IMAGE(true),
    CONFIG_ERROR(true),
    OOM_KILLED(false),
    CRASH_LOOP(false),
    EVICTED(false),
    NODE_LOST(false);

    private final boolean beforeStart;

    Fault(boolean beforeStart) {
      this.beforeStart = beforeStart;
    }

    boolean beforeStart() {
      return beforeStart;
    }
  }

  private final KubernetesClient client;
  private final String namespace;
  private final Path root;
  private final Map<String, Fault> planned = new ConcurrentHashMap<>();
  private final Map<String, Fault> byImage = new ConcurrentHashMap<>();
  private final java.util.Queue<Fault> nextPods =
      new java.util.concurrent.ConcurrentLinkedQueue<>();
  private final Map<String, SimulatedPod> pods = new ConcurrentHashMap<>();
  private final ExecutorService work = Executors.newCachedThreadPool();
  private final Watch watch;

  private KubeletSimulator(KubernetesClient client, String namespace, Path root) {
    this.client = client;
    this.namespace = namespace;
    this.root = root;
    this.watch = client.pods().inNamespace(namespace).watch(new Events());
  }

  /** Starts simulating the nodes of {@code namespace}; pods' state directories go under root. */
  public static KubeletSimulator start(KubernetesClient client, String namespace, Path root) {
    return new KubeletSimulator(client, namespace, root);
  }

  /** The pod {@code podName}, once created, fails with {@code fault} instead of starting. */
  public void plan(String podName, Fault fault) {
    if (!fault.beforeStart()) {
      throw new IllegalArgumentException(fault + " happens to a running pod: inject it");
    }
    planned.put(podName, fault);
  }

  /**
   * The next pod created, whatever its name, fails with {@code fault} instead of starting: for a
   * test that learns a session's id (and so its pod's name) only once the pod may exist.
   */
  public void planNext(Fault fault) {
    if (!fault.beforeStart()) {
      throw new IllegalArgumentException(fault + " happens to a running pod: inject it");
    }
    nextPods.add(fault);
  }

  /**
   * Every pod whose agent container runs {@code image} fails with {@code fault} instead of
   * starting: for a test whose pods come from a control plane of their own (given that image),
   * while other control planes create pods beside them.
   */
  public void planImage(String image, Fault fault) {
    if (!fault.beforeStart()) {
      throw new IllegalArgumentException(fault + " happens to a running pod: inject it");
    }
    byImage.put(image, fault);
  }

  /** The running pod {@code podName}'s agent fails with {@code fault}. */
  public void inject(String podName, Fault fault) {
    if (fault.beforeStart()) {
      throw new IllegalArgumentException(fault + " happens before the start: plan it");
    }
    SimulatedPod pod = pods.get(podName);
    if (pod == null) {
      throw new IllegalStateException("no simulated pod " + podName);
    }
    pod.fail(fault);
  }

  /** How many simulated pods' agents run now. */
  public long agentsRunning() {
    return pods.values().stream().filter(SimulatedPod::alive).count();
  }

  @Override
  public void close() {
    watch.close();
    pods.values().forEach(SimulatedPod::kill);
    work.shutdownNow();
    NodeCleanup.unmountUnder(root);
  }

  private PodResource pod(String name) {
    return client.pods().inNamespace(namespace).withName(name);
  }

  private final class Events implements Watcher<Pod> {
    @Override
    public void eventReceived(Action action, Pod pod) {
      String name = pod.getMetadata().getName();
      switch (action) {
        case ADDED, MODIFIED -> {
          SimulatedPod simulated = pods.computeIfAbsent(name, SimulatedPod::new);
          if (pod.getMetadata().getDeletionTimestamp() != null) {
            work.execute(simulated::terminate);
          } else {
            work.execute(simulated::start);
          }
        }
        case DELETED -> {
          SimulatedPod gone = pods.remove(name);
          if (gone != null) {
            work.execute(gone::kill);
          }
        }
        case BOOKMARK, ERROR -> {}
      }
    }

    @Override
    public void onClose(WatcherException cause) {
      throw new IllegalStateException("the kubelet simulator lost its watch", cause);
    }
  }

  /** One pod on the simulated node; its methods run one at a time, as a kubelet's pod worker. */
  private final class SimulatedPod {
    private final String name;
    private final String ip = nextPodIp();
    private boolean started;
    private boolean terminating;
    private @Nullable Process agent;
    private @Nullable Process proxy;
    private int restarts;

    /** Set once the simulator itself ends the agent (a stop, a kill, a fault): no restart then. */
    private volatile boolean ending;

    SimulatedPod(String name) {
      this.name = name;
    }

    synchronized void start() {
      if (started || terminating) {
        return;
      }
      started = true;
      try {
        editMetadata(m -> m.getFinalizers().add(FINALIZER));
        Pod created = pod(name).get();
        Fault fault = planned.remove(name);
        if (fault == null && created != null) {
          fault = byImage.get(created.getSpec().getContainers().getFirst().getImage());
        }
        if (fault == null) {
          fault = nextPods.poll();
        }
        if (fault != null) {
          status(failed(fault));
          return;
        }
        Pod pod = pod(name).get();
        if (pod == null) {
          return;
        }
        Optional<io.fabric8.kubernetes.api.model.Container> sidecar =
            SimulatedContainers.container(pod, ProxySidecar.CONTAINER);
        if (sidecar.isPresent()) {
          SimulatedContainers.Environment env =
              SimulatedContainers.environment(client, namespace, sidecar.get());
          if (env.configError().isPresent()) {
            status(
                pending(
                    new ContainerStatusBuilder(
                            waiting("CreateContainerConfigError", env.configError().get()))
                        .withName(ProxySidecar.CONTAINER)
                        .build()));
            return;
          }
          Process started =
              SimulatedContainers.startProxy(
                  sidecar.get(), env.values(), ip, root.resolve(name + ".proxy.log"));
          proxy = started;
          SimulatedContainers.awaitLine(
              started, dev.berth.agent.proxy.ProxyMain.READY, work, "the proxy of pod " + name);
        }
        Process process = launch(pod);
        agent = process;
        int port = awaitListening(process);
        if (sidecar.isPresent()) {
          SimulatedContainers.awaitReady(ip, port, "the agent of pod " + name);
        }
        status(runningStatus(ip, sidecar.isPresent()));
        restartWhenItDies(process);
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404) {
          throw e;
        }
        kill();
      }
    }

    /**
     * When {@code process} dies and the simulator did not end it, a kubelet starts the container
     * again ({@code restartPolicy: OnFailure}).
     */
    private void restartWhenItDies(Process process) {
      var unused =
          process
              .onExit()
              .thenRun(
                  () -> {
                    if (!ending) {
                      try {
                        work.execute(() -> restartAfter(process));
                      } catch (java.util.concurrent.RejectedExecutionException e) {
                        // The simulator is closing: nothing is restarted any more.
                      }
                    }
                  });
    }

    private synchronized void restartAfter(Process died) {
      if (ending || terminating || agent != died) {
        return;
      }
      try {
        Pod pod = pod(name).get();
        if (pod == null || pod.getMetadata().getDeletionTimestamp() != null) {
          return;
        }
        restarts++;
        Process process = launch(pod);
        agent = process;
        awaitListening(process);
        PodStatus running = runningStatus(ip, proxy != null);
        for (ContainerStatus container : running.getContainerStatuses()) {
          if (RuntimePods.CONTAINER.equals(container.getName())) {
            container.setRestartCount(restarts);
            container.setLastState(
                new io.fabric8.kubernetes.api.model.ContainerStateBuilder()
                    .withNewTerminated()
                    .withReason("Error")
                    .withExitCode(died.exitValue())
                    .withFinishedAt(Instant.now().toString())
                    .endTerminated()
                    .build());
          }
        }
        status(running);
        restartWhenItDies(process);
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404) {
          throw e;
        }
        kill();
      }
    }

    synchronized void fail(Fault fault) {
      kill();
      status(failed(fault));
    }

    synchronized void terminate() {
      if (terminating) {
        return;
      }
      terminating = true;
      stop();
      try {
        editMetadata(m -> m.getFinalizers().remove(FINALIZER));
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404) {
          throw e;
        }
      }
    }

    synchronized boolean alive() {
      return agent != null && agent.isAlive();
    }

    /** The agent container's process, while it runs. */
    synchronized Optional<ProcessHandle> agentProcess() {
      return Optional.ofNullable(agent).filter(Process::isAlive).map(Process::toHandle);
    }

    /** The proxy container's process, while it runs. */
    synchronized Optional<ProcessHandle> proxyProcess() {
      return Optional.ofNullable(proxy).filter(Process::isAlive).map(Process::toHandle);
    }

    /** SIGTERM, as a kubelet stops a container, then SIGKILL after a grace period. */
    private void stop() {
      ending = true;
      Process sidecar = proxy;
      if (sidecar != null) {
        sidecar.destroy();
      }
      Process process = agent;
      if (process == null) {
        return;
      }
      process.destroy();
      try {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          kill();
        }
        NodeCleanup.unmountUnder(root.resolve(name));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        kill();
      }
    }

    /** SIGKILL to the agent and everything it started: the node's view when it dies. */
    void kill() {
      ending = true;
      Process sidecar = proxy;
      if (sidecar != null) {
        sidecar.destroyForcibly();
        sidecar.onExit().join();
      }
      Process process = agent;
      if (process != null) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.onExit().join();
        NodeCleanup.unmountUnder(root.resolve(name));
      }
    }

    private void editMetadata(Consumer<ObjectMeta> change) {
      pod(name)
          .edit(
              p -> {
                change.accept(p.getMetadata());
                return p;
              });
    }

    private void status(PodStatus status) {
      pod(name).editStatus(p -> new PodBuilder(p).withStatus(status).build());
    }

    private Process launch(Pod pod) {
      // Each pod has a /tmp of its own, as a container has: what its agent leaves there when it is
      // killed (a sandbox's /etc files, pty4j's library) goes with the pod's directory.
      Path tmp;
      try {
        tmp = Files.createDirectories(root.resolve(name + ".tmp"));
      } catch (IOException e) {
        throw new UncheckedIOException("could not make the /tmp of pod " + name, e);
      }
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(
          List.of(
              "-Djava.io.tmpdir=" + tmp,
              "-XX:-UsePerfData",
              "-XX:TieredStopAtLevel=1",
              "-XX:+UseSerialGC",
              "-Xmx256m",
              "--enable-native-access=ALL-UNNAMED",
              "-cp",
              System.getProperty("java.class.path"),
              SimulatedPodAgent.class.getName()));
      command.addAll(rewritten(pod.getSpec().getContainers().getFirst().getArgs(), ip));
      ProcessBuilder builder = new ProcessBuilder(command);
      builder.environment().put(RuntimePods.TOKEN_VARIABLE, token(pod));
      try {
        Files.createDirectories(root.resolve(name));
        builder.redirectError(root.resolve(name + ".log").toFile());
        return builder.start();
      } catch (IOException e) {
        throw new UncheckedIOException("could not start the agent of pod " + name, e);
      }
    }

    /** The pod's emptyDir, its own IP for the agent's address, and for its proxy's (see above). */
    private List<String> rewritten(List<String> args, String podIp) {
      List<String> out = new ArrayList<>(args);
      out.set(out.indexOf("--state-dir") + 1, root.resolve(name).toString());
      String listen = out.get(out.indexOf("--listen") + 1);
      out.set(out.indexOf("--listen") + 1, podIp + listen.substring(listen.lastIndexOf(':')));
      int proxyAt = out.indexOf("--proxy");
      if (proxyAt >= 0) {
        out.set(proxyAt + 1, out.get(proxyAt + 1).replace("127.0.0.1", podIp));
      }
      return out;
    }

    /** The token the pod's env takes from its Secret, as the kubelet resolves it. */
    private String token(Pod pod) {
      EnvVar env =
          pod.getSpec().getContainers().getFirst().getEnv().stream()
              .filter(e -> e.getName().equals(RuntimePods.TOKEN_VARIABLE))
              .findFirst()
              .orElseThrow();
      SecretKeySelector ref = env.getValueFrom().getSecretKeyRef();
      Secret secret = client.secrets().inNamespace(namespace).withName(ref.getName()).get();
      if (secret == null) {
        throw new IllegalStateException("pod " + name + " refers to a missing Secret");
      }
      return Optional.ofNullable(secret.getData())
          .map(d -> d.get(ref.getKey()))
          .map(v -> new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8))
          .orElseGet(() -> secret.getStringData().get(ref.getKey()));
    }

    /** Waits for the agent's "listening on port" line; its port. */
    private int awaitListening(Process process) {
      BufferedReader out =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      String line =
          CompletableFuture.supplyAsync(
                  () -> {
                    try {
                      // Lines before it are the agent's log, where the classpath has a logger
                      // that writes to standard output.
                      String read = out.readLine();
                      while (read != null && !read.startsWith(SimulatedPodAgent.LISTENING)) {
                        read = out.readLine();
                      }
                      return read;
                    } catch (IOException e) {
                      throw new UncheckedIOException(e);
                    }
                  },
                  work)
              .orTimeout(60, TimeUnit.SECONDS)
              .join();
      if (line == null || !line.startsWith(SimulatedPodAgent.LISTENING)) {
        throw new IllegalStateException(
            "the agent of pod "
                + name
                + " did not start; its log ends: "
                + logTail(root.resolve(name + ".log")));
      }
      work.execute(
          () -> {
            try {
              out.transferTo(Writer.nullWriter());
            } catch (IOException e) {
              // The agent is gone: nothing more to read.
            }
          });
      return Integer.parseInt(line.substring(SimulatedPodAgent.LISTENING.length()).strip());
    }
  }

  /** The last lines of a container's log, for a failure's message. */
  static String logTail(Path log) {
    try {
      List<String> lines =
          Files.readAllLines(log, StandardCharsets.UTF_8).stream()
              .filter(l -> !l.startsWith("\tat "))
              .toList();
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    } catch (IOException e) {
      return "(no log at " + log + ")";
    }
  }

  /** The process of the agent container of {@code podName}, while it runs. */
  public Optional<ProcessHandle> agentProcess(String podName) {
    SimulatedPod pod = pods.get(podName);
    return pod == null ? Optional.empty() : pod.agentProcess();
  }

  /** The process of the proxy container of {@code podName}, while it runs. */
  public Optional<ProcessHandle> proxyProcess(String podName) {
    SimulatedPod pod = pods.get(podName);
    return pod == null ? Optional.empty() : pod.proxyProcess();
  }

  /** Where the simulated pod {@code podName} has its state directory (its emptyDir). */
  public Path stateDirectory(String podName) {
    return root.resolve(podName);
  }

  private static PodStatus runningStatus(String ip, boolean withProxy) {
    List<ContainerStatus> containers = new ArrayList<>();
    containers.add(running(agent()));
    if (withProxy) {
      containers.add(
          running(
              new ContainerStatusBuilder()
                  .withName(ProxySidecar.CONTAINER)
                  .withImage("berth:test")
                  .withRestartCount(0)));
    }
    return new PodStatusBuilder()
        .withPhase("Running")
        .withPodIP(ip)
        .withHostIP("127.0.0.1")
        .addNewCondition()
        .withType("PodScheduled")
        .withStatus("True")
        .endCondition()
        .addNewCondition()
        .withType("Ready")
        .withStatus("True")
        .endCondition()
        .withContainerStatuses(containers)
        .build();
  }

  private static ContainerStatus running(ContainerStatusBuilder container) {
    return container
        .withReady(true)
        .withNewState()
        .withNewRunning()
        .withStartedAt(Instant.now().toString())
        .endRunning()
        .endState()
        .build();
  }

  private static PodStatus failed(Fault fault) {
    return switch (fault) {
      case NEVER_SCHEDULED ->
          new PodStatusBuilder()
              .withPhase("Pending")
              .addNewCondition()
              .withType("PodScheduled")
              .withStatus("False")
              .withReason("Unschedulable")
              .withMessage("0/3 nodes are available: 3 Insufficient memory.")
              .endCondition()
              .build();
      case IMAGE_PULL_BACKOFF ->
          pending(waiting("ImagePullBackOff", "Back-off pulling image \"berth:test\""));
      case INVALID_IMAGE ->
          pending(waiting("InvalidImageName", "couldn't parse image name \"berth:test\""));
      case CONFIG_ERROR ->
          pending(waiting("CreateContainerConfigError", "secret \"berth-token\" not found"));
      case OOM_KILLED ->
          runningPhase(
              agent()
                  .withNewState()
                  .withNewTerminated()
                  .withReason("OOMKilled")
                  .withExitCode(137)
                  .endTerminated()
                  .endState()
                  .build());
      case CRASH_LOOP ->
          runningPhase(
              new ContainerStatusBuilder(
                      waiting("CrashLoopBackOff", "back-off 2m40s restarting failed container"))
                  .withRestartCount(5)
                  .withNewLastState()
                  .withNewTerminated()
                  .withReason("Error")
                  .withExitCode(1)
                  .endTerminated()
                  .endLastState()
                  .build());
      case EVICTED ->
          new PodStatusBuilder()
              .withPhase("Failed")
              .withReason("Evicted")
              .withMessage("The node was low on resource: memory.")
              .build();
      case NODE_LOST ->
          new PodStatusBuilder()
              .withPhase("Unknown")
              .withReason("NodeLost")
              .withMessage("Node sim-node which was running pod is unresponsive")
              .build();
    };
  }

  private static PodStatus pending(ContainerStatus agent) {
    return new PodStatusBuilder()
        .withPhase("Pending")
        .addNewCondition()
        .withType("PodScheduled")
        .withStatus("True")
        .endCondition()
        .withContainerStatuses(agent)
        .build();
  }

  private static PodStatus runningPhase(ContainerStatus agent) {
    return new PodStatusBuilder().withPhase("Running").withContainerStatuses(agent).build();
  }

  private static ContainerStatus waiting(String reason, String message) {
    return agent()
        .withReady(false)
        .withNewState()
        .withNewWaiting()
        .withReason(reason)
        .withMessage(message)
        .endWaiting()
        .endState()
        .build();
  }

  private static ContainerStatusBuilder agent() {
    return new ContainerStatusBuilder()
        .withName(RuntimePods.CONTAINER)
        .withImage("berth:test")
        .withReady(false)
        .withRestartCount(0);
  }
}
