package dev.berth.server.runtime.local;

import dev.berth.core.error.IsolationUnavailableException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What the local node can enforce ({@code GET /v1/isolation} of the node), and the {@code
 * --require-isolation} rule built on it: with the rule on, a session is created only on a node
 * whose sessions get user, mount, PID and network namespaces and a cgroup; without it they run all
 * the same and every report carries the node's {@code weaknesses}.
 */
public final class NodeIsolation {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final LocalNode node;
  private final boolean required;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private volatile @Nullable JsonNode report;

  public NodeIsolation(LocalNode node, boolean required) {
    this.node = node;
    this.required = required;
  }

  /** Whether sessions are refused on a node that cannot isolate them. */
  public boolean required() {
    return required;
  }

  /** The node's report, read once (the node keeps its sandbox until it restarts). */
  public JsonNode report() {
    JsonNode known = report;
    if (known != null) {
      return known;
    }
    LocalNode.Connection connection = node.ensureRunning();
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(URI.create(connection.baseUrl() + "/v1/isolation"))
                  .header("Authorization", "Bearer " + connection.token())
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(
            "the node answered " + response.statusCode() + " to GET /v1/isolation");
      }
      known = JSON.readTree(response.body());
      report = known;
      return known;
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the node's isolation: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading the node's isolation", e);
    }
  }

  /**
   * What keeps the node from isolating a session, for the rule: no sandbox (hence no user, mount,
   * PID or network namespace) or no cgroup.
   */
  public List<String> missing() {
    JsonNode isolation = report();
    List<String> missing = new ArrayList<>();
    if (!isolation.path("sandbox").asString().equals("bwrap")) {
      missing.add("user, mount, PID and network namespaces (bubblewrap)");
    }
    if (isolation.path("cgroup").asString().equals("none")) {
      missing.add("a writable cgroup");
    }
    return missing;
  }

  /**
   * Refuses a new session when the rule is on and the node cannot isolate it.
   *
   * @throws IsolationUnavailableException naming what is missing and the way out
   */
  public void requireForNewSession() {
    if (!required) {
      return;
    }
    List<String> missing;
    try {
      missing = missing();
    } catch (IllegalStateException e) {
      throw new IsolationUnavailableException(
          "this server requires isolation (--require-isolation) and cannot tell what the node"
              + " enforces: "
              + e.getMessage());
    }
    if (!missing.isEmpty()) {
      throw new IsolationUnavailableException(
          "this server requires isolation (--require-isolation) and its node cannot give a session "
              + String.join(" or ", missing)
              + "; run the server as root (or in a delegated cgroup) with bubblewrap installed, or"
              + " start it without --require-isolation");
    }
  }

  /** The table printed at start: one line per part of the boundary, and what is not enforced. */
  public List<String> table() {
    JsonNode isolation;
    try {
      isolation = report();
    } catch (IllegalStateException e) {
      return List.of("isolation: unknown (" + e.getMessage() + ")");
    }
    JsonNode limits = isolation.path("limits");
    JsonNode user = isolation.path("user");
    List<String> lines = new ArrayList<>();
    lines.add("Session isolation on this host:");
    lines.add(row("sandbox", isolation.path("sandbox").asString()));
    lines.add(row("namespaces", join(isolation.path("namespaces"))));
    lines.add(
        row(
            "user",
            isolation.path("sandbox").asString().equals("bwrap")
                ? "uid "
                    + user.path("uid").asLong()
                    + " ("
                    + user.path("name").asString()
                    + ") inside, "
                    + (user.path("dedicated").asBoolean()
                        ? "a dedicated host uid per session"
                        : "the node's own host uid " + user.path("hostUid").asLong())
                : "the node's own user"));
    lines.add(row("network", isolation.path("network").path("mode").asString()));
    lines.add(
        row(
            "seccomp",
            isolation.path("seccomp").path("mode").asString()
                + (isolation.path("seccomp").path("denied").isEmpty()
                    ? ""
                    : " (" + isolation.path("seccomp").path("denied").size() + " calls denied)")));
    lines.add(row("cgroup", isolation.path("cgroup").asString()));
    lines.add(
        row(
            "limits",
            limits.path("maxProcesses").asLong()
                + " processes, "
                + (limits.path("maxMemoryBytes").asLong() >> 20)
                + " MiB memory, "
                + (isolation.path("cpuLimited").asBoolean()
                    ? limits.path("cpuMillis").asLong() / 1000.0 + " CPU"
                    : "CPU not limited")
                + ", "
                + (limits.path("maxFileSizeBytes").asLong() >> 20)
                + " MiB per file"));
    lines.add(row("disk", disk(isolation)));
    JsonNode weaknesses = isolation.path("weaknesses");
    if (weaknesses.isEmpty()) {
      lines.add(row("not enforced", "nothing: sessions are fully isolated"));
    } else {
      weaknesses.forEach(w -> lines.add(row("not enforced", w.asString())));
    }
    if (required) {
      lines.add(
          row(
              "--require-isolation",
              missing().isEmpty() ? "met" : "NOT met: new sessions are refused"));
    }
    return lines;
  }

  /** The node's report when it could be read, for callers that must not fail. */
  public Optional<JsonNode> reportIfKnown() {
    try {
      return Optional.of(report());
    } catch (IllegalStateException e) {
      return Optional.empty();
    }
  }

  private static String disk(JsonNode isolation) {
    long mib = isolation.path("limits").path("maxDiskBytes").asLong() >> 20;
    String size = mib % 1024 == 0 ? (mib / 1024) + " GiB" : mib + " MiB";
    return switch (isolation.path("disk").asString()) {
      case "loop" -> size + " per session (an ext4 image on a loop device)";
      case "fuse" -> size + " per session (an ext4 image through fuse2fs)";
      default -> size + " per session, measured but not enforced";
    };
  }

  private static String row(String name, String value) {
    return "  " + String.format("%-20s", name) + value;
  }

  private static String join(JsonNode array) {
    List<String> values = new ArrayList<>();
    array.forEach(v -> values.add(v.asString()));
    return values.isEmpty() ? "none" : String.join(", ", values);
  }
}
