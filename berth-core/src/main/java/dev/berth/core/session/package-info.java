/**
 * The session: intent, phase, conditions, runtime, archive, reservation, obligations and activity,
 * with the transition tables that govern them. JDK only; time is always passed in.
 */
@NullMarked
package dev.berth.core.session;

import org.jspecify.annotations.NullMarked;
