/**
 * The runtime adapters' shared side of the agent protocol: commands, data-plane calls, attach and
 * archive transfer.
 */
@NullMarked
package dev.berth.server.runtime;

import org.jspecify.annotations.NullMarked;
