/**
 * The idle policy: when a session nobody uses is suspended, what holds it, and how the decision is
 * explained. Pure functions of time, session and reported workload; the server acts on them.
 */
@NullMarked
package dev.berth.core.idle;

import org.jspecify.annotations.NullMarked;
