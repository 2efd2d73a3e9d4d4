package dev.berth.cli;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.encoder.EncoderBase;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * One JSON object per log line: {@code time} (ISO 8601 with the zone's offset), {@code level},
 * {@code logger}, {@code thread}, {@code message} and, for a failure, {@code error} (its stack
 * trace). Logback's own JsonEncoder writes epoch milliseconds and the logger context on every line;
 * log pipelines read this shape with no mapping.
 */
final class JsonLogEncoder extends EncoderBase<ILoggingEvent> {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ISO_OFFSET_DATE_TIME.withZone(ZoneId.systemDefault());

  @Override
  public byte[] headerBytes() {
    return new byte[0];
  }

  @Override
  public byte[] encode(ILoggingEvent event) {
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("time", TIME.format(Instant.ofEpochMilli(event.getTimeStamp())));
    line.put("level", event.getLevel().toString());
    line.put("logger", event.getLoggerName());
    line.put("thread", event.getThreadName());
    line.put("message", event.getFormattedMessage());
    if (event.getThrowableProxy() != null) {
      line.put("error", ThrowableProxyUtil.asString(event.getThrowableProxy()));
    }
    return (JSON.writeValueAsString(line) + "\n").getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public byte[] footerBytes() {
    return new byte[0];
  }
}
