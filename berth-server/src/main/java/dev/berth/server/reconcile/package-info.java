/** The loop that runs the reconciler over every session, one pass per session at a time. */
@NullMarked
package dev.berth.server.reconcile;

import org.jspecify.annotations.NullMarked;
