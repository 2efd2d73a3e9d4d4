package dev.berth.server.api.body;

/** The body of {@code POST /sessions/{id}/recover}; optional, and {@code {}} when present. */
public record RecoverBody() {}
