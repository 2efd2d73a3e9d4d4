/**
 * The host as a process: {@code berth node} (many sessions, found through {@code node.json}, one
 * per state directory by an OS file lock) and {@code berth agent} (exactly one session, the pod).
 */
@NullMarked
package dev.berth.agent.node;

import org.jspecify.annotations.NullMarked;
