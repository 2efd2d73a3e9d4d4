package dev.berth.cli;

/**
 * {@code berth server} could not start (its address is taken, another server holds the data
 * directory, the store cannot be opened): one line on stderr that says why, exit code 1.
 */
final class StartFailedException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  StartFailedException(String message) {
    super(message);
  }

  @Override
  public String getMessage() {
    return java.util.Objects.requireNonNull(super.getMessage());
  }
}
