package dev.berth.server.api.body;

/** The body of {@code POST /sessions/{id}/switch}; optional, and {@code {}} when present. */
public record SwitchBody() {}
