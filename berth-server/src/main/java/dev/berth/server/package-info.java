/** The Berth control plane: the server, its configuration and its data directory. */
@NullMarked
package dev.berth.server;

import org.jspecify.annotations.NullMarked;
