/** The archive port: durable, atomically committed snapshots of session state. */
@NullMarked
package dev.berth.core.archive;

import org.jspecify.annotations.NullMarked;
