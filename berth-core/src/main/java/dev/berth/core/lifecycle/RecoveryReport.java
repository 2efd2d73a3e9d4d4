package dev.berth.core.lifecycle;

import java.util.List;

/**
 * What a store recovery did.
 *
 * @param adopted sessions whose newer intent was adopted from their runtime
 * @param quarantined runtime objects with no matching session record: kept, reported, never deleted
 *     (a missing record may come from an older backup)
 * @param unreachable sessions whose agent could not be asked; reconciled later
 */
public record RecoveryReport(
    List<String> adopted, List<String> quarantined, List<String> unreachable) {
  public RecoveryReport {
    adopted = List.copyOf(adopted);
    quarantined = List.copyOf(quarantined);
    unreachable = List.copyOf(unreachable);
  }
}
