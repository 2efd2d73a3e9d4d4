package dev.berth.kubernetes.runtime;

import dev.berth.agent.proxy.ProxyMain;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretKeySelector;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What the {@link KubeletSimulator} does for a pod's containers beyond the agent: resolving a
 * container's environment as a kubelet does (plain values, and {@code secretKeyRef}s read from the
 * namespace's Secrets, a missing Secret or key being the kubelet's {@code
 * CreateContainerConfigError}), and running an agent session's {@code proxy} container as its own
 * process ({@link ProxyMain}, with that environment and nothing else of the test's).
 *
 * <p>The pod's loopback: in a cluster both containers share the pod's network namespace, so the
 * proxy listens on {@code 127.0.0.1:8091} and the agent's CLI reaches it there. Simulated pods
 * share the machine's loopback, so each pod's "127.0.0.1" is its own pod IP (an address in
 * 127.0.0.0/8): the proxy's {@code --listen} and the agent's {@code --proxy} are rewritten to it,
 * as the agent's {@code --listen} is.
 */
final class SimulatedContainers {

  private SimulatedContainers() {}

  /** The container's environment, or why the kubelet cannot make it (its message). */
  record Environment(Map<String, String> values, Optional<String> configError) {}

  static Optional<Container> container(Pod pod, String name) {
    return pod.getSpec().getContainers().stream().filter(c -> c.getName().equals(name)).findFirst();
  }

  static Environment environment(KubernetesClient client, String namespace, Container container) {
    Map<String, String> values = new LinkedHashMap<>();
    for (EnvVar env : container.getEnv()) {
      if (env.getValueFrom() == null) {
        values.put(env.getName(), env.getValue());
        continue;
      }
      SecretKeySelector ref = env.getValueFrom().getSecretKeyRef();
      Secret secret = client.secrets().inNamespace(namespace).withName(ref.getName()).get();
      if (secret == null) {
        return new Environment(values, Optional.of("secret \"" + ref.getName() + "\" not found"));
      }
      Optional<String> value = value(secret, ref.getKey());
      if (value.isEmpty()) {
        return new Environment(
            values,
            Optional.of(
                "couldn't find key "
                    + ref.getKey()
                    + " in Secret "
                    + namespace
                    + "/"
                    + ref.getName()));
      }
      values.put(env.getName(), value.get());
    }
    return new Environment(values, Optional.empty());
  }

  private static Optional<String> value(Secret secret, String key) {
    if (secret.getData() != null && secret.getData().get(key) != null) {
      return Optional.of(
          new String(
              Base64.getDecoder().decode(secret.getData().get(key)), StandardCharsets.UTF_8));
    }
    return Optional.ofNullable(secret.getStringData()).map(d -> d.get(key));
  }

  /** {@code berth proxy --session ... --listen <pod ip>:8091} with exactly {@code env}. */
  static Process startProxy(Container proxy, Map<String, String> env, String ip, Path log) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(
        List.of(
            "-XX:-UsePerfData",
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-Xmx64m",
            "-cp",
            System.getProperty("java.class.path"),
            ProxyMain.class.getName()));
    List<String> args = new ArrayList<>(proxy.getArgs().subList(1, proxy.getArgs().size()));
    String listen = args.get(args.indexOf("--listen") + 1);
    args.set(args.indexOf("--listen") + 1, ip + listen.substring(listen.lastIndexOf(':')));
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command);
    // A container's environment is its spec's, not the node's.
    builder.environment().clear();
    builder.environment().putAll(env);
    builder.environment().put("PATH", "/usr/bin:/bin");
    builder.redirectError(log.toFile());
    try {
      return builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start the proxy container", e);
    }
  }

  /** Reads the process's stdout until a line starting with {@code prefix}, then drains it. */
  static void awaitLine(Process process, String prefix, ExecutorService work, String what) {
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String line =
        CompletableFuture.supplyAsync(
                () -> {
                  try {
                    String read = out.readLine();
                    while (read != null && !read.startsWith(prefix)) {
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
    if (line == null) {
      throw new IllegalStateException(what + " did not start");
    }
    work.execute(
        () -> {
          try {
            out.transferTo(Writer.nullWriter());
          } catch (IOException e) {
            // Gone: nothing more to read.
          }
        });
  }

  /**
   * Waits until the agent's {@code /healthz} answers 200: its readiness probe, which for an agent
   * session holds once its proxy sidecar answered for the session.
   */
  static void awaitReady(String ip, int port, String what) {
    URI healthz = URI.create("http://" + ip + ":" + port + "/healthz");
    Instant deadline = Instant.now().plusSeconds(60);
    try (HttpClient http = HttpClient.newHttpClient()) {
      while (Instant.now().isBefore(deadline)) {
        try {
          HttpResponse<Void> answer =
              http.send(
                  HttpRequest.newBuilder(healthz).timeout(Duration.ofSeconds(2)).build(),
                  HttpResponse.BodyHandlers.discarding());
          if (answer.statusCode() == 200) {
            return;
          }
        } catch (IOException e) {
          // Not answering yet.
        }
        Thread.sleep(200);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    throw new IllegalStateException(what + " did not become ready within 60 s");
  }
}
