/** The runtime port: where sessions run, and what the platform can observe of them. */
@NullMarked
package dev.berth.core.runtime;

import org.jspecify.annotations.NullMarked;
