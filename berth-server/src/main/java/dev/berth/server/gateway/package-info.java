/**
 * The client of an external approval gateway: each new approval forwarded, its decision polled and
 * recorded (docs/agents.md, "Approval gate").
 */
@NullMarked
package dev.berth.server.gateway;

import org.jspecify.annotations.NullMarked;
