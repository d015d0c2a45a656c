/**
 * readModelMetrics(): a model server's metrics as activity (docs/deployments.md "Activity"), on
 * both sides of each rule: gauges at 0 and above, counters still and grown, reset, first read,
 * missing metrics, malformed text; and the Prometheus text parser under it.
 */
import { describe, expect, it } from "vitest";
import { MODEL_COUNTERS, parsePrometheusText, readModelMetrics, type ModelCounters } from "../../src/lease/model-metrics";
import { metricsText } from "../../src/providers/sim/model-server";

const counters = (success: number, prompt = 0, generation = 0): ModelCounters => ({
  "vllm:request_success_total": success,
  "vllm:prompt_tokens_total": prompt,
  "vllm:generation_tokens_total": generation,
});

/** What vLLM publishes, in its shapes: labelled by model, the success counter also by finish reason. */
function vllm(o: { running?: number; waiting?: number; stop?: number; length?: number; prompt?: number; generation?: number }): string {
  const m = 'model_name="Qwen/Qwen2.5-0.5B-Instruct"';
  const lines = [
    "# HELP vllm:num_requests_running Number of requests in model execution batches.",
    "# TYPE vllm:num_requests_running gauge",
    `vllm:num_requests_running{${m}} ${(o.running ?? 0).toFixed(1)}`,
    "# TYPE vllm:num_requests_waiting gauge",
    `vllm:num_requests_waiting{${m}} ${(o.waiting ?? 0).toFixed(1)}`,
    "# TYPE vllm:request_success_total counter",
  ];
  if (o.stop !== undefined) lines.push(`vllm:request_success_total{finished_reason="stop",${m}} ${o.stop.toFixed(1)}`);
  if (o.length !== undefined) lines.push(`vllm:request_success_total{finished_reason="length",${m}} ${o.length.toFixed(1)}`);
  if (o.prompt !== undefined) lines.push(`vllm:prompt_tokens_total{${m}} ${o.prompt.toFixed(1)}`);
  if (o.generation !== undefined) lines.push(`vllm:generation_tokens_total{${m}} ${o.generation.toFixed(1)}`);
  return `${lines.join("\n")}\n`;
}

interface Row {
  name: string;
  text: string | null;
  previous: ModelCounters | null;
  observable: boolean;
  active?: boolean;
  why?: string;
}

const rows: Row[] = [
  { name: "nothing running, nothing waiting, first read", text: vllm({}), previous: null, observable: true, active: false },
  { name: "one request running", text: vllm({ running: 1 }), previous: null, observable: true, active: true },
  { name: "one request waiting", text: vllm({ waiting: 1 }), previous: null, observable: true, active: true },
  { name: "a fraction above 0 is above 0", text: vllm({ running: 0.5 }), previous: null, observable: true, active: true },
  { name: "counters still since the read before", text: vllm({ stop: 4, length: 1, prompt: 50, generation: 80 }), previous: counters(5, 50, 80), observable: true, active: false },
  { name: "a request finished since the read before (summed over finish reasons)", text: vllm({ stop: 4, length: 2, prompt: 50, generation: 80 }), previous: counters(5, 50, 80), observable: true, active: true },
  { name: "prompt tokens grew (a request that failed still counted them)", text: vllm({ stop: 5, prompt: 51, generation: 80 }), previous: counters(5, 50, 80), observable: true, active: true },
  { name: "a counter first published since the read before grew from 0", text: vllm({ stop: 1 }), previous: counters(0), observable: true, active: true },
  { name: "the first read has nothing to compare its counters with", text: vllm({ stop: 9, prompt: 90, generation: 90 }), previous: null, observable: true, active: false },
  { name: "reset (the server started again) with requests since", text: vllm({ stop: 2, prompt: 10, generation: 10 }), previous: counters(9, 90, 90), observable: true, active: true },
  { name: "reset to 0: nothing since", text: vllm({ stop: 0, prompt: 0, generation: 0 }), previous: counters(9, 90, 90), observable: true, active: false },
  { name: "the sim's model server, idle", text: metricsText("m", { running: 0, waiting: 0, success: 3, prompt_tokens: 30, generation_tokens: 40 }), previous: counters(3, 30, 40), observable: true, active: false },
  { name: "the sim's model server, a request finished", text: metricsText("m", { running: 0, waiting: 0, success: 4, prompt_tokens: 31, generation_tokens: 48 }), previous: counters(3, 30, 40), observable: true, active: true },
  { name: "the sim's model server, a request running", text: metricsText("m", { running: 1, waiting: 0, success: 3, prompt_tokens: 31, generation_tokens: 40 }), previous: counters(3, 30, 40), observable: true, active: true },
  { name: "unreadable", text: null, previous: counters(1), observable: false, why: "unreadable" },
  { name: "empty text: no gauges", text: "", previous: null, observable: false, why: "missing" },
  { name: "a server that is not vLLM", text: "# TYPE http_requests_total counter\nhttp_requests_total 7\n", previous: null, observable: false, why: "missing" },
  { name: "one gauge missing", text: "vllm:num_requests_running 0\n", previous: null, observable: false, why: "missing" },
  { name: "a gauge that is NaN counts as missing", text: "vllm:num_requests_running NaN\nvllm:num_requests_waiting 0\n", previous: null, observable: false, why: "missing" },
  { name: "an HTML error page", text: "<html><body>502 Bad Gateway</body></html>\n", previous: null, observable: false, why: "malformed" },
  { name: "a line cut in half", text: `${vllm({ stop: 1 })}vllm:request_success_total{finished_reason="le`, previous: null, observable: false, why: "malformed" },
  { name: "a value that is not a number", text: "vllm:num_requests_running zero\nvllm:num_requests_waiting 0\n", previous: null, observable: false, why: "malformed" },
  { name: "an unterminated label value", text: 'vllm:num_requests_running{model_name="x} 1\nvllm:num_requests_waiting 0\n', previous: null, observable: false, why: "malformed" },
];

describe("readModelMetrics", () => {
  for (const r of rows) {
    it(r.name, () => {
      const read = readModelMetrics(r.text, r.previous);
      expect(read.observable).toBe(r.observable);
      if (read.observable) expect(read.active).toBe(r.active);
      else {
        expect(read.why).toBe(r.why);
        // The counters before are kept: requests made across the gap still show as growth.
        expect(read.counters).toEqual(r.previous);
      }
    });
  }

  it("answers the counters the next read compares with, 0 for one not yet published", () => {
    const read = readModelMetrics(vllm({ stop: 3, length: 1 }), null);
    expect(read.counters).toEqual(counters(4));
    expect(Object.keys(read.counters!).sort()).toEqual([...MODEL_COUNTERS].sort());
  });
});

describe("parsePrometheusText", () => {
  it("sums a metric over its label sets, reads escapes, timestamps, exponents and CRLF", () => {
    const text = [
      '# HELP x a "quoted" help',
      'x{a="1"} 1.5',
      'x{a="quote \\" and \\\\ and \\n",b="2",} 2e1 1700000000000',
      "y +Inf",
      "z -3",
      "w .5\r",
      "",
    ].join("\n");
    const m = parsePrometheusText(text)!;
    expect(m.get("x")).toBe(21.5);
    expect(m.has("y")).toBe(false);
    expect(m.get("z")).toBe(-3);
    expect(m.get("w")).toBe(0.5);
  });

  it("refuses the whole text for one line that is not a sample", () => {
    expect(parsePrometheusText("x 1\ny\n")).toBeNull();
    expect(parsePrometheusText("x 1 2 3\n")).toBeNull();
    expect(parsePrometheusText("1x 1\n")).toBeNull();
    expect(parsePrometheusText('x{a=1} 1\n')).toBeNull();
    expect(parsePrometheusText("x 1\n")).toEqual(new Map([["x", 1]]));
  });
});
