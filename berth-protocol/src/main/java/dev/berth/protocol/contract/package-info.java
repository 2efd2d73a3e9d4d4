/** The headers of the local contract that a command carries from the control plane to an agent. */
@NullMarked
package dev.berth.protocol.contract;

import org.jspecify.annotations.NullMarked;
