/**
 * A job's recovery from losing its machine on the sim (docs/leases.md "Recovery"), against a real
 * `wrangler dev`: a spot job with recovery runs, its machine is taken back (the operator's
 * `POST /v1/sim/machines/:id/preempt`, as the cloud would), and the job comes back on a new
 * machine. Measured from the take-back, one job at a time: until lessor acted on the loss (its
 * `attempt_ended`, told by the sim's webhook through ingress), until the new machine ran (the
 * `ready` event's own `loss_to_running_ms`, from the loss noticed), and until the command's first
 * line on the new machine reached the log (what a user following it sees). The recovery's backoff
 * is 1 s, the least a policy may say above 0 that a user would set; it is part of every figure
 * after the loss is noticed, and the table says so.
 */
import type { Server } from "../e2e/server";
import { fastSim, request, type Client } from "./http";
import { median } from "./in-process";

/** Jobs preempted, one after another. */
export const RECOVERY_RUNS = 8;
export const RECOVERY_BACKOFF_MS = 1_000;

export interface RecoveryResult {
  runs: number;
  gpu: string;
  backoff_ms: number;
  /** Take-back -> lessor's `attempt_ended` (noticed and the old machine destroyed), ms. */
  noticed_ms: number[];
  /** Loss noticed -> the new machine running, as the lease's `ready` event says, ms. */
  loss_to_running_ms: number[];
  /** Take-back -> the new attempt's first line in the log, ms. */
  resumed_ms: number[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`recovery: timed out waiting for ${what}`);
    await sleep(25);
  }
}

export async function benchRecovery(_server: Server, c: Client, log: (msg: string) => void): Promise<RecoveryResult> {
  await fastSim(c);
  // The one-GPU class the sim sells most spot offers of.
  const offers: Array<{ gpu: string; gpu_count: number }> = await until("the sim's spot offers", async () => {
    const data = (await request(c, "GET", "/v1/catalog/offers?provider=sim&spot=true&limit=200")).data as Array<{ gpu: string; gpu_count: number }>;
    return data.length > 0 ? data : null;
  });
  const counts = new Map<string, number>();
  for (const o of offers) if (o.gpu !== "cpu" && o.gpu_count === 1) counts.set(o.gpu, (counts.get(o.gpu) ?? 0) + 1);
  const gpu = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
  const logOf = async (id: string) => (await fetch(`${c.base}/v1/leases/${id}/logs`, { headers: { authorization: `Bearer ${c.key}` } })).text();
  const result: RecoveryResult = { runs: RECOVERY_RUNS, gpu, backoff_ms: RECOVERY_BACKOFF_MS, noticed_ms: [], loss_to_running_ms: [], resumed_ms: [] };
  for (let run = 1; run <= RECOVERY_RUNS; run++) {
    const lease = await request(c, "POST", "/v1/leases", {
      kind: "job",
      spec: { gpu: `${gpu}:1`, spot: true, providers: ["sim"] },
      cmd: "echo attempt $LESSOR_RESTART; hang",
      policy: { ttl: "10m", recovery: { on: ["preempted"], max_restarts: 1, backoff: `${RECOVERY_BACKOFF_MS / 1000}s` } },
    });
    const ready = await until(`${lease.id} running`, async () => {
      const l = await request(c, "GET", `/v1/leases/${lease.id}`);
      return l.state === "ready" && (await logOf(lease.id)).includes("attempt 0") ? l : null;
    });
    const t0 = Date.now();
    await request(c, "POST", `/v1/sim/machines/${ready.machine.id}/preempt`, undefined, "bootstrap");
    await until(`${lease.id} resumed`, async () => (await logOf(lease.id)).includes("attempt 1"));
    const resumed = Date.now() - t0;
    const events = (await request(c, "GET", `/v1/leases/${lease.id}/events`)).data as Array<{ type: string; at: string; detail: Record<string, any> }>;
    const ended = events.find((e) => e.type === "attempt_ended")!;
    const back = events.find((e) => e.type === "ready" && typeof e.detail?.loss_to_running_ms === "number")!;
    result.noticed_ms.push(Date.parse(ended.at) - t0);
    result.loss_to_running_ms.push(back.detail.loss_to_running_ms);
    result.resumed_ms.push(resumed);
    log(`recovery: run ${run} of ${RECOVERY_RUNS}: noticed ${Date.parse(ended.at) - t0} ms, running ${back.detail.loss_to_running_ms} ms after, output ${resumed} ms after the take-back`);
    await request(c, "POST", `/v1/leases/${lease.id}/end`, {});
  }
  return result;
}

/** The p50 and p95 of `xs` (nearest rank). */
function p95(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)] ?? 0;
}

export function recoveryRows(r: RecoveryResult): string[][] {
  const row = (name: string, xs: number[]) => [name, `p50 / p95 ms, ${r.runs} jobs (${r.gpu}, backoff ${r.backoff_ms / 1000} s)`, `${median(xs).toFixed(0)} / ${p95(xs).toFixed(0)}`, "-", "-"];
  return [
    row("recovery: take-back -> loss acted on (ingress)", r.noticed_ms),
    row("recovery: loss -> new machine running", r.loss_to_running_ms),
    row("recovery: take-back -> resumed output", r.resumed_ms),
  ];
}
