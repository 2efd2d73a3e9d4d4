/**
 * Who may act: the {@link dev.berth.core.tenant.Principal} behind a request, the tenants with their
 * granted workload types and quotas, and the {@link dev.berth.core.tenant.TenantDirectory} port
 * that keeps tenants and the digests of their API tokens.
 */
@NullMarked
package dev.berth.core.tenant;

import org.jspecify.annotations.NullMarked;
