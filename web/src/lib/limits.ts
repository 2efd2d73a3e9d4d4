// The isolation report's limits (GET /sessions/{id}/runtime, `isolation.limits`) as people read
// them: sizes in binary units, CPU in cores, counts as counts. The exact value the agent sent is
// kept for the title, so a hover still shows it.

export type LimitView =
  | { label: string; kind: "bytes"; count: number }
  | { label: string; kind: "text"; text: string; exact: string };

const LABELS: Record<string, string> = {
  maxProcesses: "processes",
  maxMemoryBytes: "memory",
  maxFileSizeBytes: "file size",
  maxDiskBytes: "disk",
  cpuMillis: "CPU",
};

/** One limit: `maxMemoryBytes: 2147483648` reads "memory", 2 GiB; `cpuMillis: 1500` "CPU", 1.5 cores. */
export function limitView(name: string, value: unknown): LimitView {
  const label = LABELS[name] ?? name;
  if (typeof value === "number" && Number.isFinite(value)) {
    if (name.endsWith("Bytes")) return { label, kind: "bytes", count: value };
    if (name === "cpuMillis") {
      const cores = value / 1000;
      const text = `${Number.isInteger(cores) ? cores : cores.toFixed(2).replace(/0$/, "")} ${cores === 1 ? "core" : "cores"}`;
      return { label, kind: "text", text, exact: `${value} millicores` };
    }
    return { label, kind: "text", text: value.toLocaleString("en-US"), exact: String(value) };
  }
  const text = typeof value === "object" ? JSON.stringify(value) : String(value);
  return { label, kind: "text", text, exact: text };
}
