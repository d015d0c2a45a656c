/**
 * What a lease costs the control plane (docs/cost.md): one typical lease (create, a 60 s boot, ten
 * minutes with a heartbeat a minute, end) and one job (create, a 60 s boot, five minutes of its
 * command, exit), each alone on a quiet server, counted by the server's own meter (`GET
 * /v1/meter`, src/metering.ts) and priced at Cloudflare's published rates.
 *
 * The bench makes no request of its own while it measures: it waits by the clock, reads the meter
 * at each phase's edge (each read counts itself once, taken off), and checks the lease's state
 * only after the last read. The ten minutes are measured as two and scaled: the steady minute is
 * the same minute ten times over (a heartbeat, the agent's calls, any read-back).
 */
import type { Server } from "../e2e/server";
import type { MeterCounts } from "../../src/metering";
import { request, workerdCpuMs, type Client } from "./http";

/** Cloudflare's Workers Paid rates (docs/cost.md cites the pages), in dollars. */
export const RATES = {
  worker_request: 0.3 / 1e6,
  worker_cpu_ms: 0.02 / 1e6,
  do_request: 0.15 / 1e6,
  /** Duration is billed at 128 MB per active object: $12.50 per million GB-s. */
  do_gb_s: 12.5 / 1e6,
  do_gb: 0.128,
  row_read: 0.001 / 1e6,
  row_written: 1.0 / 1e6,
} as const;

/** The targets the cost must meet. */
export const COST_TARGETS = { share_of_gpu_time: 0.001, provider_calls_typical: 20 } as const;

/** The meter's counts (src/metering.ts), every provider's calls summed, and the CPU the server spent. */
export type Counts = Omit<MeterCounts, "provider_calls"> & {
  provider_calls: number;
  /** CPU the server's workerd spent (the sim's share included), in ms. */
  cpu_ms: number;
};

const COUNTERS = ["worker_requests", "do_requests", "do_alarms", "do_wall_ms", "d1_queries", "d1_rows_read", "d1_rows_written", "do_rows_read", "do_rows_written", "provider_calls", "cpu_ms"] as const;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function read(server: Server, c: Client): Promise<Counts> {
  const m = await request(c, "GET", "/v1/meter", undefined, "bootstrap");
  const provider = Object.values(m.provider_calls as Record<string, number>).reduce((a, b) => a + b, 0);
  return { ...m, provider_calls: provider, cpu_ms: workerdCpuMs(server) };
}

/** after − before, less the one Worker request the `after` read made of itself. */
export function diffCounts(after: Counts, before: Counts): Counts {
  const out = Object.fromEntries(COUNTERS.map((k) => [k, after[k] - before[k]])) as unknown as Counts;
  // The counts only grow within one isolate: a fall means wrangler reloaded the Worker (a source
  // file changed under it) and the phase cannot be priced.
  const fell = COUNTERS.filter((k) => k !== "cpu_ms" && out[k] < 0);
  if (fell.length > 0) throw new Error(`cost: the server's counts fell (${fell.join(", ")}): it restarted during the measurement; run again on a tree nobody edits`);
  out.worker_requests -= 1;
  return out;
}

function sum(parts: Array<[Counts, number]>): Counts {
  return Object.fromEntries(COUNTERS.map((k) => [k, parts.reduce((a, [c, times]) => a + c[k] * times, 0)])) as unknown as Counts;
}

export function dollars(c: Counts) {
  const worker = c.worker_requests * RATES.worker_request + c.cpu_ms * RATES.worker_cpu_ms;
  const objects = (c.do_requests + c.do_alarms) * RATES.do_request + (c.do_wall_ms / 1000) * RATES.do_gb * RATES.do_gb_s;
  const rows = (c.d1_rows_read + c.do_rows_read) * RATES.row_read + (c.d1_rows_written + c.do_rows_written) * RATES.row_written;
  return { worker, objects, rows, total: worker + objects + rows };
}

async function waitState(c: Client, id: string, want: string, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const l = await request(c, "GET", `/v1/leases/${id}`);
    if (l.state === want) return l;
    if (Date.now() > until) throw new Error(`cost: lease ${id} is ${l.state}, not ${want}`);
    await sleep(1_000);
  }
}

const BOOT_MS = 60_000;
/** Long enough after the create for a 60 s boot to be ready and read back. */
const BOOT_WAIT_MS = BOOT_MS + 20_000;
const MINUTE_MS = 60_000;

export interface CostResult {
  typical: { phases: Record<string, Counts>; projected: Counts; dollars: ReturnType<typeof dollars> };
  job: { phases: Record<string, Counts>; projected: Counts; dollars: ReturnType<typeof dollars> };
  cheapest_gpu_hourly_usd: number;
  per_1000_leases_usd: number;
  per_1000_jobs_usd: number;
  share_of_gpu_time: number;
  targets: { share_met: boolean; provider_calls_met: boolean };
}

export async function benchCost(server: Server, c: Client, log: (msg: string) => void): Promise<CostResult> {
  await request(c, "PUT", "/v1/sim/faults", { provision_delay_ms: 1_000, boot_delay_ms: BOOT_MS, api_error_rate: 0, rate_limit_rate: 0, ambiguous_create_rate: 0, boot_failure_rate: 0, vanish_rate: 0 }, "bootstrap");
  const spec = { gpu: "l40s:1", providers: ["sim"] };

  log("cost: a typical lease (60 s boot, a heartbeat a minute, end)");
  const t0 = await read(server, c);
  const lease = await request(c, "POST", "/v1/leases", { kind: "scratch", spec, policy: { idle_timeout: "30m" } });
  await sleep(BOOT_WAIT_MS);
  const t1 = await read(server, c);
  for (let minute = 0; minute < 2; minute++) {
    await sleep(MINUTE_MS);
    await request(c, "POST", `/v1/leases/${lease.id}/heartbeat`, {});
  }
  const t2 = await read(server, c);
  await request(c, "POST", `/v1/leases/${lease.id}/end`, {});
  await sleep(15_000);
  const t3 = await read(server, c);
  await waitState(c, lease.id, "released", 60_000);
  const typicalPhases = { create_to_ready: diffCounts(t1, t0), steady_minute: scale(diffCounts(t2, t1), 1 / 2), end_to_released: diffCounts(t3, t2) };
  const typical = sum([
    [typicalPhases.create_to_ready, 1],
    [typicalPhases.steady_minute, 10],
    [typicalPhases.end_to_released, 1],
  ]);

  log("cost: a job (60 s boot, five minutes of its command, exit)");
  const j0 = await read(server, c);
  const job = await request(c, "POST", "/v1/leases", { kind: "job", spec, cmd: `echo start; sleep ${(BOOT_WAIT_MS - BOOT_MS + 2 * MINUTE_MS) / 1000}; echo done; exit 0` });
  await sleep(BOOT_WAIT_MS);
  const j1 = await read(server, c);
  await sleep(MINUTE_MS);
  const j2 = await read(server, c);
  await sleep(MINUTE_MS + 30_000);
  const j3 = await read(server, c);
  await waitState(c, job.id, "released", 60_000);
  const jobPhases = { create_to_running: diffCounts(j1, j0), running_minute: diffCounts(j2, j1), exit_to_released: diffCounts(j3, j2) };
  const jobTotal = sum([
    [jobPhases.create_to_running, 1],
    // Its five minutes of running: about 20 s in the first phase, a minute in the last, four here.
    [jobPhases.running_minute, 4],
    [jobPhases.exit_to_released, 1],
  ]);

  const gpus: Array<{ cheapest_hourly_usd: number | null }> = (await request(c, "GET", "/v1/catalog/gpus")).data;
  const cheapest = Math.min(...gpus.map((g) => g.cheapest_hourly_usd ?? Infinity));
  const typicalUsd = dollars(typical);
  const jobUsd = dollars(jobTotal);
  // The GPU time a typical lease manages: its ten minutes on the cheapest GPU-hour in the catalog.
  const share = typicalUsd.total / ((cheapest * 10) / 60);
  return {
    typical: { phases: typicalPhases, projected: typical, dollars: typicalUsd },
    job: { phases: jobPhases, projected: jobTotal, dollars: jobUsd },
    cheapest_gpu_hourly_usd: cheapest,
    per_1000_leases_usd: typicalUsd.total * 1000,
    per_1000_jobs_usd: jobUsd.total * 1000,
    share_of_gpu_time: share,
    targets: { share_met: share < COST_TARGETS.share_of_gpu_time, provider_calls_met: typical.provider_calls <= COST_TARGETS.provider_calls_typical },
  };
}

function scale(c: Counts, by: number): Counts {
  return Object.fromEntries(COUNTERS.map((k) => [k, c[k] * by])) as unknown as Counts;
}

export function costRows(r: CostResult): string[][] {
  const f = (x: number, d = 0) => x.toFixed(d);
  const line = (name: string, c: Counts) => [
    name,
    "worker req / DO req+alarms / DO wall s / D1 rows r,w / DO rows r,w / provider calls / CPU ms",
    `${f(c.worker_requests)} / ${f(c.do_requests + c.do_alarms)} / ${f(c.do_wall_ms / 1000, 1)} / ${f(c.d1_rows_read)},${f(c.d1_rows_written)} / ${f(c.do_rows_read)},${f(c.do_rows_written)} / ${f(c.provider_calls)} / ${f(c.cpu_ms)}`,
  ];
  return [
    [...line("cost: typical lease (10 min), counted", r.typical.projected), `provider calls <= ${COST_TARGETS.provider_calls_typical}`, String(r.targets.provider_calls_met)],
    [...line("cost: job (5 min), counted", r.job.projected), "-", "-"],
    ["cost: control plane per 1,000 typical leases", "USD (Workers, DO, rows)", `${f(r.per_1000_leases_usd, 4)} (${f(r.typical.dollars.worker * 1000, 4)}, ${f(r.typical.dollars.objects * 1000, 4)}, ${f(r.typical.dollars.rows * 1000, 4)})`, "-", "-"],
    ["cost: control plane per 1,000 jobs", "USD", f(r.per_1000_jobs_usd, 4), "-", "-"],
    ["cost: share of the GPU time it manages", `of 10 min at $${r.cheapest_gpu_hourly_usd}/h`, `${(r.share_of_gpu_time * 100).toFixed(4)}%`, "< 0.1%", String(r.targets.share_met)],
  ];
}
