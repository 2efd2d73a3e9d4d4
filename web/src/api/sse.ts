// A minimal Server-Sent Events parser (the WHATWG event-stream format) over raw bytes, so that the
// UI can read the stream with fetch: unlike EventSource, fetch shows the HTTP status (a 422 for a
// session without a runtime), sends our own Last-Event-ID and never reconnects behind our back.

export interface SseEvent {
  /** The `id` field of this event, or undefined when it had none. */
  id: string | undefined;
  event: string;
  data: string;
}

export class SseParser {
  private readonly decoder = new TextDecoder("utf-8");
  private buffer = "";
  private id: string | undefined;
  private event = "";
  private data: string[] = [];
  private sawCr = false;

  /** Feeds bytes from the stream; answers the events they complete, in order. */
  push(chunk: Uint8Array): SseEvent[] {
    let text = this.decoder.decode(chunk, { stream: true });
    // A CR at the end of the previous chunk already ended its line; a LF right after it is the
    // second half of that CRLF, not an empty line.
    if (this.sawCr && text.startsWith("\n")) text = text.slice(1);
    this.sawCr = text.endsWith("\r");
    this.buffer += text;
    const events: SseEvent[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  private line(line: string): SseEvent | undefined {
    if (line === "") {
      if (this.data.length === 0 && this.event === "" && this.id === undefined) return undefined;
      const event: SseEvent = {
        id: this.id,
        event: this.event || "message",
        data: this.data.join("\n"),
      };
      this.id = undefined;
      this.event = "";
      this.data = [];
      return event;
    }
    if (line.startsWith(":")) return undefined; // a comment: ": connected", ": keepalive"
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "id":
        if (!value.includes("\0")) this.id = value;
        break;
      case "event":
        this.event = value;
        break;
      case "data":
        this.data.push(value);
        break;
      default:
        break; // "retry" and unknown fields: the UI schedules its own reconnects
    }
    return undefined;
  }
}
