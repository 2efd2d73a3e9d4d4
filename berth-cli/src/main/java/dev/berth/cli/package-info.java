/** The {@code berth} command line: the server, node and agent processes and the client commands. */
@NullMarked
package dev.berth.cli;

import org.jspecify.annotations.NullMarked;
