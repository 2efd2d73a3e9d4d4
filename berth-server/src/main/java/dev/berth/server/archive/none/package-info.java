/** The archive store of an installation that takes no snapshots. */
@NullMarked
package dev.berth.server.archive.none;

import org.jspecify.annotations.NullMarked;
