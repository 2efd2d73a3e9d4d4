package dev.berth.kubernetes.store;

import dev.berth.core.session.TenantId;
import dev.berth.core.tenant.AdmissionLock;
import dev.berth.kubernetes.store.KubeObjects.Edit;
import dev.berth.kubernetes.store.LeaseObjects.Held;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * The {@link AdmissionLock} of the control planes sharing a namespace's store: a Lease per tenant
 * ({@code berth-admission-<installation>-<tenant>}), taken by a compare-and-swap for the count and
 * create of one admission and freed right after, so that two replicas that each see room for one
 * more session cannot both create it. Every hold has a holder of its own, so it excludes the other
 * threads of this process too.
 *
 * <p>A process that dies holding it leaves the Lease held until its {@link #TTL} runs out (judged
 * by the injected clock): the tenant's admissions wait that long at most. An admission is a count
 * and a create, far shorter than the TTL; one that is not still finishes, but may then overlap the
 * next holder's.
 */
public final class LeaseAdmissionLock implements AdmissionLock {

  /** How long a hold lasts unless freed: far longer than an admission's count and create. */
  static final Duration TTL = Duration.ofSeconds(30);

  /** How long a hold waits for the Lease before it gives up: past one TTL of a dead holder. */
  static final Duration PATIENCE = TTL.multipliedBy(2);

  static final String KIND = "admission";

  private final KubeObjects<Lease> leases;
  private final Layout layout;
  private final InstantSource clock;
  private final String process;
  private final SecureRandom random = new SecureRandom();

  /**
   * @param namespace where the store's objects live; the service account needs get, create and
   *     update on leases there
   * @param installation as the {@link ConfigMapSessionStore} of the namespace is opened with
   * @param clock judges a hold's expiry
   */
  public LeaseAdmissionLock(
      KubernetesClient client, String namespace, String installation, InstantSource clock) {
    this.leases = new KubeObjects<>(client, Lease.class, "leases", namespace);
    this.layout = new Layout(installation);
    this.clock = clock;
    this.process = randomHex();
  }

  @Override
  public <T> T holding(TenantId tenant, Supplier<T> work) {
    String name = layout.admission(tenant.value());
    String holder = process + "-" + randomHex();
    take(name, holder, tenant);
    try {
      return work.get();
    } finally {
      free(name, holder);
    }
  }

  private void take(String name, String holder, TenantId tenant) {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!tryTake(name, holder)) {
      if (System.nanoTime() - deadline > 0) {
        throw new KubernetesStoreException(
            "the admission of a session of tenant "
                + tenant
                + " waited "
                + PATIENCE
                + " for Lease "
                + name
                + ", held all along by other admissions; find the replica that holds it (its"
                + " holderIdentity), or delete the Lease if no replica runs");
      }
      try {
        Thread.sleep(5 + ThreadLocalRandom.current().nextInt(20));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new KubernetesStoreException(
            "interrupted while waiting for Lease " + name + " to admit a session", e);
      }
    }
  }

  private boolean tryTake(String name, String holder) {
    return leases.edit(
        name,
        current -> {
          Instant now = clock.instant();
          Held held = current.map(LeaseObjects::read).orElse(Held.NEVER);
          if (held.isLiveAt(now)) {
            return Edit.keep(false);
          }
          Lease lease = current.orElseGet(() -> newLease(name));
          LeaseObjects.hold(lease, holder, held.token() + 1, now, TTL);
          return Edit.write(lease, true);
        });
  }

  private void free(String name, String holder) {
    leases.edit(
        name,
        current -> {
          Held held = current.map(LeaseObjects::read).orElse(Held.NEVER);
          if (current.isEmpty() || !holder.equals(held.holder())) {
            return Edit.keep(false);
          }
          LeaseObjects.free(current.get());
          return Edit.write(current.get(), true);
        });
  }

  private String randomHex() {
    byte[] bytes = new byte[6];
    random.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  private Lease newLease(String name) {
    Lease lease = new Lease();
    lease.setMetadata(Layout.metadata(name, layout.selector(KIND)));
    lease.setSpec(new LeaseSpec());
    return lease;
  }
}
