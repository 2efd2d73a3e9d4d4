package dev.berth.server.api.body;

/**
 * The body of {@code POST /sessions/{id}/plugins/refresh}; optional, and {@code {}} when present.
 */
public record PluginRefreshBody() {}
