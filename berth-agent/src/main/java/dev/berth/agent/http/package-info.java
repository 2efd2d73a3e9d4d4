/**
 * The agent protocol over HTTP/1.1 and WebSocket (Javalin on Jetty, virtual threads): routes,
 * strict request reading, and the single place that maps failures to problem+json answers.
 */
@NullMarked
package dev.berth.agent.http;

import org.jspecify.annotations.NullMarked;
