/**
 * Traffic that does not pass through the gateway, as the model server's own metrics show it
 * (docs/deployments.md "Activity"). The machine's agent reads `GET /metrics` on the model port and
 * sends the text with its heartbeat; the lease's object judges it here, against the counters of
 * the read before, so the real agent (agent.sh) and the sim's agent are judged by one function.
 * Pure: no I/O, no clock (STYLE.md rule 1).
 *
 * The names are the ones vLLM publishes (its Prometheus metrics, `vllm:` prefix). Prometheus' text
 * format (version 0.0.4) is parsed here rather than by a dependency: a few dozen lines, and a scrape
 * that does not parse is refused whole, as Prometheus itself refuses it.
 */

/** Requests on the server now: above 0 is activity. Both must be present for the server to be observable. */
export const MODEL_GAUGES = ["vllm:num_requests_running", "vllm:num_requests_waiting"] as const;
/** Counters whose growth since the read before is activity: a request finished, or tokens were processed. */
export const MODEL_COUNTERS = ["vllm:request_success_total", "vllm:prompt_tokens_total", "vllm:generation_tokens_total"] as const;
/** The most metrics text lessor reads from one heartbeat (the agent sends only the lines above). */
export const MODEL_METRICS_MAX_BYTES = 64 * 1024;

export type ModelCounter = (typeof MODEL_COUNTERS)[number];
/** Each counter's value at a read (summed over its label sets); a counter not yet published is 0. */
export type ModelCounters = Record<ModelCounter, number>;

/** What one read says. `counters` is what the next read is compared with. */
export type ModelMetricsRead =
  | { observable: true; active: boolean; counters: ModelCounters }
  /**
   * `unreadable`: the agent could not read the endpoint; `malformed`: the text is not Prometheus'
   * format; `missing`: the gauges are not in it (not vLLM, or a server that publishes no metrics).
   * The counters before are kept, so requests made across the gap still show as growth.
   */
  | { observable: false; why: "unreadable" | "malformed" | "missing"; counters: ModelCounters | null };

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const LABEL = `[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"`;
const VALUE = "[+-]?(?:Inf|inf|NaN|nan|(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?)";
/** One sample line: `name{label="value",...} value [timestamp]`. */
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(?:${LABEL}(?:,${LABEL})*,?)?\\})?[ \\t]+(${VALUE})(?:[ \\t]+-?[0-9]+)?[ \\t]*$`);

/**
 * Prometheus' text format as each metric's value summed over its label sets; null when any line
 * that is not blank or a comment is not a sample. A value that is not finite (NaN, ±Inf) leaves
 * its metric out.
 */
export function parsePrometheusText(text: string): Map<string, number> | null {
  const sums = new Map<string, number>();
  const broken = new Set<string>();
  for (const raw of text.split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "" || line.startsWith("#")) continue;
    const m = SAMPLE.exec(line);
    if (!m) return null;
    const name = m[1]!;
    const value = Number(m[2]!.replace(/inf$/i, "Infinity").replace(/^nan$/i, "NaN"));
    if (!Number.isFinite(value)) broken.add(name);
    else sums.set(name, (sums.get(name) ?? 0) + value);
  }
  for (const name of broken) sums.delete(name);
  return sums;
}

/**
 * One read of the model server's metrics (`text` null: the agent could not read them), judged
 * against `previous`, the counters of the last read (null: none yet). Active when a request runs
 * or waits, or a counter grew. A counter lower than before was reset (the server started again):
 * what it holds now was counted since, as Prometheus' `increase` reads a reset.
 */
export function readModelMetrics(text: string | null, previous: ModelCounters | null): ModelMetricsRead {
  if (text === null) return { observable: false, why: "unreadable", counters: previous };
  const values = parsePrometheusText(text);
  if (values === null) return { observable: false, why: "malformed", counters: previous };
  if (MODEL_GAUGES.some((g) => !values.has(g))) return { observable: false, why: "missing", counters: previous };
  const counters = Object.fromEntries(MODEL_COUNTERS.map((c) => [c, Math.max(0, values.get(c) ?? 0)])) as ModelCounters;
  const busy = MODEL_GAUGES.some((g) => values.get(g)! > 0);
  const grew = previous !== null && MODEL_COUNTERS.some((c) => counters[c] > (previous[c] ?? 0) || (counters[c] < (previous[c] ?? 0) && counters[c] > 0));
  return { observable: true, active: busy || grew, counters };
}
