/**
 * The request bodies of the public API, one record per body, read by {@link
 * dev.berth.server.api.StrictJson}. Each record checks what it can check alone (required fields,
 * syntax, ranges) and refuses a bad value with the contract's {@code invalid input: field …}
 * message. What needs configuration or the caller's identity (whether a workload type is enabled or
 * granted, whether a model suits the type, whether the caller may act for a tenant) is the
 * service's decision, not the body's.
 */
@NullMarked
package dev.berth.server.api.body;

import org.jspecify.annotations.NullMarked;
