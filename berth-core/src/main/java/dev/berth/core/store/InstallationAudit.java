package dev.berth.core.store;

import java.util.List;

/**
 * The whole installation's audit log, every session's entries interleaved in the order they were
 * appended: for the administrator, who asks "what happened here since ten o'clock", not "what
 * happened to this session". A port of its own beside {@link SessionStore}, whose log is read a
 * session at a time: only the stores that can keep one order over every append implement it.
 */
public interface InstallationAudit {

  /**
   * Up to {@code limit} entries with a sequence above {@code after}, in sequence order. A reader
   * that goes on from the last sequence it saw misses none: an entry appended later has a greater
   * sequence than every entry already visible.
   *
   * @throws dev.berth.core.error.InvalidValueException when {@code limit} is negative
   */
  List<AuditEvent> allEvents(long after, int limit);
}
