package dev.berth.kubernetes.store;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.store.Duties;
import dev.berth.kubernetes.store.KubeObjects.Edit;
import dev.berth.kubernetes.store.LeaseObjects.Held;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.regex.Pattern;

/**
 * The {@link Duties} on Kubernetes: one Lease per duty ({@code berth-duty-<installation>-<duty>}),
 * kept as the session leases are ({@link LeaseObjects}: the holder in the spec, the exact expiry in
 * an annotation). Taking, renewing and taking over are one compare-and-swap of the Lease, so of
 * holders racing for a free duty exactly one gets it. Expiry is judged by the injected clock.
 */
public final class LeaseDuties implements Duties {

  static final String KIND = "duty";
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");

  private final KubeObjects<Lease> leases;
  private final Layout layout;
  private final InstantSource clock;

  /**
   * @param namespace where the store's objects live; the service account needs get, create and
   *     update on leases there
   * @param installation as the {@link ConfigMapSessionStore} of the namespace is opened with
   * @param clock judges expiry
   */
  public LeaseDuties(
      KubernetesClient client, String namespace, String installation, InstantSource clock) {
    this.leases = new KubeObjects<>(client, Lease.class, "leases", namespace);
    this.layout = new Layout(installation);
    this.clock = clock;
  }

  @Override
  public boolean hold(String duty, String holder, Duration ttl) {
    if (!NAME.matcher(duty).matches()) {
      throw new InvalidValueException(
          "duty must be 1-63 lowercase letters, digits or inner '-' (it names a Lease), was \""
              + duty
              + "\"");
    }
    return leases.edit(
        layout.duty(duty),
        current -> {
          Instant now = clock.instant();
          Held held = current.map(LeaseObjects::read).orElse(Held.NEVER);
          boolean live = held.isLiveAt(now);
          if (live && !holder.equals(held.holder())) {
            return Edit.keep(false);
          }
          Lease lease = current.orElseGet(() -> newLease(duty));
          LeaseObjects.hold(lease, holder, live ? held.token() : held.token() + 1, now, ttl);
          return Edit.write(lease, true);
        });
  }

  private Lease newLease(String duty) {
    Lease lease = new Lease();
    lease.setMetadata(Layout.metadata(layout.duty(duty), layout.selector(KIND)));
    lease.setSpec(new LeaseSpec());
    return lease;
  }
}
