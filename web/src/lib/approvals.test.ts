import { describe, expect, it } from "vitest";
import {
  approvalLine,
  argumentsPreview,
  countdown,
  pendingBadge,
  pendingFirstToExpire,
  shortApprovalId,
  stateView,
  withoutMarkers,
} from "./approvals";
import { instant } from "./format";

const SID = "0123456789abcdef0123456789abcdef";

describe("the countdown of a pending approval", () => {
  it("reads minutes and seconds, and is urgent only under a minute", () => {
    expect(countdown(10 * 60_000, 2_000)).toEqual({ text: "9:58", urgent: false, expired: false });
    expect(countdown(60_000, 0)).toEqual({ text: "1:00", urgent: false, expired: false });
    expect(countdown(60_000, 1)).toEqual({ text: "0:59", urgent: true, expired: false });
  });

  it("says expired once the time is up, never a negative time", () => {
    expect(countdown(5_000, 5_000)).toEqual({ text: "expired", urgent: true, expired: true });
    expect(countdown(5_000, 99_000).text).toBe("expired");
  });

  it("reads an unreadable instant as unknown rather than as expired", () => {
    expect(countdown(instant("not a time"), 0)).toEqual({ text: "—", urgent: false, expired: false });
  });
});

describe("approval states", () => {
  it("map every stored and marker state to words and a tone", () => {
    expect(stateView("pending")).toEqual({ label: "awaiting approval", tone: "waiting" });
    expect(stateView("approved").tone).toBe("ok");
    expect(stateView("rejected").tone).toBe("refused");
    expect(stateView("expired").tone).toBe("ended");
    expect(stateView("cancelled").label).toBe("cancelled");
    expect(stateView("timed_out").label).toBe("timed out");
    expect(stateView("error")).toEqual({ label: "gateway error", tone: "refused" });
  });

  it("show a state this UI does not know as it came, and a missing one as unknown", () => {
    expect(stateView("escalated")).toEqual({ label: "escalated", tone: "ended" });
    expect(stateView(undefined).label).toBe("unknown");
    expect(stateView("toString").label).toBe("toString");
  });
});

describe("the console's badge", () => {
  it("counts the approvals waiting, and is absent without any", () => {
    expect(pendingBadge(1)).toBe("1 approval waiting");
    expect(pendingBadge(3)).toBe("3 approvals waiting");
    expect(pendingBadge(0)).toBeUndefined();
    expect(pendingBadge(undefined)).toBeUndefined();
  });
});

describe("approval ids and lines", () => {
  it("shows the request part of a full id, cut short", () => {
    expect(shortApprovalId(`${SID}:00112233445566778899aabbccddeeff`)).toBe("00112233");
    expect(shortApprovalId("abc")).toBe("abc");
    expect(shortApprovalId(undefined)).toBe("?");
  });

  it("writes a transcript entry as one line with the reason when there is one", () => {
    expect(approvalLine({ tool: "Bash", state: "approved", approvalId: `${SID}:aabbccddeeff` })).toBe(
      "approved — Bash · aabbccdd",
    );
    expect(approvalLine({ tool: "WebFetch", state: "rejected", approvalId: "ffee", reason: "not today" })).toBe(
      "rejected — WebFetch · ffee: not today",
    );
    expect(approvalLine({ state: "pending" })).toBe("awaiting approval — a tool · ?");
  });

  it("orders the pending approvals by the one to expire first and leaves the decided out", () => {
    const list = [
      { id: "a", state: "pending", expiresAt: "2026-01-01T00:10:00Z" },
      { id: "b", state: "approved", expiresAt: "2026-01-01T00:01:00Z" },
      { id: "c", state: "pending", expiresAt: "2026-01-01T00:05:00Z" },
    ];
    expect(pendingFirstToExpire(list, instant).map((a) => a.id)).toEqual(["c", "a"]);
  });
});

describe("the arguments preview", () => {
  it("indents JSON text, and shows text that is not JSON (a cut one) as it came", () => {
    expect(argumentsPreview('{"command":"touch marker.txt"}')).toBe('{\n  "command": "touch marker.txt"\n}');
    expect(argumentsPreview('{"command":"touch mar')).toBe('{"command":"touch mar');
    expect(argumentsPreview("<img src=x onerror=alert(1)>")).toBe("<img src=x onerror=alert(1)>");
    expect(argumentsPreview(undefined)).toBe("(no arguments)");
  });

  it("writes bidirectional overrides and zero-width characters as escapes, so nothing hides", () => {
    expect(argumentsPreview('{"command":"ls \u202e; rm -rf ~"}')).toBe('{\n  "command": "ls \\u{202e}; rm -rf ~"\n}');
    expect(argumentsPreview("a\u200bb\tc\nd")).toBe("a\\u{200b}b\tc\nd");
  });
});

describe("an answer's text without the marker lines", () => {
  const ID = `${SID}:00112233445566778899aabbccddeeff`;

  it("drops each marker line, whose approval entry the turn shows instead", () => {
    expect(withoutMarkers(`[berth: awaiting approval — Bash · ${ID}]\n`)).toBe("");
    expect(withoutMarkers(`Let me run it.\n[berth: approved — Bash · ${ID}]\nDone.`)).toBe("Let me run it.\nDone.");
    expect(withoutMarkers(`[berth: tool call rejected — WebFetch · ${ID}: not today]`)).toBe("");
    expect(withoutMarkers(`[berth: tool call gateway error — mcp__gh__issue · ${ID}: down]\n`)).toBe("");
  });

  it("keeps text that only looks like one: inside a line, another id, another word", () => {
    const kept = [
      `see [berth: approved — Bash · ${ID}] here\n`,
      "[berth: approved — Bash · not-an-id]\n",
      `[berth: allowed — Bash · ${ID}]\n`,
    ];
    for (const text of kept) expect(withoutMarkers(text)).toBe(text);
  });
});
