/** The agent protocol port: versioned, deadline-bound, idempotent commands to a session agent. */
@NullMarked
package dev.berth.core.agent;

import org.jspecify.annotations.NullMarked;
