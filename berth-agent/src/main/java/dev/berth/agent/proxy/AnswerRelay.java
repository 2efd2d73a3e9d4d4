package dev.berth.agent.proxy;

import dev.berth.agent.agentcli.StreamRedactor;
import dev.berth.agent.agentcli.Utf8Text;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An upstream's answer, relayed to the client redacted: its headers, and its body as it comes.
 *
 * <p>Two layers hide the secrets. An event stream ({@code text/event-stream}) is redacted event by
 * event first ({@link EventStreamText}): each content block's decoded text is a stream of its own,
 * so that a token the model writes across two deltas (with JSON between them on the wire) is
 * caught, as the CLI would join it. Then every body, event stream or not, is redacted as raw text
 * with a held-back tail ({@link StreamRedactor}), which catches a token split across chunks.
 */
final class AnswerRelay {

  private static final Logger LOG = LoggerFactory.getLogger(AnswerRelay.class);
  private static final Set<String> HOP_BY_HOP =
      Set.of(
          "connection",
          "keep-alive",
          "proxy-connection",
          "transfer-encoding",
          "te",
          "trailer",
          "upgrade",
          "content-length",
          "content-encoding",
          "set-cookie");

  private final ProviderProfile profile;

  AnswerRelay(ProviderProfile profile) {
    this.profile = profile;
  }

  void relay(HttpResponse<InputStream> answer, Response response) throws IOException {
    try (InputStream in = answer.body()) {
      Optional<String> encoding = answer.headers().firstValue("Content-Encoding");
      if (encoding.isPresent() && !encoding.get().equalsIgnoreCase("identity")) {
        CredentialProxy.answer(
            response,
            502,
            "text/plain; charset=utf-8",
            "credential proxy upstream sent a "
                + encoding.get()
                + " body, which it cannot redact\n");
        return;
      }
      response.setStatus(answer.statusCode());
      answer
          .headers()
          .map()
          .forEach(
              (name, values) -> {
                if (!HOP_BY_HOP.contains(name.toLowerCase(Locale.ROOT)) && !name.startsWith(":")) {
                  for (String value : values) {
                    response.getHeaders().add(name, redactAll(value));
                  }
                }
              });
      boolean events =
          answer
              .headers()
              .firstValue("Content-Type")
              .map(t -> t.toLowerCase(Locale.ROOT).startsWith("text/event-stream"))
              .orElse(false);
      stream(in, response, events);
    }
  }

  /**
   * A body, forwarded as it comes through the redactors (which hold back only what could still
   * become a secret, and an event stream's one unfinished event), until 64 MiB raw: nothing of it
   * is buffered whole, so that an agent session cannot make the host hold more than a chunk (or an
   * event) per exchange. An event stream is flushed after every chunk; a body past the cap is cut
   * short.
   */
  private void stream(InputStream in, Response response, boolean events) throws IOException {
    Utf8Text text = new Utf8Text();
    StreamRedactor raw = new StreamRedactor(profile.secrets());
    EventStreamText blocks =
        events ? new EventStreamText(Events.of(profile.api(), profile.secrets())) : null;
    byte[] buffer = new byte[16 << 10];
    long count = 0;
    try (OutputStream out = Content.Sink.asOutputStream(response)) {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        count += n;
        if (count > CredentialProxy.BODY_CAP) {
          LOG.info("{}: an upstream answer passed 64 MiB; the rest is dropped", profile.name());
          break;
        }
        String decoded = text.decode(buffer, 0, n);
        String safe = raw.redact(blocks == null ? decoded : blocks.accept(decoded));
        if (!safe.isEmpty()) {
          out.write(safe.getBytes(StandardCharsets.UTF_8));
          if (events) {
            out.flush();
          }
        }
      }
      String rest = text.finish();
      if (blocks != null) {
        rest = blocks.accept(rest) + blocks.finish();
      }
      out.write(raw.redact(rest).concat(raw.finish()).getBytes(StandardCharsets.UTF_8));
    }
  }

  private String redactAll(String value) {
    StreamRedactor redactor = new StreamRedactor(profile.secrets());
    return redactor.redact(value) + redactor.finish();
  }
}
