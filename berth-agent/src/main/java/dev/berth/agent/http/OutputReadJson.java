package dev.berth.agent.http;

import dev.berth.agent.output.OutputRange;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.Reader;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes the {@code OutputRead} answer of a range straight from the log to the response:
 *
 * <pre>
 * {"offset":S,"payload":"…","payloadBase64":"…","nextOffset":E,"startOffset":H,"reset":bool}
 * </pre>
 *
 * <p>Nothing of the size of the range is ever in memory. The range is streamed twice through the
 * generator's small buffers: once decoded as UTF-8 (malformed bytes become U+FFFD, exactly as
 * decoding the whole range at once does, since the decoder carries an incomplete sequence from one
 * chunk to the next) and once as standard base64 with padding and without line breaks. Before this,
 * a read built its bytes, the decoded text, the base64 text and the whole JSON text in memory,
 * about ten times the payload per concurrent read.
 */
final class OutputReadJson {

  private OutputReadJson() {}

  /** Writes the answer for {@code range} to {@code out}, then flushes; does not close it. */
  static void write(JsonMapper json, OutputRange range, OutputStream out) {
    try (JsonGenerator generator = json.createGenerator(new Unclosed(out))) {
      generator.writeStartObject();
      generator.writeNumberProperty("offset", range.offset());
      generator.writeName("payload");
      try (Reader text = lenientUtf8(range.stream())) {
        generator.writeString(text, -1);
      }
      generator.writeName("payloadBase64");
      try (InputStream bytes = range.stream()) {
        generator.writeBinary(bytes, range.length());
      }
      generator.writeNumberProperty(
          "nextOffset", range.reset() ? range.nextOffset() : range.endOffset());
      generator.writeNumberProperty("startOffset", range.startOffset());
      generator.writeBooleanProperty("reset", range.reset());
      generator.writeEndObject();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot read the output range " + range, e);
    }
  }

  /** The JSON {@code payload} is text; malformed bytes become U+FFFD (payloadBase64 is exact). */
  private static Reader lenientUtf8(InputStream bytes) {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE);
    return new InputStreamReader(bytes, decoder);
  }

  /** Lets the generator flush at its end without closing the response underneath. */
  private static final class Unclosed extends java.io.FilterOutputStream {
    Unclosed(OutputStream out) {
      super(out);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws java.io.IOException {
      out.write(bytes, offset, length);
    }

    @Override
    public void close() throws java.io.IOException {
      out.flush();
    }
  }
}
