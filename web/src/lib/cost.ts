// What an agent conversation cost, from its transcript's `usage` entries (docs/agents.md): each
// turn's `costUsd` is that turn's cost, `totalCostUsd` the conversation's running total up to it.
// Both are optional: a provider that reports no price leaves them out, and so does the UI.

export interface UsageLike {
  type: string;
  seq: number;
  costUsd?: number;
  totalCostUsd?: number;
}

/** The conversation's total: the running total of the newest usage entry that carries one. */
export function conversationCost(entries: readonly UsageLike[]): number | undefined {
  let newest: UsageLike | undefined;
  for (const e of entries) {
    if (e.type === "usage" && isAmount(e.totalCostUsd) && (!newest || e.seq > newest.seq)) newest = e;
  }
  return newest?.totalCostUsd;
}

/** Dollars for people: "$0.0042" under a dollar (where a turn's cost usually is), "$12.30" above. */
export function usd(amount: number): string {
  return amount < 1 ? `$${amount.toFixed(4)}` : `$${amount.toFixed(2)}`;
}

function isAmount(n: number | undefined): n is number {
  return typeof n === "number" && Number.isFinite(n);
}
