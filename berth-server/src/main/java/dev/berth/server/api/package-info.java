/**
 * The public API's wire contract: its machine-readable description ({@link
 * dev.berth.server.api.OpenApiSpec}, served at {@code /api/v1/openapi.yaml}) and the strict reading
 * of request bodies ({@link dev.berth.server.api.StrictJson}) into the records of {@code
 * dev.berth.server.api.body}.
 */
@NullMarked
package dev.berth.server.api;

import org.jspecify.annotations.NullMarked;
