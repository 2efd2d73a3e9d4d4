/**
 * The store on Kubernetes ({@code berth server --store kubernetes://NAMESPACE}): {@link
 * dev.berth.kubernetes.store.ConfigMapSessionStore} keeps an installation's records in ConfigMaps
 * and its session leases in {@code coordination.k8s.io/v1} Leases, in one namespace, through the
 * API server alone; beside it, on the same namespace, {@link
 * dev.berth.kubernetes.store.ConfigMapTenantDirectory} keeps the tenants and their tokens, {@link
 * dev.berth.kubernetes.store.ConfigMapApprovals} the approvals, {@link
 * dev.berth.kubernetes.store.LeaseDuties} the replica duties, {@link
 * dev.berth.kubernetes.store.LeaseAdmissionLock} the admission lock, {@link
 * dev.berth.kubernetes.store.ConfigMapClaims} the claims on the store and {@link
 * dev.berth.kubernetes.store.ConfigMapInstallation} the installation's id.
 *
 * <h2>Layout</h2>
 *
 * <ul>
 *   <li>{@code session-<id>}: the session's JSON under data key {@code session}, and each of its
 *       operations under {@code operation.<operation id>}; annotation {@code berth.dev/fence}.
 *   <li>{@code execution-<id>}: one execution's JSON under {@code execution}.
 *   <li>{@code berth-audit-<installation>-<sequence>}: one audit event under {@code event}; {@code
 *       berth-audit-<installation>-head} holds the highest sequence known taken.
 *   <li>{@code berth-lease-<id>}: the session's Lease; annotations {@code berth.dev/fencing-token}
 *       and {@code berth.dev/expires-at}.
 *   <li>{@code berth-installation}: the installation's id under {@code id}; fixed, since it is read
 *       before the installation is known, so a namespace holds one installation's store.
 *   <li>{@code berth-tenants-<installation>}: every tenant under {@code tenant.<id>} (one object,
 *       so that a service account listed by two tenants is refused in one compare-and-swap).
 *   <li>{@code berth-token-<installation>-<digest>}: one API token's digest record.
 *   <li>{@code approval-<session>-<suffix>}: one approval, labelled with its state.
 *   <li>{@code berth-duty-<installation>-<duty>}, {@code berth-admission-<installation>-<tenant>}:
 *       Leases of a replica duty and of one tenant's admissions.
 *   <li>{@code berth-claim-<installation>-<key>}: the holders of a claim, each with an expiry its
 *       process renews.
 * </ul>
 *
 * Every object is labelled {@code app.kubernetes.io/managed-by=berth}, {@code
 * berth.dev/installation=<installation>}, {@code berth.dev/kind=<kind>} and, where it has one,
 * {@code berth.dev/session=<id>}; session ConfigMaps also carry tenant, phase, deleted and
 * unfinished-operations labels for selection. Records are JSON in the body format the SQL store
 * writes too ({@link dev.berth.store.StoreJson}, shared through berth-store), and each record's own
 * {@code version} lives in its JSON: the resourceVersion of an object only serialises writes, so a
 * write that conflicts on it (409) reads again and fails with a version conflict only when the
 * record's version moved.
 *
 * <h2>Why fenced writes hold against a takeover</h2>
 *
 * The API server changes one object atomically and nothing more, and a lease and the record a
 * fenced write changes are two objects. Checking the Lease and then writing the ConfigMap leaves a
 * gap: the writer reads its token as current, another holder takes the expired lease over, and the
 * stale write then lands after the takeover. A check of the Lease's resourceVersion cannot close
 * that gap, since no write can be conditional on another object's resourceVersion.
 *
 * <p>So the fence is kept in the object the write changes. A session's ConfigMap carries the
 * highest token its writes were accepted under ({@code berth.dev/fence}). An acquisition that
 * issues a new token raises that fence (a compare-and-swap of the ConfigMap) before it hands out
 * the lease. A fenced write reads the Lease, requires that its token is the Lease's, then, in the
 * same compare-and-swap that writes the record, requires that the ConfigMap's fence is not above
 * its token (and records its token there). A takeover that comes between the writer's Lease read
 * and its write has raised the fence by then, or changed the resourceVersion the writer read, and
 * then the writer reads again and finds the higher fence. Either way the stale write fails with
 * {@link dev.berth.core.error.StaleFenceException}. A write that lands before the raise is ordered
 * before the takeover, since the new holder has not been handed the lease yet. An acquisition that
 * stopped between its Lease write and its raise leaves the fence low. The Lease check then still
 * refuses the old token to every writer that reads the Lease after that write. The next acquire of
 * the new holder raises the fence: every acquire raises it when it is low.
 *
 * <p>Operations are fenced like sessions, so they live in their session's ConfigMap, under the same
 * fence. Separate ConfigMaps would each need their fence raised on every takeover, and an operation
 * created during a takeover could escape that raise. Executions and audit events are not fenced,
 * and a session has many of them, so each has its own ConfigMap.
 *
 * <h2>Limits</h2>
 *
 * <ul>
 *   <li>A ConfigMap holds at most 1 MiB, so a session's JSON and all its operations must fit: a few
 *       hundred operations of the usual size.
 *   <li>A listing reads every session its labels select and sorts them in the adapter (the API
 *       server cannot order by creation time), so its cost grows with the installation.
 *   <li>Only equality label selectors are used, the only kind the fabric8 mock server honours.
 *   <li>The tenants share one ConfigMap: their records together must stay under about 1 MB.
 *   <li>The installation-wide audit log, the gauges' counts and the approval sweep read every
 *       object of their kind.
 *   <li>A session created while its lease is being taken over gets no fence raise. The Lease check
 *       alone guards its first writes. No caller leases a session before it creates it.
 * </ul>
 */
@NullMarked
package dev.berth.kubernetes.store;

import org.jspecify.annotations.NullMarked;
