/**
 * A deployment's gateway (docs/deployments.md) beside the same model server reached directly,
 * against a real `wrangler dev`: what the gateway adds to a request's latency (p50 and p99), its
 * throughput as a share of the direct route's, and the time to the first streamed token on each.
 *
 * "Directly" is the sim's operator route to the machine's port (`/v1/sim/machines/:id/ports/8000`,
 * docs/sim.md): the same Worker, proxy and sim object, without the gateway's work (the deployment
 * key's check, the machine key's substitution, the request counted as the lease's activity). Both
 * paths run one after the other in pairs, so load that comes and goes on the machine moves both
 * sides of each ratio alike.
 */
import autocannon, { type Result as Cannonade } from "autocannon";
import type { Server } from "../e2e/server";
import { fastSim, onceCatalogReady, request, type Client } from "./http";
import { median, percentile } from "./in-process";

/** Issue 32's targets: throughput at least 0.9 of direct, and at most 3 ms (p50) and 10 ms (p99) added. */
export const GATEWAY_RATIO_TARGET = 0.9;
export const GATEWAY_ADDED_P50_TARGET_MS = 3;
export const GATEWAY_ADDED_P99_TARGET_MS = 10;
const MODEL = "Qwen/Qwen2.5-0.5B-Instruct";

export interface PathFigures {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  non2xx: number;
  /** Time to the first streamed token, median and p99 over sequential requests. */
  ttft_p50_ms: number;
  ttft_p99_ms: number;
}

export interface GatewayResult {
  /** Replicas serving the deployment (min = max). */
  replicas: number;
  model: string;
  rounds: number;
  connections: number;
  direct: PathFigures;
  gateway: PathFigures;
  added_p50_ms: number;
  added_p99_ms: number;
  added_ttft_p50_ms: number;
  /** Median over the rounds of gateway req/s over direct req/s in the same round. */
  throughput_ratio: number;
  /** The same measured against a deployment of 4 replicas (absent in the 4-replica result itself). */
  four?: GatewayResult;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A ready deployment of MODEL with `replicas` replicas, all ready, and its primary's machine id in the sim. */
async function readyDeployment(server: Server, c: Client, name: string, replicas: number): Promise<{ base_url: string; api_key: string; machine: string }> {
  const made = await onceCatalogReady(server, () => request(c, "PUT", `/v1/deployments/${name}`, { model: MODEL, spec: { gpu: "l40s:1" }, replicas: { min: replicas, max: replicas } }));
  const until = Date.now() + 120_000;
  for (;;) {
    const d = await request(c, "GET", `/v1/deployments/${name}`);
    const ready = (d.scaler?.replicas ?? []).filter((r: any) => r.state === "ready").length;
    if (d.state === "ready" && (replicas === 1 || ready === replicas)) break;
    if (Date.now() > until) throw new Error(`gateway bench: deployment still ${d.state} with ${ready} of ${replicas} replicas ready after 120 s`);
    // The scaler makes the other replicas once its object has heard of the deployment: a request tells it.
    if (d.state === "ready" && d.scaler === null) await fetch(`${made.base_url}/models`, { headers: { authorization: `Bearer ${made.api_key}` } }).then((r) => r.arrayBuffer());
    await sleep(250);
  }
  const ledger = await request(c, "GET", "/v1/sim/ledger?label_prefix=lessor-", undefined, "bootstrap");
  const machine = (ledger.machines as any[]).find((m) => m.label.includes(made.lease_id) && m.destroyed_at === null);
  if (!machine) throw new Error(`gateway bench: no live machine for lease ${made.lease_id}`);
  return { base_url: made.base_url, api_key: made.api_key, machine: machine.id };
}

/** Milliseconds from sending a streamed chat to the first chunk that carries text. */
async function firstToken(url: string, key: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "Say hello" }], max_tokens: 16, stream: true }),
  });
  if (res.status !== 200 || !res.body) throw new Error(`gateway bench: ${url}: ${res.status} ${await res.text()}`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  let at: number | null = null;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += value;
    if (at === null && /"content":"[^"]/.test(seen)) at = performance.now() - t0;
  }
  if (at === null) throw new Error(`gateway bench: ${url}: no token in the stream`);
  return at;
}

/** The gateway with 1 replica, then with 4, each beside the direct route to one machine. */
export async function benchGateway(server: Server, c: Client, log: (msg: string) => void, opts = { rounds: 3, durationS: 10, connections: 16, ttftSamples: 40 }): Promise<GatewayResult> {
  const one = await benchGatewayWith(server, c, log, 1, opts);
  const four = await benchGatewayWith(server, c, log, 4, opts);
  return { ...one, four };
}

async function benchGatewayWith(server: Server, c: Client, log: (msg: string) => void, replicas: number, opts: { rounds: number; durationS: number; connections: number; ttftSamples: number }): Promise<GatewayResult> {
  await fastSim(c);
  await request(c, "PUT", "/v1/sim/faults", { model_tokens_per_s: 200 }, "bootstrap");
  const NAME = `bench-gateway-${replicas}`;
  log(`gateway: a deployment of a small model on ${replicas} replica(s), until they answer`);
  const d = await readyDeployment(server, c, NAME, replicas);
  const direct = { url: `${c.base}/v1/sim/machines/${d.machine}/ports/8000/v1`, key: c.token };
  const gateway = { url: d.base_url, key: d.api_key };
  const paths = { direct, gateway };

  // Throughput and latency: a short non-streamed chat, the model as fast as it goes, so that what
  // is measured is the path, not the model's pace.
  await request(c, "PUT", "/v1/sim/faults", { model_tokens_per_s: 1_000_000 }, "bootstrap");
  const body = JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "Say hello" }], max_tokens: 8 });
  const runs: Record<"direct" | "gateway", Cannonade[]> = { direct: [], gateway: [] };
  const ratios: number[] = [];
  for (let round = 1; round <= opts.rounds; round++) {
    for (const which of ["direct", "gateway"] as const) {
      log(`gateway (${replicas} replica${replicas === 1 ? "" : "s"}): round ${round} of ${opts.rounds}, ${which}`);
      const p = paths[which];
      runs[which].push(
        await autocannon({
          url: `${p.url}/chat/completions`,
          method: "POST",
          connections: opts.connections,
          duration: opts.durationS,
          headers: { authorization: `Bearer ${p.key}`, "content-type": "application/json" },
          body,
        }),
      );
    }
    ratios.push(runs.gateway.at(-1)!.requests.average / runs.direct.at(-1)!.requests.average);
  }

  // The first token at the model's default pace, one request at a time, the two paths taking turns.
  await request(c, "PUT", "/v1/sim/faults", { model_tokens_per_s: 200 }, "bootstrap");
  const ttft: Record<"direct" | "gateway", number[]> = { direct: [], gateway: [] };
  for (let i = 0; i < opts.ttftSamples; i++) for (const which of ["direct", "gateway"] as const) ttft[which].push(await firstToken(`${paths[which].url}/chat/completions`, paths[which].key));

  await request(c, "DELETE", `/v1/deployments/${NAME}`);
  // Its machines go before the next configuration is measured.
  await sleep(2_000);
  const figures = (which: "direct" | "gateway"): PathFigures => ({
    rps: Math.round(median(runs[which].map((r) => r.requests.average))),
    p50_ms: median(runs[which].map((r) => r.latency.p50)),
    p99_ms: median(runs[which].map((r) => r.latency.p99)),
    non2xx: runs[which].reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0),
    ttft_p50_ms: Math.round(median(ttft[which]) * 10) / 10,
    ttft_p99_ms: Math.round(percentile(ttft[which], 99) * 10) / 10,
  });
  const out = { direct: figures("direct"), gateway: figures("gateway") };
  return {
    replicas,
    model: MODEL,
    rounds: opts.rounds,
    connections: opts.connections,
    ...out,
    added_p50_ms: out.gateway.p50_ms - out.direct.p50_ms,
    added_p99_ms: out.gateway.p99_ms - out.direct.p99_ms,
    added_ttft_p50_ms: Math.round((out.gateway.ttft_p50_ms - out.direct.ttft_p50_ms) * 10) / 10,
    throughput_ratio: Math.round(median(ratios) * 100) / 100,
  };
}

const ratioMet = (r: GatewayResult) => r.throughput_ratio >= GATEWAY_RATIO_TARGET && r.direct.non2xx === 0 && r.gateway.non2xx === 0;
const latencyMet = (r: GatewayResult) => r.added_p50_ms < GATEWAY_ADDED_P50_TARGET_MS && r.added_p99_ms < GATEWAY_ADDED_P99_TARGET_MS;

/** Throughput and latency targets met with 1 replica and (where measured) with 4. */
export function gatewayMet(r: GatewayResult): boolean {
  return ratioMet(r) && latencyMet(r) && (r.four === undefined || gatewayMet(r.four));
}

/** The bench table's rows (benchmark, measure, figure, target, met). */
export function gatewayRows(r: GatewayResult): string[][] {
  const fig = (p: PathFigures) => `${p.rps} req/s, p50 ${p.p50_ms} ms, p99 ${p.p99_ms} ms`;
  const name = `gateway, ${r.replicas} replica${r.replicas === 1 ? "" : "s"}`;
  return [
    [name, "model server reached directly", fig(r.direct), "", ""],
    [name, "through the gateway", fig(r.gateway), "", ""],
    [name, "throughput, gateway / direct", `${r.throughput_ratio.toFixed(2)} (median of ${r.rounds} rounds)`, `>= ${GATEWAY_RATIO_TARGET}`, ratioMet(r) ? "yes" : "NO"],
    [name, "latency added, p50 / p99", `${r.added_p50_ms} ms / ${r.added_p99_ms} ms`, `< ${GATEWAY_ADDED_P50_TARGET_MS} ms / < ${GATEWAY_ADDED_P99_TARGET_MS} ms`, latencyMet(r) ? "yes" : "NO"],
    [name, "first streamed token, direct / gateway (p50)", `${r.direct.ttft_p50_ms} ms / ${r.gateway.ttft_p50_ms} ms (+${r.added_ttft_p50_ms} ms)`, "", ""],
    ...(r.four ? gatewayRows(r.four) : []),
  ];
}
