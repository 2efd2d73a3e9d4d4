/** Whether the server is ready to serve: {@link dev.berth.server.health.Readiness}. */
@NullMarked
package dev.berth.server.health;

import org.jspecify.annotations.NullMarked;
