package dev.berth.kubernetes.store;

import dev.berth.kubernetes.store.KubeObjects.Edit;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.format.DateTimeParseException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims on the store, as a SQL store's advisory locks give them: what one process at a time may do
 * on the store (or only processes of one kind), however long it runs. A claim is a ConfigMap
 * ({@code berth-claim-<installation>-<key>}) listing its holders, each with its mode and an expiry
 * that a thread of the holder renews every third of {@link #TTL}; an exclusive claim conflicts with
 * any other live holder, a shared one with a live exclusive one.
 *
 * <p>Unlike a database session's lock, a claim does not end when its process dies: it ends when its
 * expiry passes (judged by the injected clock), so a second process is refused for up to {@link
 * #TTL} after the first one was killed. A holder that comes back under the same name (a restarted
 * replica) takes its own entry over at once.
 */
public final class ConfigMapClaims {

  /** How long a holder's entry lasts without renewal. */
  public static final Duration TTL = Duration.ofSeconds(30);

  private static final Logger LOG = LoggerFactory.getLogger(ConfigMapClaims.class);
  private static final String KIND = "claim";
  private static final String HOLDER_PREFIX = "holder.";
  private static final String EXCLUSIVE = "exclusive";
  private static final String SHARED = "shared";

  private final KubeObjects<ConfigMap> configMaps;
  private final Layout layout;
  private final InstantSource clock;

  /**
   * @param namespace where the store's objects live; the service account needs get, create and
   *     update on configmaps there
   * @param installation as the {@link ConfigMapSessionStore} of the namespace is opened with
   * @param clock judges the holders' expiry
   */
  public ConfigMapClaims(
      KubernetesClient client, String namespace, String installation, InstantSource clock) {
    this.configMaps = new KubeObjects<>(client, ConfigMap.class, "configmaps", namespace);
    this.layout = new Layout(installation);
    this.clock = clock;
  }

  /**
   * Claims {@code key} for {@code holder} until the handle is closed (or, once its process stops
   * renewing, {@link #TTL} later), or refuses at once when another live holder's claim conflicts.
   *
   * @param key a DNS label naming what is claimed
   * @param refusal what the refusal says: who holds the claim, and what to do instead
   * @throws ClaimRefusedException with {@code refusal} when the claim conflicts with another's
   */
  public AutoCloseable claim(String key, String holder, boolean shared, String refusal) {
    String name = layout.claim(key);
    String entry = HOLDER_PREFIX + digest(holder);
    String mode = shared ? SHARED : EXCLUSIVE;
    renew(name, entry, mode, holder, refusal);
    ScheduledExecutorService renewer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "berth-claim-" + key);
              t.setDaemon(true);
              return t;
            });
    long period = TTL.toMillis() / 3;
    var unused =
        renewer.scheduleWithFixedDelay(
            () -> renewQuietly(name, entry, mode, holder, refusal),
            period,
            period,
            TimeUnit.MILLISECONDS);
    return () -> {
      renewer.shutdownNow();
      renewer.awaitTermination(10, TimeUnit.SECONDS);
      release(name, entry);
    };
  }

  private void renew(String name, String entry, String mode, String holder, String refusal) {
    configMaps.edit(
        name,
        current -> {
          Instant now = clock.instant();
          ConfigMap cm = current.orElseGet(() -> newClaim(name));
          Map<String, String> data = ConfigMapData.of(cm);
          data.entrySet()
              .removeIf(e -> e.getKey().startsWith(HOLDER_PREFIX) && !live(cm, e.getValue(), now));
          for (Map.Entry<String, String> other : data.entrySet()) {
            if (other.getKey().startsWith(HOLDER_PREFIX)
                && !other.getKey().equals(entry)
                && (mode.equals(EXCLUSIVE) || modeOf(other.getValue()).equals(EXCLUSIVE))) {
              throw new ClaimRefusedException(refusal);
            }
          }
          data.put(entry, mode + " " + now.plus(TTL) + " " + holder);
          return Edit.write(cm, true);
        });
  }

  private void renewQuietly(String name, String entry, String mode, String holder, String refusal) {
    try {
      renew(name, entry, mode, holder, refusal);
    } catch (RuntimeException e) {
      LOG.warn(
          "renewing claim {} of {} failed; the next renewal retries (it lapses {} after the last"
              + " one that went through)",
          name,
          holder,
          TTL,
          e);
    }
  }

  private void release(String name, String entry) {
    configMaps.edit(
        name,
        current -> {
          if (current.isEmpty() || ConfigMapData.of(current.get()).remove(entry) == null) {
            return Edit.keep(false);
          }
          return Edit.write(current.get(), true);
        });
  }

  /** An entry is {@code <mode> <expiry> <holder>}; one that cannot be read counts as lapsed. */
  private static boolean live(ConfigMap cm, String value, Instant now) {
    String[] parts = value.split(" ", 3);
    try {
      return parts.length == 3 && Instant.parse(parts[1]).isAfter(now);
    } catch (DateTimeParseException e) {
      LOG.warn("ConfigMap {} holds an unreadable claim entry \"{}\"; dropped", name(cm), value);
      return false;
    }
  }

  private static String modeOf(String value) {
    return value.split(" ", 2)[0];
  }

  private static String name(ConfigMap cm) {
    return cm.getMetadata().getName();
  }

  private ConfigMap newClaim(String name) {
    ConfigMap cm = new ConfigMap();
    cm.setMetadata(Layout.metadata(name, layout.selector(KIND)));
    return cm;
  }

  /** A holder name as a data key, which allows only letters, digits, '-', '_' and '.'. */
  private static String digest(String holder) {
    try {
      byte[] sha =
          MessageDigest.getInstance("SHA-256").digest(holder.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(sha, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
