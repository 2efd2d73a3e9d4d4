/**
 * The Berth client: a Java API over the public HTTP interface ({@code /api/v1}, see {@code
 * docs/api.md}), used by the {@code berth} command line and by other programs. {@link
 * dev.berth.client.BerthClient} is the entry point: JSON routes return records that ignore fields
 * they do not know (so the client survives additions to the API) and keep the object as the server
 * sent it; the output stream is followed over SSE with the contract's reconnection and reset rules
 * ({@link dev.berth.client.OutputFollow}); the interactive terminal is a WebSocket ({@link
 * dev.berth.client.AttachConnection}). Every failure is an unchecked {@link
 * dev.berth.client.BerthClientException}. Only the JDK's {@code java.net.http} speaks HTTP.
 */
@NullMarked
package dev.berth.client;

import org.jspecify.annotations.NullMarked;
