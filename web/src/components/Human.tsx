// Times and sizes as people read them, with the exact value the server sent kept in the title (a
// hover shows it, and a copy of the page keeps it in the time element's dateTime).

import { ago, bytes, moment, textParts } from "../lib/format";

/** An instant: "3 min ago" (relative) or the local time of day, or date and time on another day. */
export function When({ iso, now, relative = true }: { iso: string | undefined; now: number; relative?: boolean }) {
  if (!iso) return <>—</>;
  return (
    <time dateTime={iso} title={iso}>
      {relative ? ago(iso, now) : moment(iso, now)}
    </time>
  );
}

/** A size in bytes: "1.4 MiB", with the exact count in the title. */
export function Size({ count }: { count: number | undefined }) {
  if (count === undefined) return <>—</>;
  return <span title={`${count.toLocaleString()} bytes`}>{bytes(count)}</span>;
}

/** Server text with the instants and byte counts in it shown as local times and sizes. */
export function HumanText({ text, now }: { text: string; now: number }) {
  return (
    <>
      {textParts(text).map((part, i) =>
        part.kind === "text" ? (
          part.text
        ) : part.kind === "instant" ? (
          <When key={i} iso={part.iso} now={now} relative={false} />
        ) : (
          <Size key={i} count={part.count} />
        ),
      )}
    </>
  );
}
