package dev.berth.client;

/**
 * A tenant token the server just issued. The server keeps only its digest: this is the one time the
 * token is visible.
 */
public record IssuedToken(String token, String tenant, String id) {

  @Override
  public String toString() {
    return "IssuedToken[tenant=" + tenant + ", id=" + id + ", token=(hidden)]";
  }
}
