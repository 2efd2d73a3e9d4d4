/**
 * Tool calls of agent sessions that wait for a human decision: the policy, the stored approvals.
 */
@NullMarked
package dev.berth.core.approval;

import org.jspecify.annotations.NullMarked;
