/** The runtime port: where sessions run, and what the platform can observe of them. */
package dev.berth.core.runtime;
