/**
 * Recovery mode after a restore of an older store backup: the store epoch advanced and stamped on
 * every command, the high-water marks the runtimes and the archives keep, the detection, the store
 * recovery it runs, and its end by a person (docs/operations.md, "Restoring a store backup").
 */
@NullMarked
package dev.berth.server.recovery;

import org.jspecify.annotations.NullMarked;
