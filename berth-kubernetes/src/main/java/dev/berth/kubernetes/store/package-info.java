/** The session store on Kubernetes: ConfigMaps for records, coordination Leases for leases. */
@NullMarked
package dev.berth.kubernetes.store;

import org.jspecify.annotations.NullMarked;
