package dev.berth.agent.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** The body of a raw HTTP/1.1 answer read to its end: chunked or with a Content-Length. */
final class HttpAnswer {

  private HttpAnswer() {}

  /**
   * @throws AssertionError when the status is not 200 or the framing is broken
   */
  static byte[] body(byte[] answer) {
    int headersEnd = indexOf(answer, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII), 0);
    if (headersEnd < 0) {
      throw new AssertionError("no end of headers in " + answer.length + " bytes");
    }
    String headers = new String(answer, 0, headersEnd, StandardCharsets.ISO_8859_1);
    if (!headers.startsWith("HTTP/1.1 200")) {
      throw new AssertionError("answer was not 200: " + headers);
    }
    int at = headersEnd + 4;
    if (!headers.toLowerCase(Locale.ROOT).contains("transfer-encoding: chunked")) {
      return java.util.Arrays.copyOfRange(answer, at, answer.length);
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    while (true) {
      int lineEnd = indexOf(answer, "\r\n".getBytes(StandardCharsets.US_ASCII), at);
      if (lineEnd < 0) {
        throw new AssertionError("chunked answer broke off after " + body.size() + " bytes");
      }
      String size = new String(answer, at, lineEnd - at, StandardCharsets.US_ASCII).strip();
      int length = Integer.parseInt(size.split(";")[0], 16);
      if (length == 0) {
        return body.toByteArray();
      }
      body.write(answer, lineEnd + 2, length);
      at = lineEnd + 2 + length + 2;
    }
  }

  private static int indexOf(byte[] bytes, byte[] part, int from) {
    outer:
    for (int i = from; i <= bytes.length - part.length; i++) {
      for (int j = 0; j < part.length; j++) {
        if (bytes[i + j] != part[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
