package dev.berth.client;

/**
 * The server answered something this client cannot read: a body that is not the JSON the route
 * promises, or an output stream that breaks the SSE contract (an event whose id is not its {@code
 * nextOffset}, or whose payload length disagrees with its offsets).
 */
public final class BerthProtocolException extends BerthClientException {

  private static final long serialVersionUID = 1L;

  BerthProtocolException(String message) {
    super(message, null);
  }

  BerthProtocolException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public String reason() {
    return "PROTOCOL";
  }
}
