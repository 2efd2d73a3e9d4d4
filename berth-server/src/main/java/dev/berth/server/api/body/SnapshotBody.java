package dev.berth.server.api.body;

/** The body of {@code POST /sessions/{id}/snapshot}; optional, and {@code {}} when present. */
public record SnapshotBody() {}
