package dev.berth.store;

/**
 * A stored record could not be read back: its body is not valid JSON, has an unknown format, holds
 * a value the domain rejects (such as an enum constant this version does not know), or belongs to
 * another record than the place it is kept in. A store never treats such a record as absent (a
 * corrupt lease read as free would hand out the session).
 *
 * <p>The message names the record, the problem and the repair, which depends on where the store
 * keeps its records (a database row, a Kubernetes object): each adapter says its own.
 */
public final class CorruptRecordException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  /**
   * @param subject names the record and where it is kept, such as {@code "session <id>"}
   * @param problem what is wrong with it
   * @param repair what an operator does about it
   */
  public CorruptRecordException(String subject, String problem, String repair, Throwable cause) {
    super(message(subject, problem, repair), cause);
  }

  /** As {@link #CorruptRecordException(String, String, String, Throwable)}, with no cause. */
  public CorruptRecordException(String subject, String problem, String repair) {
    super(message(subject, problem, repair));
  }

  private static String message(String subject, String problem, String repair) {
    return subject + " cannot be read (" + problem + "); " + repair;
  }
}
