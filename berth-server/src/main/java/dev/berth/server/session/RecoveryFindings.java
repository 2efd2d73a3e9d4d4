package dev.berth.server.session;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What recovery mode found and did, as {@code GET /admin/recovery} shows it.
 *
 * @param active whether recovery mode is on (admission closed, no deletes, no releases)
 * @param since when it began; empty when it never did since this server started
 * @param reason why it began, in words
 * @param storeEpoch the store's epoch when it was found older (before it was raised)
 * @param marks the high-water marks read, and where
 * @param adopted sessions that adopted their runtime's newer intent
 * @param quarantinedRuntimes runtimes the store does not know: kept, listed, never deleted
 * @param quarantinedArchives archives of sessions the store does not know: kept, listed
 * @param unreachable sessions whose agent could not be asked; reconciled after approval
 * @param approvedAt when a person ended it
 * @param approvedBy who ended it
 */
public record RecoveryFindings(
    boolean active,
    Optional<Instant> since,
    String reason,
    long storeEpoch,
    List<HighWaterMark> marks,
    List<String> adopted,
    List<String> quarantinedRuntimes,
    List<String> quarantinedArchives,
    List<String> unreachable,
    Optional<Instant> approvedAt,
    Optional<String> approvedBy) {

  public RecoveryFindings {
    marks = List.copyOf(marks);
    adopted = List.copyOf(adopted);
    quarantinedRuntimes = List.copyOf(quarantinedRuntimes);
    quarantinedArchives = List.copyOf(quarantinedArchives);
    unreachable = List.copyOf(unreachable);
  }

  /** Nothing found: the store was never older than what the runtimes and archives saw. */
  static RecoveryFindings none(long storeEpoch, List<HighWaterMark> marks) {
    return new RecoveryFindings(
        false,
        Optional.empty(),
        "",
        storeEpoch,
        marks,
        List.of(),
        List.of(),
        List.of(),
        List.of(),
        Optional.empty(),
        Optional.empty());
  }

  RecoveryFindings approved(Instant at, String by) {
    return new RecoveryFindings(
        false,
        since,
        reason,
        storeEpoch,
        marks,
        adopted,
        quarantinedRuntimes,
        quarantinedArchives,
        unreachable,
        Optional.of(at),
        Optional.of(by));
  }
}
