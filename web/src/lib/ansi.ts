// The agent transcript is shown as text, not through a terminal: escape sequences (colours, cursor
// moves, titles) are removed and carriage returns folded, so what is left is readable and React
// renders it escaped.

const ESCAPES =
  // OSC ... BEL/ST, CSI ... final byte, other two-character ESC sequences, stray C0 controls
  // eslint-disable-next-line no-control-regex -- the escape and control characters are what it removes
  /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]|[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]/g;

export function plainText(text: string): string {
  return text
    .replace(ESCAPES, "")
    .replace(/\r+\n/g, "\n")
    .split("\n")
    .map((line) => {
      // A carriage return rewrites the line from its start: keep what was written last.
      const parts = line.split("\r");
      return parts.length === 1 ? line : parts.reduce((shown, part) => part + shown.slice(part.length));
    })
    .join("\n");
}
