/**
 * The runtimes a host runs, one per session at a time, and the commands on them. Every command is
 * checked against the session's local contract before it has any effect; the runtime's state has
 * one transition table ({@link dev.berth.agent.host.RuntimeState#TABLE}): a shell that exits or a
 * runtime the host stops is reported, never restarted behind the control plane's back.
 */
@NullMarked
package dev.berth.agent.host;

import org.jspecify.annotations.NullMarked;
