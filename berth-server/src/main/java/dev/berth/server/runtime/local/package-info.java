/** The {@code local} runtime: sessions hosted by the local node, a process the adapter starts. */
@NullMarked
package dev.berth.server.runtime.local;

import org.jspecify.annotations.NullMarked;
