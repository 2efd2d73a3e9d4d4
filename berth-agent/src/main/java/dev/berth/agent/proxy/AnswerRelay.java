package dev.berth.agent.proxy;

import dev.berth.agent.agentcli.StreamRedactor;
import dev.berth.agent.agentcli.Utf8Text;
import dev.berth.agent.proxy.gate.AnswerGate;
import dev.berth.agent.proxy.gate.Gatekeeper;
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
  private final Optional<Gatekeeper> gate;

  AnswerRelay(ProviderProfile profile) {
    this(profile, Optional.empty());
  }

  /** With a gate, a successful answer's tool calls pass it first (before any redaction). */
  AnswerRelay(ProviderProfile profile, Optional<Gatekeeper> gate) {
    this.profile = profile;
    this.gate = gate;
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
      AnswerGate held =
          answer.statusCode() / 100 == 2
              ? gate.map(g -> g.forAnswer(profile.api(), events)).orElseGet(AnswerGate::none)
              : AnswerGate.none();
      stream(in, response, events, held);
    }
  }

  /**
   * A body, forwarded as it comes through the redactors (which hold back only what could still
   * become a secret, and an event stream's one unfinished event), until 64 MiB raw: nothing of it
   * is buffered whole, so that an agent session cannot make the host hold more than a chunk (or an
   * event) per exchange. An event stream is flushed after every chunk; a body past the cap is cut
   * short. The gate sees the upstream's text first: it decides on the tool calls as the model wrote
   * them, and what it lets through (and its own markers) is redacted like the rest.
   */
  private void stream(InputStream in, Response response, boolean events, AnswerGate gate)
      throws IOException {
    Utf8Text text = new Utf8Text();
    StreamRedactor raw = new StreamRedactor(profile.secrets());
    EventStreamText blocks =
        events ? new EventStreamText(Events.of(profile.api(), profile.secrets())) : null;
    byte[] buffer = new byte[16 << 10];
    long count = 0;
    try (OutputStream out = Content.Sink.asOutputStream(response)) {
      AnswerGate.Downstream down =
          piece -> {
            String safe = raw.redact(blocks == null ? piece : blocks.accept(piece));
            if (!safe.isEmpty()) {
              out.write(safe.getBytes(StandardCharsets.UTF_8));
              if (events) {
                out.flush();
              }
            }
          };
      int n;
      while (!gate.ended() && (n = in.read(buffer)) >= 0) {
        count += n;
        if (count > CredentialProxy.BODY_CAP) {
          LOG.info("{}: an upstream answer passed 64 MiB; the rest is dropped", profile.name());
          break;
        }
        gate.accept(text.decode(buffer, 0, n), down);
      }
      String rest = text.finish();
      if (!gate.ended()) {
        gate.accept(rest, down);
        gate.finish(down);
      }
      rest = blocks == null ? "" : blocks.finish();
      out.write(raw.redact(rest).concat(raw.finish()).getBytes(StandardCharsets.UTF_8));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("the answer was stopped while a tool call waited");
    }
  }

  private String redactAll(String value) {
    StreamRedactor redactor = new StreamRedactor(profile.secrets());
    return redactor.redact(value) + redactor.finish();
  }
}
