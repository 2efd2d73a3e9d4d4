/**
 * How the control plane addresses a node agent, and what both planes agree on besides the contract
 * headers: where a runtime's agent answers, the archive stream's header and media type, the size
 * limits of a call.
 */
@NullMarked
package dev.berth.protocol.wire;

import org.jspecify.annotations.NullMarked;
