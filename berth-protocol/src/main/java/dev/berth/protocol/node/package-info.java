/**
 * The files of a node's state directory that the control plane reads too: address, token, lock,
 * log.
 */
@NullMarked
package dev.berth.protocol.node;

import org.jspecify.annotations.NullMarked;
