/** The agent protocol port: versioned, deadline-bound, idempotent commands to a session agent. */
package dev.berth.core.agent;
