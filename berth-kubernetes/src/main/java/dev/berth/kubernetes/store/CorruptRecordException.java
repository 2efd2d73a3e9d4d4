package dev.berth.kubernetes.store;

/**
 * A stored object could not be read back: its JSON is invalid or of an unknown format, it names
 * another record than its object does, or an annotation the store keeps is not a number. The store
 * never treats such an object as absent (a corrupt lease read as free would hand out the session).
 */
public final class CorruptRecordException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public CorruptRecordException(String subject, String problem, Throwable cause) {
    super(message(subject, problem), cause);
  }

  public CorruptRecordException(String subject, String problem) {
    super(message(subject, problem));
  }

  private static String message(String subject, String problem) {
    return subject
        + " cannot be read ("
        + problem
        + "); repair the object with kubectl edit, or delete it and restore it from a backup";
  }
}
