package dev.berth.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's logging as {@code --log-format} and {@code --log-level} ask: one appender on stderr
 * (stdout is the command's own output), text lines dated in ISO 8601 with their zone, or one JSON
 * object per line ({@link JsonLogEncoder}) for a log pipeline. Jetty stays at WARN whatever the
 * level, or DEBUG would be mostly Jetty's.
 */
final class LogSetup {

  /** The text pattern; the same as the distribution's logback.xml. */
  static final String TEXT_PATTERN =
      "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{36} - %msg%n";

  private LogSetup() {}

  /** The formats {@code --log-format} takes. */
  enum Format {
    TEXT,
    JSON;

    static Format parse(String value) {
      try {
        return valueOf(value.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "--log-format must be text or json, was \"" + value + "\"", e);
      }
    }
  }

  /** The levels {@code --log-level} takes, from the most to the least said. */
  static Level level(String value) {
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "trace" -> Level.TRACE;
      case "debug" -> Level.DEBUG;
      case "info" -> Level.INFO;
      case "warn" -> Level.WARN;
      case "error" -> Level.ERROR;
      default ->
          throw new IllegalArgumentException(
              "--log-level must be one of trace, debug, info, warn, error, was \"" + value + "\"");
    };
  }

  /** Replaces the appenders of the root logger; does nothing where logback is not the backend. */
  static void apply(Format format, Level level) {
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return;
    }
    Encoder<ILoggingEvent> encoder = encoder(context, format);
    ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
    appender.setContext(context);
    appender.setName("STDERR");
    appender.setTarget("System.err");
    appender.setEncoder(encoder);
    appender.start();
    ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.detachAndStopAllAppenders();
    root.addAppender(appender);
    root.setLevel(level);
    context.getLogger("org.eclipse.jetty").setLevel(Level.WARN);
  }

  private static Encoder<ILoggingEvent> encoder(LoggerContext context, Format format) {
    return switch (format) {
      case TEXT -> {
        PatternLayoutEncoder text = new PatternLayoutEncoder();
        text.setContext(context);
        text.setPattern(TEXT_PATTERN);
        text.start();
        yield text;
      }
      case JSON -> {
        JsonLogEncoder json = new JsonLogEncoder();
        json.setContext(context);
        json.start();
        yield json;
      }
    };
  }
}
