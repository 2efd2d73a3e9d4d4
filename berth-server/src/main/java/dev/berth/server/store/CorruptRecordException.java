package dev.berth.server.store;

/**
 * A stored record could not be read back: its body is not valid JSON, has an unknown format, or
 * holds a value the domain rejects (such as an enum constant this version does not know). The store
 * never treats such a record as absent.
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
        + " has a stored body that cannot be read ("
        + problem
        + "); restore the record from a backup, or repair it and check it with a build that"
        + " knows its format";
  }
}
