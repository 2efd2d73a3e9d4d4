package dev.berth.core.error;

/**
 * The caller is known but may not do this: a tenant acting for another tenant, or using a route
 * that only the administrator may use. A tenant never learns of another tenant's sessions through
 * this error; those answer {@link NotFoundException}.
 */
public final class ForbiddenException extends BerthException {
  private static final long serialVersionUID = 1L;

  /**
   * @param subject who asked, such as {@code tenant acme}
   * @param action what it may not do, such as {@code create sessions for tenant beta}
   * @param rule why, and the way out
   */
  public ForbiddenException(String subject, String action, String rule) {
    super(subject + " may not " + action + ": " + rule);
  }

  @Override
  public String reason() {
    return "FORBIDDEN";
  }
}
