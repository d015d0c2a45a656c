/**
 * The chaos run's deployments (issue 32): deployments with replicas, in an org of their own with a
 * GPU quota and a concurrent-spend budget, under bursts of streamed chat traffic through the
 * gateway while the sim's faults are on. The leases their scalers make are judged with the run's
 * other leases (chaos-lib.ts), and two checks of their own:
 *
 * - a request routed to a replica that was not ready: every answer names its replica
 *   (`lessor-replica`); the request must overlap a time that replica's lease was ready (its
 *   `ready` event to its next stop, release or host change), and must have been sent before the
 *   scaler began draining it;
 * - a replica over the quota or the budget: at no instant do the org's live leases hold more GPUs
 *   than its quota (from their `created` event to their `released` one), or run machines of more
 *   hourly price than its `concurrent_hourly_usd` (the sim's ledger: each machine while alive).
 */
import { DISPATCHER, WRANGLER_RESTARTED, type Client, type Tracked, type Violation } from "./chaos-lib";

export const DEPLOYMENT_CHECKS = {
  notReady: "gateway requests routed to a replica that was not ready (or draining)",
  overCaps: "deployment replicas over the org's GPU quota or budget",
} as const;

const MODEL = "Qwen/Qwen2.5-0.5B-Instruct";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface RoutedRequest {
  deployment: string;
  sent_at: number;
  done_at: number;
  status: number;
  code: string | null;
  replica: string | null;
  /** A 200 stream that ended with `data: [DONE]`. */
  whole: boolean;
}

export interface DeploymentRun {
  /** Stops the traffic, reads the deployments back, deletes them; the leases they had, to be judged with the rest. */
  finish(): Promise<{ leases: Tracked[]; requests: RoutedRequest[]; drains: Record<string, number>; caps: { gpus: number; hourly_usd: number } }>;
}

interface Specs {
  gpu: string;
  quotaGpus: number;
  rand: () => number;
  log: (line: string) => void;
  failures: string[];
}

/** A second org with its own quota and budget, two deployments with replicas, and traffic until `finish`. */
export async function startDeployments(boot: Client, base: string, s: Specs): Promise<DeploymentRun> {
  const ClientOf = boot.constructor as new (base: string, key: string) => Client;
  const org = await boot.call("POST", "/v1/orgs", { name: `chaos-deployments-${Date.now()}` });
  if (org.status !== 201) throw new Error(`POST /v1/orgs: ${org.status} ${JSON.stringify(org.json)}`);
  const api = new ClientOf(base, org.json.key.secret as string);
  const quota = await api.call("PUT", "/v1/quota", { gpus: s.quotaGpus });
  if (quota.status !== 200) throw new Error(`PUT /v1/quota: ${quota.status} ${JSON.stringify(quota.json)}`);
  const configs: Record<string, unknown> = {
    "chaos-steady": { min: 1, max: 3, target_inflight: 2, scale_down_delay: "3s", drain_timeout: "20s", idle_timeout: "20s" },
    "chaos-zero": { min: 0, max: 3, target_inflight: 2, scale_down_delay: "3s", drain_timeout: "20s", idle_timeout: "6s" },
  };
  const made: Record<string, { base_url: string; api_key: string; lease_id: string; hourly_usd: number | null }> = {};
  for (const [name, replicas] of Object.entries(configs)) {
    for (let attempt = 1; attempt <= 20 && !made[name]; attempt++) {
      const res = await api.call("PUT", `/v1/deployments/${name}`, { model: MODEL, spec: { gpu: s.gpu }, replicas });
      if (res.status === 200 || res.status === 202) made[name] = res.json;
      else await sleep(1_000);
    }
    if (!made[name]) throw new Error(`deployment ${name} could not be made`);
  }
  // The budget: about 3.5 machines of that price at once, so that some scale-ups are refused by it.
  const price = Math.max(...Object.values(made).map((d) => d.hourly_usd ?? 0));
  const hourlyCap = price > 0 ? Math.round(price * 3.5 * 100) / 100 : 100;
  const budget = await api.call("PUT", "/v1/budget", { concurrent_hourly_usd: hourlyCap });
  if (budget.status !== 200) throw new Error(`PUT /v1/budget: ${budget.status} ${JSON.stringify(budget.json)}`);
  s.log(`chaos: deployments ${Object.keys(made).join(", ")} on ${s.gpu}; their org's quota ${s.quotaGpus} GPUs, budget $${hourlyCap}/h at once`);

  const requests: RoutedRequest[] = [];
  let resends = 0;
  const seen = new Set<string>(Object.values(made).map((d) => d.lease_id));
  let stopped = false;

  const one = async (name: string, content: string) => {
    const d = made[name]!;
    const sent_at = Date.now();
    let status = 0;
    let code: string | null = null;
    let replica: string | null = null;
    let whole = false;
    try {
      for (let sent = 1; ; sent++) {
        const res = await fetch(`${d.base_url}/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${d.api_key}`, "content-type": "application/json" },
          body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content }], max_tokens: 48, stream: true }),
          signal: AbortSignal.timeout(90_000),
          // @ts-expect-error Node's fetch takes undici's dispatcher (the run's: idle sockets closed after 1 s, chaos-lib.ts).
          dispatcher: DISPATCHER,
        });
        status = res.status;
        replica = res.headers.get("lessor-replica");
        const text = await res.text();
        // wrangler dev's proxy lost the request before lessor read it: sent again, as the run's client does (chaos-lib.ts).
        if (status === 503 && text.startsWith(WRANGLER_RESTARTED) && sent < 3) {
          resends++;
          continue;
        }
        if (status === 200) whole = text.trimEnd().endsWith("data: [DONE]");
        else code = text.startsWith(WRANGLER_RESTARTED) ? "wrangler dev's proxy lost it" : ((JSON.parse(text)?.error?.code as string | undefined) ?? null);
        break;
      }
    } catch (e) {
      code = `no answer: ${String(e).slice(0, 80)}`;
    }
    if (replica) seen.add(replica);
    requests.push({ deployment: name, sent_at, done_at: Date.now(), status, code, replica, whole });
    // 5xx other than the gateway's own answers for a deployment not serving (its envelope says which) are failures.
    if (status === 0 || (status >= 500 && code !== "deployment_starting" && code !== "deployment_unavailable")) s.failures.push(`gateway ${name}: ${status || "no answer"} ${code ?? ""}`);
  };

  // Bursts: every 0.5 to 2.5 s a deployment gets 1 to 12 streams at once; quiet spells let chaos-zero sleep.
  const traffic = (async () => {
    const inflight = new Set<Promise<void>>();
    let n = 0;
    while (!stopped) {
      const names = Object.keys(made);
      const name = names[Math.floor(s.rand() * names.length)]!;
      const quiet = name === "chaos-zero" && s.rand() < 0.3;
      if (!quiet) {
        const burst = 1 + Math.floor(s.rand() * 12);
        for (let i = 0; i < burst; i++) {
          const p = one(name, `chaos request ${n++}`).finally(() => inflight.delete(p));
          inflight.add(p);
        }
      }
      await sleep(quiet ? 10_000 : 500 + s.rand() * 2_000);
    }
    await Promise.all(inflight);
  })();

  return {
    async finish() {
      stopped = true;
      await traffic;
      const drains: Record<string, number> = {};
      for (const name of Object.keys(made)) {
        const d = await api.read(`/v1/deployments/${name}`);
        for (const r of d.scaler?.replicas ?? []) seen.add(r.lease_id);
        for (const e of d.scaler?.events ?? []) {
          if (e.lease_id) seen.add(e.lease_id);
          // A drained replica is never sent a request again; one put to sleep may be woken (its ready intervals judge it).
          if (e.lease_id && (e.action === "drain" || e.action === "config_changed")) drains[e.lease_id] = Math.min(drains[e.lease_id] ?? Infinity, Date.parse(e.at));
        }
        seen.add(d.lease_id);
        const del = await api.call("DELETE", `/v1/deployments/${name}`);
        if (del.status !== 200) s.log(`chaos: DELETE deployment ${name}: ${del.status}`);
      }
      // Every lease the org has (a replica whose id fell out of the scaler's last events included).
      let cursor: string | null = null;
      for (let page = 0; page < 100; page++) {
        const q = new URLSearchParams({ limit: "200" });
        if (cursor) q.set("cursor", cursor);
        const body = await api.read(`/v1/leases?${q}`);
        for (const l of body.data) seen.add(l.id);
        cursor = body.next_cursor;
        if (!cursor) break;
      }
      s.log(`chaos: deployments: ${resends} gateway requests resent after wrangler dev's proxy lost them`);
      return { leases: [...seen].map((id) => ({ n: -2, id, state: "unknown", client: api })), requests, drains, caps: { gpus: s.quotaGpus, hourly_usd: hourlyCap } };
    },
  };
}

/** Ready intervals of a lease from its events: `ready` to the next stop, release or host change. */
function readyIntervals(events: any[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let from: number | null = null;
  for (const e of events) {
    const at = Date.parse(e.at);
    if (e.type === "ready") from ??= at;
    else if (from !== null && ["stop_requested", "release_requested", "host_excluded", "machine_destroyed", "released", "stopped"].includes(e.type)) {
      out.push([from, at]);
      from = null;
    }
  }
  if (from !== null) out.push([from, Infinity]);
  return out;
}

/** The GPUs a lease holds: its offer's (every replica here is a GPU lease). */
const gpusOf = (l: any): number => Number(l.offer?.gpu_count ?? 0);

/** The two checks over what was read back. */
export function judgeDeployments(input: {
  requests: RoutedRequest[];
  drains: Record<string, number>;
  leases: Record<string, any>;
  events: Record<string, any[]>;
  caps: { gpus: number; hourly_usd: number };
  ids: string[];
  /** The sim's ledger's machines (chaos-lib.ts `LedgerMachine`, with their prices). */
  machines: Array<{ label: string; price_per_hour?: number; disk_price_per_hour?: number; intervals: Array<{ status: string; from: number; to: number | null }> }>;
}): { violations: Violation[]; stats: Record<string, unknown> } {
  const notReady: string[] = [];
  for (const r of input.requests) {
    if (r.status !== 200 || !r.replica) continue;
    const intervals = readyIntervals(input.events[r.replica] ?? []);
    if (!intervals.some(([a, b]) => a <= r.done_at && b >= r.sent_at)) notReady.push(`${r.deployment}: a request sent ${new Date(r.sent_at).toISOString().slice(11, 23)} answered by ${r.replica}, never ready in that time`);
    const drained = input.drains[r.replica];
    if (drained !== undefined && drained < r.sent_at) notReady.push(`${r.deployment}: a request sent ${new Date(r.sent_at).toISOString().slice(11, 23)} answered by ${r.replica}, draining since ${new Date(drained).toISOString().slice(11, 23)}`);
  }
  // The org's holds over time: +gpus/+price at each lease's `created`, - at its `released`.
  const steps: Array<{ at: number; gpus: number; usd: number; id: string }> = [];
  for (const id of input.ids) {
    const l = input.leases[id];
    const evs = input.events[id] ?? [];
    const created = evs.find((e) => e.type === "created");
    if (!l || !created) continue;
    const released = evs.find((e) => e.type === "released");
    const gpus = gpusOf(l);
    steps.push({ at: Date.parse(created.at), gpus, usd: 0, id });
    steps.push({ at: released ? Date.parse(released.at) : Infinity, gpus: -gpus, usd: 0, id });
  }
  // Money: what the cloud itself says each of their machines cost an hour while it was alive (its
  // ledger), its disk alone while stopped. A lease refused a pricier fallback by the budget before
  // renting it (released budget_exceeded) rents nothing more.
  const ids = new Set(input.ids);
  for (const m of input.machines) {
    const id = /-(ls_[0-9a-z]+)-a[1-9][0-9]*$/.exec(m.label)?.[1];
    if (!id || !ids.has(id)) continue;
    for (const i of m.intervals) {
      if (i.status === "TERMINATED") continue;
      const usd = i.status === "STOPPED" ? (m.disk_price_per_hour ?? 0) : (m.price_per_hour ?? 0);
      steps.push({ at: i.from, gpus: 0, usd, id });
      steps.push({ at: i.to ?? Infinity, gpus: 0, usd: -usd, id });
    }
  }
  // Ends before starts at one instant: a release that made room is counted before what filled it.
  steps.sort((a, b) => a.at - b.at || a.gpus + a.usd - (b.gpus + b.usd));
  const over: string[] = [];
  let gpus = 0;
  let usd = 0;
  let peakGpus = 0;
  let peakUsd = 0;
  for (const st of steps) {
    gpus += st.gpus;
    usd += st.usd;
    peakGpus = Math.max(peakGpus, gpus);
    peakUsd = Math.max(peakUsd, usd);
    if (st.gpus > 0 && gpus > input.caps.gpus) over.push(`${st.id} made at ${new Date(st.at).toISOString().slice(11, 23)}: ${gpus} GPUs held, quota ${input.caps.gpus}`);
    if (st.usd > 0 && usd > input.caps.hourly_usd + 1e-9) over.push(`${st.id}'s machine at ${new Date(st.at).toISOString().slice(11, 23)}: $${usd.toFixed(2)}/h held, budget $${input.caps.hourly_usd}/h`);
  }
  const byStatus: Record<string, number> = {};
  for (const r of input.requests) byStatus[`${r.status}${r.code ? ` ${r.code}` : ""}`] = (byStatus[`${r.status}${r.code ? ` ${r.code}` : ""}`] ?? 0) + 1;
  return {
    violations: [
      { check: DEPLOYMENT_CHECKS.notReady, count: notReady.length, examples: notReady.slice(0, 5) },
      { check: DEPLOYMENT_CHECKS.overCaps, count: over.length, detail: `peak ${peakGpus} GPUs of ${input.caps.gpus}, $${peakUsd.toFixed(2)}/h of $${input.caps.hourly_usd}/h`, examples: over.slice(0, 5) },
    ],
    stats: {
      gateway_requests: input.requests.length,
      gateway_answers: byStatus,
      streams_whole: input.requests.filter((r) => r.status === 200 && r.whole).length,
      streams_cut: input.requests.filter((r) => r.status === 200 && !r.whole).length,
      replica_leases: input.ids.length,
      replicas_serving: new Set(input.requests.map((r) => r.replica).filter(Boolean)).size,
    },
  };
}
