/** Executions: user actions inside a running session, with their own states and outcomes. */
@NullMarked
package dev.berth.core.execution;

import org.jspecify.annotations.NullMarked;
