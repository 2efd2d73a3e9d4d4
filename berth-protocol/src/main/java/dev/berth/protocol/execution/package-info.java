/**
 * The {@code Execution} object of the agent protocol, written by the agent and read by the control
 * plane.
 */
@NullMarked
package dev.berth.protocol.execution;

import org.jspecify.annotations.NullMarked;
