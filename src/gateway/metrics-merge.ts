// GET /metrics with `serve --workers N`: each worker counts only what it served, and a scrape through
// the shared port reaches whichever worker the primary hands the connection to. So the worker asked
// gathers every live worker's exposition (through the primary) and answers them all in one, each
// sample labelled `worker="k"` (k = 1…N, the worker's place, kept by the worker that replaces it).
// Series are not summed across workers: a replaced worker's counters restart from zero in its own
// series, which Prometheus reads as the counter reset it is; `sum without (worker) (rate(…))` gives
// the service's rates.

export interface WorkerExposition {
  worker: string;
  /** The worker's own /metrics text (text exposition format 0.0.4). */
  text: string;
}

const sampleName = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

/** One exposition of every worker's samples, grouped by metric family, HELP and TYPE once each. */
export function labelledExposition(parts: WorkerExposition[]): string {
  const families = new Map<string, { help?: string; type?: string; samples: string[] }>();
  const familyOf = (name: string) => {
    let family = families.get(name);
    if (!family) {
      family = { samples: [] };
      families.set(name, family);
    }
    return family;
  };
  for (const { worker, text } of parts) {
    let current: string | undefined;
    for (const line of text.split("\n")) {
      const header = /^# (HELP|TYPE) (\S+)/.exec(line);
      if (header) {
        current = header[2];
        const family = familyOf(current);
        if (header[1] === "HELP") family.help ??= line;
        else family.type ??= line;
        continue;
      }
      const name = sampleName.exec(line)?.[0];
      if (!name) continue; // blank lines and other comments
      // A histogram's `_bucket`, `_sum` and `_count` samples belong to the family declared before them.
      const family = familyOf(current !== undefined && name.startsWith(current) ? current : name);
      family.samples.push(withWorkerLabel(line, name, worker));
    }
  }
  const out: string[] = [];
  for (const { help, type, samples } of families.values()) {
    if (help) out.push(help);
    if (type) out.push(type);
    out.push(...samples);
  }
  return `${out.join("\n")}\n`;
}

function withWorkerLabel(line: string, name: string, worker: string): string {
  const label = `worker="${worker.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
  const rest = line.slice(name.length);
  if (rest.startsWith("{}")) return `${name}{${label}}${rest.slice(2)}`;
  if (rest.startsWith("{")) return `${name}{${label},${rest.slice(1)}`;
  return `${name}{${label}}${rest}`;
}
