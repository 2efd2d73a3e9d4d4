/**
 * The credential proxy's approval gate: a tool call the session's policy names waits, held in the
 * model's answer, until the gateway decides; a refused call never reaches the CLI.
 */
@NullMarked
package dev.berth.agent.proxy.gate;

import org.jspecify.annotations.NullMarked;
