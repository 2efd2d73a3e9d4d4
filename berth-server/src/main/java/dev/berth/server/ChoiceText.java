package dev.berth.server;

/** How a refused flag value is named without repeating it: it may hold a credential. */
final class ChoiceText {
  private ChoiceText() {}

  /** {@code a value with scheme "mysql"}, or {@code a value without a scheme}. */
  static String shape(String value) {
    int colon = value.indexOf("://");
    String scheme = colon > 0 ? value.substring(0, colon) : "";
    return scheme.matches("[A-Za-z][A-Za-z0-9+.-]{0,15}")
        ? "a value with scheme \"" + scheme + "\""
        : "a value without a scheme (" + value.length() + " characters)";
  }
}
