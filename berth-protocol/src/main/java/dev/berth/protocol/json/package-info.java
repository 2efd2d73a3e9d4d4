/** The agent protocol's JSON mapper: strict on input, ISO-8601 instants on output. */
@NullMarked
package dev.berth.protocol.json;

import org.jspecify.annotations.NullMarked;
