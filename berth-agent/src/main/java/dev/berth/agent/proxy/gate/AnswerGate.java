package dev.berth.agent.proxy.gate;

import java.io.IOException;

/**
 * One answer's way through the gate: its text goes in as it comes from the upstream, and what may
 * go on to the client comes out to a {@link Downstream} (which redacts and writes it). A gate that
 * holds a call blocks in {@link #accept} until the call is decided, sending keepalives meanwhile; a
 * gate that refused one has {@link #ended} the answer, and the rest of the upstream's is dropped.
 * Not thread-safe: one per answer.
 */
public interface AnswerGate {

  /** Where released text goes: on to the redaction and the client, flushed. */
  interface Downstream {
    void send(String text) throws IOException;
  }

  void accept(String text, Downstream out) throws IOException, InterruptedException;

  /** The upstream's answer ended: what is still held goes on. */
  void finish(Downstream out) throws IOException, InterruptedException;

  /** Whether the gate ended the answer itself (a refused call): nothing more is to be read. */
  boolean ended();

  /** A gate that holds nothing: answers pass as they come. */
  static AnswerGate none() {
    return new AnswerGate() {
      @Override
      public void accept(String text, Downstream out) throws IOException {
        if (!text.isEmpty()) {
          out.send(text);
        }
      }

      @Override
      public void finish(Downstream out) {
        // Nothing is held.
      }

      @Override
      public boolean ended() {
        return false;
      }
    };
  }
}
