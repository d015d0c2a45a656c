/**
 * The chaos run (`npm run chaos`, and a small run in `npm test`): many leases against the
 * simulated cloud with its faults on, random user actions, short policies, until every lease is
 * released; then the run is judged from the sim's ledger (what the cloud really did) and lessor's
 * own records (events, objects, the D1 index).
 *
 * Every random choice comes from one seeded PRNG (the sim's faults from its own, seeded with the
 * same seed), so a run is reproducible as far as timing allows.
 *
 * The checks (each must count 0):
 * - machines alive at once for one lease beyond one (guarantee 1);
 * - machines that ran or sat stopped after their lease ended (its first `release_requested`
 *   event), beyond a tolerance (2 s per machine) plus the waits the cloud itself imposed on calls
 *   about that machine after the end (an injected 429's Retry-After, which lessor must honour, or
 *   an injected 503's longest backoff): lessor cannot destroy faster than the provider lets it;
 * - automatic stops or destroys without a recorded reason (guarantee 3): events of those kinds
 *   without a reason, released leases without a `release_reason`, and every stop and destroy in
 *   the ledger that no reasoned event of its lease came before;
 * - leases that left `releasing` for a live state (a release undone);
 * - leases whose D1 index row disagrees with their object;
 * - labelled machines alive at the end (no lease is left to own them);
 * - lessor answers with a 5xx (or no answer at all) (guarantee 12);
 * - leases not released by the deadline;
 * - volumes deleted while a machine mounted them (from the ledger: a machine alive at the
 *   volume's deletion that mounts it); the run mounts volumes on some leases and tries to delete
 *   them while leases live (docs/volumes.md);
 * - labelled volumes left at the end: the run deletes every volume it made once its leases are
 *   released, so each labelled volume the cloud still holds is one lessor lost track of (no row)
 *   or could not delete.
 */
import { Agent } from "undici";
import { maxAliveAtOnce, type SimRefusal } from "../../src/providers/sim/machines";
import { SIM_BACKOFF_MAX_MS } from "../../src/providers/sim/adapter";
import { DEFAULT_INSTALLATION_ID } from "../../src/config";
import { prng } from "../../src/random";
import { judgeDeployments, startDeployments } from "./chaos-deployments";

/** The deployments' org's GPU quota: fewer than their replicas' max together, so the quota refuses some scale-ups. */
const DEPLOYMENT_QUOTA_GPUS = 4;

export interface ChaosFaults {
  api_error_rate: number;
  rate_limit_rate: number;
  ambiguous_create_rate: number;
  boot_failure_rate: number;
  vanish_rate: number;
  vanish_min_ms: number;
  vanish_max_ms: number;
  /** A spot machine is taken back (docs/sim.md "Spot"), in the vanish window after it first runs. */
  preempt_rate: number;
  provision_delay_ms: number;
  boot_delay_ms: number;
  retry_after_s: number;
}

/** The issue's faults: 5% API 5xx, 5% 429, 3% ambiguous creates, 5% boot failures, 2% vanishing. */
export const CHAOS_FAULTS: ChaosFaults = {
  api_error_rate: 0.05,
  rate_limit_rate: 0.05,
  ambiguous_create_rate: 0.03,
  boot_failure_rate: 0.05,
  vanish_rate: 0.02,
  vanish_min_ms: 1_000,
  vanish_max_ms: 10_000,
  // Spot jobs with recovery (issue 31): half of spot machines taken back.
  preempt_rate: 0.5,
  provision_delay_ms: 100,
  boot_delay_ms: 300,
  retry_after_s: 1,
};

export interface ChaosOptions {
  /** lessor's origin, e.g. http://127.0.0.1:8787. */
  base: string;
  bootstrapToken: string;
  leases: number;
  seed: number;
  faults?: Partial<ChaosFaults>;
  log?: (line: string) => void;
  /** LESSOR_INSTALLATION_ID of the server (labels are `lessor-<installation>-<lease>-a<n>`). */
  installation?: string;
  /** Lease creates started per second (default 8), at most `createConcurrency` in flight (20). */
  createRatePerS?: number;
  createConcurrency?: number;
  /** User actions started per second (default 25), at most `actionConcurrency` in flight (8). */
  actionRatePerS?: number;
  actionConcurrency?: number;
  /** How long random actions go on after the last create (default 10 s). */
  actionTailS?: number;
  /** The whole run (creates, actions, waiting for releases) must end within this (default 600 s). */
  timeoutS?: number;
  /** Machine time allowed after a lease's end, per machine (default 2000 ms). */
  toleranceMs?: number;
  /** Preferred GPU specs; those without offers are skipped. */
  gpus?: string[];
  /** Deployments with replicas under gateway traffic, in an org of their own (chaos-deployments.ts); default true. */
  deployments?: boolean;
  /**
   * The org's GPU quota (`PUT /v1/quota`), so that creates meet it: refusals are counted with the
   * other refused creates, and deployments displace scratch leases (released `preempted`). Absent: none.
   */
  gpuQuota?: number;
}

export interface Violation {
  check: string;
  count: number;
  /** A figure beside the count, e.g. the machine-seconds over the tolerance. */
  detail?: string;
  examples: string[];
}

export interface ChaosStats {
  seed: number;
  leases_requested: number;
  leases_created: number;
  /** Leases the index holds that no create answered (a lost answer that made a lease anyway). */
  leases_untracked: number;
  create_refused: Record<string, number>;
  /** The refusals' messages, numbers and ids written as N, so that like ones count together. */
  create_refused_why: Record<string, number>;
  released: number;
  releases_by_reason: Record<string, number>;
  stops_by_reason: Record<string, number>;
  machines_created: number;
  machines_vanished: number;
  machines_boot_failed: number;
  ambiguous_creates: number;
  machines_adopted: number;
  hosts_replaced: number;
  /** Spot machines the cloud took back (the ledger's `interrupted`). */
  machines_preempted: number;
  /** Jobs restarted on a new machine after a loss (events `attempt_ended`), by the loss. */
  restarts: Record<string, number>;
  /** A recovering job's loss noticed -> its new machine running (the `ready` event's loss_to_running_ms). */
  loss_to_running_s: Dist;
  /** The machine time of the attempts that ended in a loss (their `machine_ms`), the work a restart repeats. */
  machine_s_lost: number;
  /** How the spot jobs with recovery ended: exit codes and release reasons. */
  recovery_jobs: Record<string, number>;
  actions: Record<string, Record<string, number>>;
  /** The deployments' gateway traffic and replicas (chaos-deployments.ts). */
  deployments?: Record<string, unknown>;
  requests: number;
  requests_per_s: number;
  lessor_status: Record<string, number>;
  /** Requests wrangler dev's proxy lost before lessor read them, resent (see WRANGLER_RESTARTED). */
  dev_proxy_resends: number;
  gpus: string[];
  durations_s: {
    total: number;
    create_phase: number;
    action_phase: number;
    drain: number;
    verify: number;
  };
  /** Distributions in seconds: p50 / p95 / max. */
  lease_lifetime_s: Dist;
  release_lag_s: Dist;
  ttl_lag_s: Dist;
  machine_time_after_end_s: Dist;
  /** Of the machines the cloud made lessor wait for after their lease ended: how long it did. */
  imposed_wait_after_end_s: Dist;
}

export interface Dist {
  n: number;
  p50: number;
  p95: number;
  max: number;
}

export interface ChaosRaw {
  leases: Record<string, any>;
  events: Record<string, any[]>;
  index: Record<string, any>;
  ledger: { now: number; machines: LedgerMachine[]; volumes?: LedgerVolume[] };
  /** lessor's volume rows once every lease was released, before the run deleted them (labels by id). */
  volumes?: Array<{ id: string; name: string }>;
  /** What the final delete of each volume answered, by volume id. */
  volume_deletes?: Record<string, number>;
}

/** A volume in the sim's ledger. */
export interface LedgerVolume {
  id: string;
  label: string;
  created_at: number;
  deleted_at: number | null;
}

export interface ChaosResult {
  /** Every check, violated or not (count 0 when it holds). */
  violations: Violation[];
  stats: ChaosStats;
  /** False when leases were still live at the deadline. */
  finished: boolean;
  raw: ChaosRaw;
}

export interface LedgerInterval {
  status: string;
  from: number;
  to: number | null;
}

export interface LedgerMachine {
  id: string;
  label: string;
  status: string;
  created_at: number;
  destroyed_at: number | null;
  vanished: boolean;
  /** Taken back by the cloud (a spot machine preempted); absent in a ledger from before spot. */
  interrupted?: boolean;
  intervals: LedgerInterval[];
  /** Calls on the machine the cloud refused with an injected fault (absent: none recorded). */
  refusals?: SimRefusal[];
  /** The volumes it mounts (absent: none recorded). */
  volumes?: string[];
}

export const CHECKS = {
  twoAlive: "machines alive at once for one lease beyond one",
  afterEnd: "machines running or stopped after their lease ended (> tolerance)",
  noReason: "automatic stops or destroys without a recorded reason",
  undone: "leases that left releasing for a live state",
  index: "leases whose D1 index row disagrees with their object",
  leftover: "labelled machines with no lease left at the end",
  fiveXx: "lessor 5xx answers (or no answer)",
  notReleased: "leases not released by the deadline",
  volumeMounted: "volumes deleted while a machine mounted them",
  volumeLeft: "labelled volumes left at the end (unknown to lessor, or not deletable)",
} as const;

/**
 * What wrangler dev's proxy answers (503, `Retry-After: 0`) when its pooled connection to the
 * Worker's runtime was closed under a request that is not a GET. Both ends of that connection
 * close idle sockets after 5 s, and a request written onto a socket the runtime is closing is lost
 * before lessor reads it (cloudflare/workers-sdk#14641); wrangler resends GETs itself, and its
 * releases after the one pinned here resend every method (workers-sdk#15252). The client does what
 * those releases do: it resends such an answer at most twice and counts the resends beside the
 * table. A third in a row counts as a failed request.
 */
export const WRANGLER_RESTARTED = "Your worker restarted mid-request";
const DEFAULT_GPUS = ["l4:1", "t4:1", "rtx4090:1", "rtx3090:1", "a10:1", "rtx-a4000:1", "rtx-a5000:1"];
const EXAMPLES = 5;

// ---- small tools ---------------------------------------------------------------------------------

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function dist(values: number[]): Dist {
  if (values.length === 0) return { n: 0, p50: 0, p95: 0, max: 0 };
  const s = [...values].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return { n: s.length, p50: r(at(0.5)), p95: r(at(0.95)), max: r(s[s.length - 1]!) };
}

function bump(m: Record<string, number>, k: string, by = 1) {
  m[k] = (m[k] ?? 0) + by;
}

/** The time of day of an instant, for reading a failure's story at a glance. */
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 23);

/** Runs `fn` over `items`, `limit` at a time. */
async function pool<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  });
  await Promise.all(workers);
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => deepEqual((a as any)[k], (b as any)[k]));
}

/** Where two lease bodies differ: top-level fields, and the fields inside an object-valued one. */
function diffFields(a: Record<string, unknown>, b: Record<string, unknown>): Array<{ path: string; a: unknown; b: unknown }> {
  const out: Array<{ path: string; a: unknown; b: unknown }> = [];
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  // The state first: it says most.
  keys.sort((x, y) => Number(y === "state") - Number(x === "state"));
  for (const k of keys) {
    const x = a[k];
    const y = b[k];
    if (deepEqual(x, y)) continue;
    const isObj = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);
    if (isObj(x) && isObj(y)) {
      for (const sub of new Set([...Object.keys(x as object), ...Object.keys(y as object)])) {
        const xs = (x as any)[sub];
        const ys = (y as any)[sub];
        if (!deepEqual(xs, ys)) out.push({ path: `${k}.${sub}`, a: xs, b: ys });
      }
    } else out.push({ path: k, a: x, b: y });
  }
  return out;
}

// ---- HTTP ----------------------------------------------------------------------------------------

interface Answer {
  status: number;
  json: any;
}

/**
 * The client's connections to wrangler dev: an idle one is closed after 1 s, well before the
 * server's own 5 s idle timeout, so the client never writes a request onto a socket the server is
 * closing (undici's default keeps idle sockets 4 s, a margin the load of a chaos run can eat: one
 * 500-lease run lost a create that way, `UND_ERR_SOCKET`, with lessor never reached).
 */
export const DISPATCHER = new Agent({ keepAliveTimeout: 1_000, keepAliveMaxTimeout: 1_000 });

export class Client {
  requests = 0;
  readonly statuses: Record<string, number> = {};
  /** 5xx answers and requests that got no answer: each one a violation. */
  readonly failures: string[] = [];

  constructor(
    readonly base: string,
    readonly key: string,
  ) {}

  /** Requests resent because wrangler dev's proxy lost them before lessor read them (see WRANGLER_RESTARTED). */
  proxyResends = 0;

  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, key = this.key): Promise<Answer> {
    this.requests++;
    let res: Response;
    let text: string;
    try {
      for (let sent = 1; ; sent++) {
        res = await fetch(`${this.base}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(60_000),
          // @ts-expect-error Node's fetch takes undici's dispatcher; the DOM RequestInit type does not name it.
          dispatcher: DISPATCHER,
        });
        text = await res.text();
        if (!(res.status === 503 && text.startsWith(WRANGLER_RESTARTED)) || sent >= 3) break;
        this.proxyResends++;
      }
    } catch (e) {
      bump(this.statuses, "no answer");
      const cause = (e as Error & { cause?: { code?: string; message?: string } }).cause;
      this.failures.push(`${method} ${path}: no answer (${(e as Error).message}${cause ? `: ${cause.code ?? cause.message}` : ""})`);
      return { status: 0, json: null };
    }
    bump(this.statuses, String(res.status));
    let json: any = null;
    try {
      json = JSON.parse(text);
    } catch {
      if (res.status < 500) this.failures.push(`${method} ${path}: ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
    if (res.status >= 500) this.failures.push(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return { status: res.status, json };
  }

  /** A read that must succeed: retried on no answer, thrown on anything but 200. */
  async read(path: string, key = this.key): Promise<any> {
    for (let attempt = 1; ; attempt++) {
      const res = await this.call("GET", path, undefined, {}, key);
      if (res.status === 200) return res.json;
      if (attempt >= 5) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.json)?.slice(0, 300)}`);
      await sleep(500 * attempt);
    }
  }
}

// ---- the run -------------------------------------------------------------------------------------

export interface Tracked {
  n: number;
  id: string;
  /** The state in lessor's last answer about this lease. */
  state: string;
  /** The client of the lease's org, when not the run's own (the deployments' org, chaos-deployments.ts). */
  client?: Client;
}

type ActionName = "end" | "stop" | "start" | "extend" | "lock" | "unlock" | "heartbeat";

/** Action weights by the lease's last known state; actions that do not fit are sent too (409). */
const ACTION_WEIGHTS: Record<string, Partial<Record<ActionName, number>>> = {
  ready: { heartbeat: 30, lock: 12, unlock: 5, extend: 10, stop: 18, end: 5, start: 3 },
  booting: { heartbeat: 20, lock: 10, stop: 10, extend: 10, end: 4, start: 3, unlock: 3 },
  stopped: { start: 45, extend: 10, end: 5, stop: 3, heartbeat: 3, unlock: 3, lock: 3 },
  other: { heartbeat: 20, lock: 8, stop: 10, start: 10, extend: 10, end: 4, unlock: 4 },
};

function pickWeighted<K extends string>(rand: () => number, weights: Partial<Record<K, number>>): K {
  const entries = Object.entries(weights) as Array<[K, number]>;
  const total = entries.reduce((s, [, w]) => s + w, 0);
  let x = rand() * total;
  for (const [k, w] of entries) {
    x -= w;
    if (x < 0) return k;
  }
  return entries[entries.length - 1]![0];
}

const int = (rand: () => number, lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));

/** A short policy: mostly a ttl of 5-25 s; some leases without a ttl end by idling and stopped_ttl. */
/** How often a lease mounts its GPU's volume (volumes.ts), and how often an action tries to delete a volume. */
const VOLUME_MOUNT_RATE = 0.25;
const VOLUME_DELETE_RATE = 0.02;
/** How many jobs are spot jobs with recovery (issue 31). */
const SPOT_RECOVERY_RATE = 0.6;

function randomLease(rand: () => number, gpus: string[], volumeOf: (gpu: string) => string | undefined = () => undefined) {
  const kindRoll = rand();
  const kind = kindRoll < 0.7 ? "scratch" : kindRoll < 0.85 ? "job" : "deployment";
  const gpu = gpus[Math.floor(rand() * gpus.length)]!;
  const policy: Record<string, unknown> = {
    heartbeat_grace: "2s",
    stopped_ttl: `${int(rand, 3, 8)}s`,
    host_attempts: 3,
  };
  if (rand() < 0.85) {
    policy.ttl = `${int(rand, 5, 25)}s`;
    policy.idle_timeout = rand() < 0.6 ? `${int(rand, 3, 10)}s` : null;
  } else {
    policy.ttl = null;
    policy.max_lifetime = `${int(rand, 15, 30)}s`;
    policy.idle_timeout = `${int(rand, 3, 8)}s`;
  }
  if (kind === "job" && rand() < SPOT_RECOVERY_RATE) {
    // A spot job that recovers (issue 31): it runs a while and exits 0, unless its machine is lost
    // more often than it may restart; half may fall back to on-demand when spot has no offer.
    return {
      kind,
      spec: { gpu, spot: true },
      policy: {
        heartbeat_grace: "2s",
        host_attempts: 3,
        // Room for the sim's agent, which acts for every machine in one loop and reports an exit tens
        // of seconds late when the machine is loaded (seen at load average 8 on 2 cores).
        ttl: `${int(rand, 60, 90)}s`,
        recovery: { on: ["preempted", "host_failed", "provider_lost"], max_restarts: 3, backoff: "1s", fallback_on_demand: rand() < 0.5 },
      },
      cmd: `echo attempt $LESSOR_RESTART; sleep ${int(rand, 2, 8)}; echo done`,
    };
  }
  // A job needs its command; `hang` keeps it running (and so in use) until a hard cap ends it.
  const volume = rand() < VOLUME_MOUNT_RATE ? volumeOf(gpu) : undefined;
  return { kind, spec: { gpu }, policy, ...(kind === "job" ? { cmd: "hang" } : {}), ...(volume ? { volumes: [{ name: volume, path: "/data" }] } : {}) };
}

export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const log = options.log ?? (() => {});
  const installation = options.installation ?? DEFAULT_INSTALLATION_ID;
  const labelPrefix = `lessor-${installation}-`;
  const toleranceMs = options.toleranceMs ?? 2_000;
  const createRate = options.createRatePerS ?? 8;
  const createConcurrency = options.createConcurrency ?? 20;
  const actionRate = options.actionRatePerS ?? 25;
  const actionConcurrency = options.actionConcurrency ?? 8;
  const actionTailMs = (options.actionTailS ?? 10) * 1000;
  const t0 = Date.now();
  const deadline = t0 + (options.timeoutS ?? 600) * 1000;
  const rand = prng(options.seed);
  const boot = new Client(options.base, options.bootstrapToken);

  // An org of our own, and the sim's faults.
  const org = await boot.call("POST", "/v1/orgs", { name: `chaos-${options.seed}-${t0}` });
  if (org.status !== 201) throw new Error(`POST /v1/orgs: ${org.status} ${JSON.stringify(org.json)}`);
  const api = new Client(options.base, org.json.key.secret as string);
  if (options.gpuQuota !== undefined) {
    const quota = await api.call("PUT", "/v1/quota", { gpus: options.gpuQuota });
    if (quota.status !== 200) throw new Error(`PUT /v1/quota: ${quota.status} ${JSON.stringify(quota.json)}`);
  }
  const faults = { ...CHAOS_FAULTS, ...options.faults, seed: options.seed >>> 0 };
  const put = await boot.call("PUT", "/v1/sim/faults", faults);
  if (put.status !== 200) throw new Error(`PUT /v1/sim/faults: ${put.status} ${JSON.stringify(put.json)}`);

  // GPU classes that have offers (the catalog is refreshed by the first cron tick).
  const wanted = options.gpus ?? DEFAULT_GPUS;
  let gpus: string[] = [];
  for (let i = 0; i < 60 && gpus.length === 0; i++) {
    const classes = (await api.read("/v1/catalog/gpus")).data as Array<{ name: string; offers: number }>;
    const withOffers = new Set(classes.filter((c) => c.offers > 0).map((c) => c.name));
    gpus = wanted.filter((g) => withOffers.has(g.split(":")[0]!));
    if (gpus.length === 0) await sleep(1000);
  }
  if (gpus.length === 0) throw new Error(`none of ${wanted.join(", ")} has offers`);
  log(`chaos: seed ${options.seed}, ${options.leases} leases over ${gpus.join(", ")}; faults ${JSON.stringify(faults)}`);

  // A volume per GPU, in the region with the most of its offers; some leases mount it.
  const volumeNames = new Map<string, string>();
  for (const [i, gpu] of gpus.entries()) {
    const offers = (await api.read(`/v1/catalog/offers?gpu=${encodeURIComponent(gpu.split(":")[0]!)}&provider=sim&limit=200`)).data as Array<{ region: string }>;
    const counts = new Map<string, number>();
    for (const o of offers) counts.set(o.region, (counts.get(o.region) ?? 0) + 1);
    const region = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
    if (!region) continue;
    const name = `chaos-vol-${i}`;
    for (let attempt = 1; attempt <= 5; attempt++) {
      const made = await api.call("POST", "/v1/volumes", { name, size_gb: 10, region });
      if (made.status === 200 || made.status === 201) {
        volumeNames.set(gpu, name);
        break;
      }
      await sleep(500);
    }
  }
  log(`chaos: volumes ${JSON.stringify(Object.fromEntries(volumeNames))}`);
  // Deployments with replicas and their traffic, beside the leases, from a PRNG of their own.
  const deploymentRun = options.deployments === false ? null : await startDeployments(boot, options.base, { gpu: gpus[0]!, quotaGpus: DEPLOYMENT_QUOTA_GPUS, rand: prng(options.seed + 1), log, failures: api.failures });

  const leases: Tracked[] = [];
  const createRefused: Record<string, number> = {};
  const createRefusedWhy: Record<string, number> = {};
  const actions: Record<string, Record<string, number>> = {};

  // --- creates: `createRate` a second, at most `createConcurrency` in flight -------------------
  const createPhase = (async () => {
    const inflight = new Set<Promise<void>>();
    for (let n = 0; n < options.leases; n++) {
      const body = randomLease(rand, gpus, (gpu) => volumeNames.get(gpu));
      while (inflight.size >= createConcurrency) await Promise.race(inflight);
      const p = (async () => {
        // The Idempotency-Key makes a create whose answer was lost safe to send again.
        const key = `chaos-${options.seed}-${t0}-${n}`;
        for (let attempt = 1; attempt <= 3; attempt++) {
          const res = await api.call("POST", "/v1/leases", body, { "idempotency-key": key });
          if (res.status === 202) {
            leases.push({ n, id: res.json.id, state: res.json.state });
            return;
          }
          if (res.status !== 0 && res.status < 500) {
            // A lease bound to a volume's region may find no machine there, or its volume deleted
            // by the run's own deletes: told apart, as the one refusal the workload itself causes.
            bump(createRefused, `${res.status} ${res.json?.error?.code ?? ""}${"volumes" in body && body.volumes ? " (volume)" : ""}`.trim());
            const message = String(res.json?.error?.message ?? "").replace(/\b[a-z]{2,4}_[0-9a-z]{20,}\b/g, "ID").replace(/\d+(\.\d+)?/g, "N");
            bump(createRefusedWhy, `${res.json?.error?.code ?? res.status}: ${message.slice(0, 140)}`);
            return;
          }
          await sleep(500);
        }
        bump(createRefused, "no answer");
      })().finally(() => inflight.delete(p));
      inflight.add(p);
      await sleep(1000 / createRate);
    }
    await Promise.all(inflight);
  })();

  // --- random actions on random live leases -----------------------------------------------------
  const act = async (lease: Tracked, action: ActionName) => {
    const body = action === "extend" ? { by: `${int(rand, 2, 8)}s` } : action === "lock" ? { for: `${int(rand, 3, 15)}s` } : {};
    const res = await api.call("POST", `/v1/leases/${lease.id}/${action}`, body);
    const outcome = res.status === 200 ? "ok" : res.status === 409 ? `409 ${res.json?.error?.code}` : String(res.status || "no answer");
    actions[action] ??= {};
    bump(actions[action]!, outcome);
    if (res.status === 200 && typeof res.json?.state === "string") lease.state = res.json.state;
    else if (res.status === 409 && typeof res.json?.error?.details?.state === "string") lease.state = res.json.error.details.state;
  };
  let createsDoneAt = Infinity;
  void createPhase.then(() => (createsDoneAt = Date.now()));
  const actionPhase = (async () => {
    const inflight = new Set<Promise<void>>();
    while (Date.now() < createsDoneAt + actionTailMs && Date.now() < deadline) {
      const live = leases.filter((l) => l.state !== "released");
      if (volumeNames.size > 0 && inflight.size < actionConcurrency && rand() < VOLUME_DELETE_RATE) {
        // A user deleting a volume, mounted or not: refused while a live lease mounts it; made again when it went.
        const names = [...volumeNames.values()];
        const name = names[Math.floor(rand() * names.length)]!;
        const p = (async () => {
          const found = ((await api.read("/v1/volumes?limit=200")).data as Array<{ id: string; name: string; region: string }>).find((v) => v.name === name);
          if (!found) return;
          const res = await api.call("DELETE", `/v1/volumes/${found.id}`);
          actions.volume_delete ??= {};
          bump(actions.volume_delete, res.status === 409 ? `409 ${res.json?.error?.code}` : String(res.status || "no answer"));
          if (res.status === 200) await api.call("POST", "/v1/volumes", { name, size_gb: 10, region: found.region });
        })().finally(() => inflight.delete(p));
        inflight.add(p);
      }
      if (live.length > 0 && inflight.size < actionConcurrency) {
        const lease = live[Math.floor(rand() * live.length)]!;
        const weights = ACTION_WEIGHTS[lease.state] ?? ACTION_WEIGHTS.other!;
        const p = act(lease, pickWeighted(rand, weights)).finally(() => inflight.delete(p));
        inflight.add(p);
      }
      await sleep(1000 / actionRate);
    }
    await Promise.all(inflight);
  })();

  // Progress while the load runs.
  const progress = setInterval(() => {
    const states: Record<string, number> = {};
    for (const l of leases) bump(states, l.state);
    log(`chaos: t=${((Date.now() - t0) / 1000).toFixed(0)}s created ${leases.length}/${options.leases}, last seen ${JSON.stringify(states)}, ${api.requests} requests`);
  }, 10_000);
  let tCreated: number;
  try {
    await createPhase;
    tCreated = Date.now();
    await actionPhase;
  } finally {
    clearInterval(progress);
  }
  // The deployments' traffic stops and they are deleted: their leases are waited for and judged with the rest.
  const deployed = deploymentRun ? await deploymentRun.finish() : null;
  if (deployed) {
    leases.push(...deployed.leases);
    log(`chaos: deployments: ${deployed.requests.length} gateway requests, ${deployed.leases.length} replica leases`);
  }
  const tActed = Date.now();

  // --- wait until the index says every lease is released ---------------------------------------
  const listIndex = async (): Promise<Map<string, any>> => {
    const out = new Map<string, any>();
    const deploymentsOrg = deployed?.leases[0]?.client;
    for (const client of deploymentsOrg ? [api, deploymentsOrg] : [api]) {
      let cursor: string | null = null;
      for (let page = 0; page < 1000; page++) {
        const q = new URLSearchParams({ limit: "200" });
        if (cursor) q.set("cursor", cursor);
        const body = await client.read(`/v1/leases?${q}`);
        for (const l of body.data) out.set(l.id, l);
        cursor = body.next_cursor;
        if (!cursor) break;
      }
    }
    return out;
  };
  // A lease the index still shows live while its object has been released for a while is stuck
  // in the index: that is the index check's to report, not a reason to wait out the deadline.
  const INDEX_GRACE_MS = 10_000;
  const releasedByObject = new Map<string, number>();
  let index = await listIndex();
  // A create whose answer was lost may still have made a lease: the org's index knows it.
  let untracked = 0;
  for (const id of index.keys()) {
    if (!leases.some((l) => l.id === id)) {
      leases.push({ n: -1, id, state: index.get(id).state });
      untracked++;
    }
  }
  if (untracked > 0) log(`chaos: ${untracked} leases in the index that no create answered; judged with the rest`);
  let lastLog = 0;
  let lastObjectCheck = 0;
  for (;;) {
    const live = leases.filter((l) => index.get(l.id)?.state !== "released");
    if (live.length === 0) break;
    if (Date.now() > deadline) {
      log(`chaos: deadline reached with ${live.length} leases not released in the index`);
      break;
    }
    if (live.length <= 50 && Date.now() - lastObjectCheck > 5_000) {
      lastObjectCheck = Date.now();
      await pool(live, 8, async (l) => {
        const res = await (l.client ?? api).call("GET", `/v1/leases/${l.id}`);
        if (res.status === 200 && res.json?.state === "released") {
          if (!releasedByObject.has(l.id)) releasedByObject.set(l.id, Date.now());
        } else releasedByObject.delete(l.id);
      });
      const stuck = live.filter((l) => Date.now() - (releasedByObject.get(l.id) ?? Infinity) > INDEX_GRACE_MS);
      if (stuck.length === live.length) {
        log(`chaos: ${stuck.length} leases released by their objects over ${INDEX_GRACE_MS / 1000} s ago are still live in the index; not waiting for them`);
        break;
      }
    }
    if (Date.now() - lastLog > 5_000) {
      const states: Record<string, number> = {};
      for (const l of live) bump(states, index.get(l.id)?.state ?? "missing from index");
      log(`chaos: t=${((Date.now() - t0) / 1000).toFixed(0)}s waiting for ${live.length} leases: ${JSON.stringify(states)}`);
      lastLog = Date.now();
    }
    await sleep(1_000);
    index = await listIndex();
  }
  const tDrained = Date.now();

  // --- read everything back --------------------------------------------------------------------
  log(`chaos: reading back ${leases.length} leases, their events and the sim's ledger`);
  const objects: Record<string, any> = {};
  const events: Record<string, any[]> = {};
  await pool(leases, 8, async (l) => {
    objects[l.id] = await (l.client ?? api).read(`/v1/leases/${l.id}`);
    events[l.id] = (await (l.client ?? api).read(`/v1/leases/${l.id}/events?limit=200`)).data;
  });
  index = await listIndex();
  // The objects and the index are read one after the other, and the billing step may settle a
  // lease in between (the object writes its index row as it takes the receipt): a lease whose two
  // copies differ is read again, object then index, before the index check judges it.
  for (let round = 0; round < 3; round++) {
    const differ = leases.filter((l) => {
      const { guard: _guard, ...view } = objects[l.id] ?? {};
      return !deepEqual(view, index.get(l.id));
    });
    if (differ.length === 0) break;
    await sleep(1_000);
    await pool(differ, 8, async (l) => {
      objects[l.id] = await api.read(`/v1/leases/${l.id}`);
    });
    index = await listIndex();
  }
  // Every lease is released: every volume can go, and does.
  const volumeRows = (await api.read("/v1/volumes?limit=200")).data as Array<{ id: string; name: string }>;
  const volumeDeletes: Record<string, number> = {};
  for (const v of volumeRows) {
    let res = await api.call("DELETE", `/v1/volumes/${v.id}`);
    // The sim's injected 503s and 429s: a user sends the delete again.
    for (let attempt = 1; attempt < 5 && (res.status === 503 || res.status === 429); attempt++) {
      await sleep(1000);
      res = await api.call("DELETE", `/v1/volumes/${v.id}`);
    }
    volumeDeletes[v.id] = res.status;
  }
  const ledger = (await boot.read(`/v1/sim/ledger?label_prefix=${encodeURIComponent(labelPrefix)}`)) as ChaosRaw["ledger"];
  const tVerified = Date.now();

  const raw: ChaosRaw = { leases: objects, events, index: Object.fromEntries(index), ledger, volumes: volumeRows, volume_deletes: volumeDeletes };
  // Finished: every lease's object (the one writer of the lease) says released.
  const finished = leases.every((l) => objects[l.id]?.state === "released");
  const judged = judge({ leases, raw, labelPrefix, toleranceMs });
  let deploymentStats: Record<string, unknown> | undefined;
  const failures = [...boot.failures, ...api.failures];
  const proxy = failures.filter((f) => f.includes(WRANGLER_RESTARTED)).length;
  const noAnswer = failures.filter((f) => f.includes(": no answer")).length;
  const parts = [proxy ? `${proxy} from wrangler dev's proxy ("${WRANGLER_RESTARTED}")` : "", noAnswer ? `${noAnswer} without an answer` : ""].filter(Boolean);
  judged.violations.push({
    check: CHECKS.fiveXx,
    count: failures.length,
    ...(parts.length ? { detail: parts.join("; ") } : {}),
    // Lessor's own 5xx first: they are the ones that say most.
    examples: [...failures.filter((f) => !f.includes(WRANGLER_RESTARTED)), ...failures.filter((f) => f.includes(WRANGLER_RESTARTED))].slice(0, EXAMPLES),
  });

  if (deployed) {
    const d = judgeDeployments({ requests: deployed.requests, drains: deployed.drains, leases: objects, events, caps: deployed.caps, ids: deployed.leases.map((l) => l.id), machines: raw.ledger.machines });
    judged.violations.push(...d.violations);
    deploymentStats = d.stats;
  }
  const lessorStatus: Record<string, number> = {};
  for (const c of [boot, api]) for (const [k, v] of Object.entries(c.statuses)) bump(lessorStatus, k, v);
  const requests = boot.requests + api.requests;
  const s = (ms: number) => Math.round(ms / 100) / 10;
  const stats: ChaosStats = {
    seed: options.seed,
    leases_requested: options.leases,
    // The deployments' replica leases (n -2) are judged with the rest but were not among the creates asked for.
    leases_created: leases.filter((l) => l.n >= 0).length,
    leases_untracked: untracked,
    create_refused: createRefused,
    create_refused_why: createRefusedWhy,
    ...judged.counts,
    actions,
    ...(deploymentStats ? { deployments: deploymentStats } : {}),
    requests,
    requests_per_s: Math.round((requests / Math.max(1, tVerified - t0)) * 10_000) / 10,
    lessor_status: lessorStatus,
    dev_proxy_resends: boot.proxyResends + api.proxyResends,
    gpus,
    durations_s: {
      total: s(tVerified - t0),
      create_phase: s(tCreated - t0),
      action_phase: s(tActed - t0),
      drain: s(tDrained - tActed),
      verify: s(tVerified - tDrained),
    },
  };
  return { violations: judged.violations, stats, finished, raw };
}

// ---- judging -------------------------------------------------------------------------------------

const AUTOMATIC_EVENTS = new Set(["stop_requested", "release_requested", "machine_destroyed", "released", "attempt_ended"]);
const LIVE_STATES = new Set(["pending", "provisioning", "booting", "ready", "stopping", "stopped", "starting"]);

/** The lease id of one of this installation's labels. */
function leaseOfLabel(labelPrefix: string, label: string): string | null {
  if (!label.startsWith(labelPrefix)) return null;
  const m = /^(ls_[0-9a-z]+)-a[1-9][0-9]*$/.exec(label.slice(labelPrefix.length));
  return m ? m[1]! : null;
}

/** Milliseconds a machine spent in any status at or after `from`. */
function timeAfter(m: LedgerMachine, from: number, now: number): number {
  let ms = 0;
  for (const i of m.intervals) ms += Math.max(0, (i.to ?? now) - Math.max(i.from, from));
  return ms;
}

/**
 * The waits the cloud imposed on calls about `m` from `from` on: an injected 429's Retry-After
 * (lessor must not call again sooner) and, for an injected 503, the longest backoff lessor's sim
 * adapter takes before trying again.
 */
export function imposedWaitMs(m: Pick<LedgerMachine, "refusals" | "destroyed_at">, from: number): number {
  let ms = 0;
  for (const r of m.refusals ?? []) {
    if (r.at < from || (m.destroyed_at !== null && r.at > m.destroyed_at)) continue;
    ms += r.status === 429 ? (r.retry_after_ms ?? 0) : SIM_BACKOFF_MAX_MS;
  }
  return ms;
}

/** The checks over what was read back (everything but the 5xx count, which the client keeps). */
export function judge(input: { leases: Array<Pick<Tracked, "id">>; raw: ChaosRaw; labelPrefix: string; toleranceMs: number }) {
  const { leases, raw, labelPrefix, toleranceMs } = input;
  const now = raw.ledger.now;
  const byLease = new Map<string, LedgerMachine[]>();
  const strangers: LedgerMachine[] = [];
  for (const m of raw.ledger.machines) {
    const id = leaseOfLabel(labelPrefix, m.label);
    if (id && raw.leases[id]) {
      const list = byLease.get(id) ?? [];
      list.push(m);
      byLease.set(id, list);
    } else strangers.push(m);
  }
  const at = (e: any) => Date.parse(e.at);

  const v = {
    twoAlive: [] as string[],
    afterEnd: [] as string[],
    noReason: [] as string[],
    undone: [] as string[],
    index: [] as string[],
    leftover: [] as string[],
    notReleased: [] as string[],
  };
  let afterEndExcessMs = 0;
  let unexplained = 0;
  const releasesByReason: Record<string, number> = {};
  const stopsByReason: Record<string, number> = {};
  const lifetimes: number[] = [];
  const releaseLags: number[] = [];
  const ttlLags: number[] = [];
  const afterEndAll: number[] = [];
  const imposedAll: number[] = [];
  let ambiguous = 0;
  let adopted = 0;
  let replaced = 0;
  const restarts: Record<string, number> = {};
  const lossToRunning: number[] = [];
  let machineMsLost = 0;
  const recoveryJobs: Record<string, number> = {};

  for (const { id } of leases) {
    const lease = raw.leases[id];
    const evs = raw.events[id] ?? [];
    const machines = byLease.get(id) ?? [];

    // Not released by the deadline.
    if (lease.state !== "released") {
      v.notReleased.push(`${id}: ${lease.state} since ${lease.state_since}; guard ${JSON.stringify(lease.guard)}; last events ${evs.slice(-3).map((e) => `${e.type}(${e.reason ?? ""})`).join(", ")}`);
    } else {
      bump(releasesByReason, lease.release_reason ?? "(none)");
      lifetimes.push((Date.parse(lease.released_at) - Date.parse(lease.created_at)) / 1000);
    }

    // Guarantee 1.
    const alive = maxAliveAtOnce(machines, now);
    if (alive > 1) {
      v.twoAlive.push(
        `${id}: ${alive} alive at once: ${machines.map((m) => `${m.id} ${m.label.slice(-3)} ${clock(m.created_at)}-${m.destroyed_at ? clock(m.destroyed_at) : "alive"}`).join("; ")}`,
      );
    }

    // Machine time after the lease's end.
    const end = evs.find((e) => e.type === "release_requested");
    if (end) {
      const endAt = at(end);
      const released = evs.find((e) => e.type === "released");
      if (released) releaseLags.push((at(released) - endAt) / 1000);
      if (end.reason === "ttl_expired" && lease.ttl_expires_at) ttlLags.push((endAt - Date.parse(lease.ttl_expires_at)) / 1000);
      for (const m of machines) {
        const ms = timeAfter(m, endAt, now);
        afterEndAll.push(ms / 1000);
        const imposed = imposedWaitMs(m, endAt);
        if (imposed > 0) imposedAll.push(imposed / 1000);
        const allowed = toleranceMs + imposed;
        if (ms > allowed) {
          afterEndExcessMs += ms - allowed;
          v.afterEnd.push(
            `${id} ${m.id} (${m.label.slice(-2)}): ${(ms / 1000).toFixed(1)} s after release_requested(${end.reason}) at ${clock(endAt)}` +
              `${imposed ? ` (the cloud imposed ${(imposed / 1000).toFixed(1)} s of it)` : ""}; ` +
              `${m.destroyed_at ? `destroyed ${clock(m.destroyed_at)}` : `still ${m.status}`}; lease released_at ${lease.released_at?.slice(11, 23) ?? "-"} (${lease.release_reason})`,
          );
        }
      }
    }

    // Guarantee 3: reasons on events, on the lease, and for every stop and destroy the ledger shows.
    for (const e of evs) {
      if (e.type === "create_ambiguous") ambiguous++;
      if (e.type === "machine_adopted") adopted++;
      if (e.type === "machine_destroyed") replaced++;
      if (e.type === "attempt_ended") {
        bump(restarts, e.reason ?? "(none)");
        machineMsLost += e.detail?.machine_ms ?? 0;
      }
      if (e.type === "ready" && typeof e.detail?.loss_to_running_ms === "number") lossToRunning.push(e.detail.loss_to_running_ms / 1000);
      if (e.type === "stop_requested") bump(stopsByReason, e.reason ?? "(none)");
      if (AUTOMATIC_EVENTS.has(e.type) && !e.reason) v.noReason.push(`${id}: event #${e.seq} ${e.type} ${e.from}->${e.to} at ${e.at} has no reason`);
    }
    if (lease.state === "released" && !lease.release_reason) v.noReason.push(`${id}: released with no release_reason`);
    const stopRequests = evs.filter((e) => e.type === "stop_requested" && e.reason).map(at);
    if (lease.policy?.recovery) bump(recoveryJobs, lease.state !== "released" ? lease.state : lease.exit ? `${lease.release_reason} exit ${lease.exit.code ?? lease.exit.signal}` : `${lease.release_reason}`);
    const destroyRequests = evs.filter((e) => (e.type === "release_requested" || e.type === "machine_destroyed" || e.type === "attempt_ended") && e.reason).map(at);
    // Each time a machine of the lease entered EXITED, a reasoned stop request must have come before
    // it (and after the lease's previous stop); one request explains one stop.
    // A spot machine the cloud took back (`interrupted`) entered its last EXITED by itself: no stop explains it.
    const exits = machines
      .flatMap((m) => m.intervals.filter((i, n, all) => i.status === "EXITED" && !(m.interrupted && all.slice(n + 1).every((j) => j.status !== "EXITED"))).map((i) => ({ m, t: i.from })))
      .sort((a, b) => a.t - b.t);
    const unused = [...stopRequests].sort((a, b) => a - b);
    for (const x of exits) {
      let k = -1;
      while (k + 1 < unused.length && unused[k + 1]! <= x.t) k++;
      if (k < 0) {
        unexplained++;
        v.noReason.push(`${id}: ${x.m.id} stopped at ${clock(x.t)} with no reasoned stop_requested before it`);
      } else unused.splice(0, k + 1);
    }
    for (const m of machines) {
      if (m.destroyed_at === null || m.vanished) continue;
      if (!destroyRequests.some((t) => t <= m.destroyed_at!)) {
        unexplained++;
        v.noReason.push(`${id}: ${m.id} destroyed at ${clock(m.destroyed_at)} with no reasoned release_requested or machine_destroyed before it`);
      }
    }

    // A release, once requested, is never undone.
    const k = evs.findIndex((e) => e.type === "release_requested");
    if (k >= 0) {
      const back = evs.slice(k + 1).find((e) => e.to && LIVE_STATES.has(e.to));
      if (back) {
        v.undone.push(
          `${id}: release_requested(${evs[k].reason}) at ${evs[k].at.slice(11, 23)}, then ${back.type} ${back.from}->${back.to} at ${back.at.slice(11, 23)}; released ${lease.released_at?.slice(11, 23) ?? "-"} (${lease.release_reason})`,
        );
      }
    }

    // The index copy is the object's view (without `guard`).
    const { guard: _guard, ...view } = lease;
    const row = raw.index[id];
    if (!row) v.index.push(`${id}: missing from the index (object ${lease.state})`);
    else if (!deepEqual(view, row)) {
      const fields = diffFields(view, row);
      v.index.push(`${id}: ${fields.map((f) => `${f.path} object ${JSON.stringify(f.a)} / index ${JSON.stringify(f.b)}`).join("; ").slice(0, 500)}`);
    }

    // Machines still alive at the end: their lease is released (or the run did not finish).
    for (const m of machines) {
      if (m.status !== "TERMINATED") v.leftover.push(`${m.id} ${m.label}: ${m.status} at the end; lease ${lease.state} (${lease.release_reason ?? "-"})`);
    }
  }
  for (const m of strangers) {
    if (m.status !== "TERMINATED") v.leftover.push(`${m.id} ${m.label}: ${m.status} at the end; no lease of this run`);
  }

  // Volumes: none deleted while a machine that mounts it was alive; none labelled left at the end.
  const volumeMounted: string[] = [];
  const volumeLeft: string[] = [];
  const known = new Set((raw.volumes ?? []).map((r) => r.id));
  for (const vol of raw.ledger.volumes ?? []) {
    if (vol.deleted_at !== null) {
      const holders = raw.ledger.machines.filter((m) => (m.volumes ?? []).includes(vol.id) && m.created_at <= vol.deleted_at! && (m.destroyed_at === null || m.destroyed_at > vol.deleted_at!));
      for (const m of holders) volumeMounted.push(`${vol.id} ${vol.label}: deleted at ${clock(vol.deleted_at)} while ${m.id} ${m.label} mounted it (${m.destroyed_at ? `destroyed ${clock(m.destroyed_at)}` : "still alive"})`);
    } else {
      const id = vol.label.startsWith(`${labelPrefix}vol_`) ? vol.label.slice(labelPrefix.length) : null;
      const why = id !== null && known.has(id) ? `lessor's delete answered ${raw.volume_deletes?.[id] ?? "nothing"}` : "no row in lessor";
      volumeLeft.push(`${vol.id} ${vol.label}: not deleted at the end; ${why}`);
    }
  }

  const row = (check: string, list: string[], count = list.length, detail?: string): Violation => ({
    check,
    count,
    ...(detail ? { detail } : {}),
    examples: list.slice(0, EXAMPLES),
  });
  const violations: Violation[] = [
    row(CHECKS.twoAlive, v.twoAlive),
    row(CHECKS.afterEnd, v.afterEnd, v.afterEnd.length, `${(afterEndExcessMs / 1000).toFixed(1)} machine-s beyond ${toleranceMs / 1000} s each`),
    row(CHECKS.noReason, v.noReason, v.noReason.length, unexplained ? `${unexplained} from the ledger` : undefined),
    row(CHECKS.undone, v.undone),
    row(CHECKS.index, v.index),
    row(CHECKS.leftover, v.leftover),
    row(CHECKS.notReleased, v.notReleased),
    row(CHECKS.volumeMounted, volumeMounted),
    row(CHECKS.volumeLeft, volumeLeft),
  ];
  const ms = raw.ledger.machines.filter((m) => leaseOfLabel(labelPrefix, m.label));
  return {
    violations,
    counts: {
      released: leases.filter((l) => raw.leases[l.id]?.state === "released").length,
      releases_by_reason: releasesByReason,
      stops_by_reason: stopsByReason,
      machines_created: ms.length,
      machines_vanished: ms.filter((m) => m.vanished).length,
      machines_boot_failed: ms.filter((m) => m.intervals.some((i) => i.status === "ERROR")).length,
      ambiguous_creates: ambiguous,
      machines_adopted: adopted,
      hosts_replaced: replaced,
      machines_preempted: ms.filter((m) => m.interrupted).length,
      restarts,
      loss_to_running_s: dist(lossToRunning),
      machine_s_lost: Math.round(machineMsLost / 100) / 10,
      recovery_jobs: recoveryJobs,
      lease_lifetime_s: dist(lifetimes),
      release_lag_s: dist(releaseLags),
      ttl_lag_s: dist(ttlLags),
      machine_time_after_end_s: dist(afterEndAll),
      imposed_wait_after_end_s: dist(imposedAll),
    },
  };
}

// ---- the report ----------------------------------------------------------------------------------

export function violationCount(result: Pick<ChaosResult, "violations">): number {
  return result.violations.reduce((s, v) => s + v.count, 0);
}

export function formatTable(result: Pick<ChaosResult, "violations" | "stats" | "finished">): string {
  const lines: string[] = [];
  const w = Math.max(...result.violations.map((v) => v.check.length), 5);
  lines.push(`${"check".padEnd(w)}  count  detail`);
  lines.push(`${"-".repeat(w)}  -----  ------`);
  // The order of the issue, then ours.
  for (const v of result.violations) {
    lines.push(`${v.check.padEnd(w)}  ${String(v.count).padStart(5)}  ${v.detail ?? ""}`.trimEnd());
  }
  const total = violationCount(result);
  lines.push(`${"-".repeat(w)}  -----`);
  lines.push(`${"violations".padEnd(w)}  ${String(total).padStart(5)}  ${total === 0 ? "OK" : "FAIL"}${result.finished ? "" : " (not finished)"}`);
  for (const v of result.violations) {
    if (v.count === 0) continue;
    lines.push("", `${v.check}: first ${v.examples.length} of ${v.count}`);
    for (const e of v.examples) lines.push(`  - ${e}`);
  }
  const s = result.stats;
  const d = (x: Dist) => `p50 ${x.p50} / p95 ${x.p95} / max ${x.max} (n=${x.n})`;
  const kv = (m: Record<string, number>) =>
    Object.entries(m)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${n}`)
      .join(", ") || "none";
  lines.push(
    "",
    "stats",
    `  seed ${s.seed}; leases ${s.leases_created}/${s.leases_requested} created (refused: ${kv(s.create_refused)}${s.leases_untracked ? `; ${s.leases_untracked} more found only in the index` : ""}), ${s.released} released; gpus ${s.gpus.join(", ")}`,
    ...Object.entries(s.create_refused_why)
      .sort((a, b) => b[1] - a[1])
      .map(([why, n]) => `  refused ${n}: ${why}`),
    `  releases by reason: ${kv(s.releases_by_reason)}`,
    `  stops requested by reason: ${kv(s.stops_by_reason)}`,
    `  machines created ${s.machines_created}: vanished ${s.machines_vanished}, boot failed ${s.machines_boot_failed}; ambiguous creates ${s.ambiguous_creates}, adopted ${s.machines_adopted}, destroyed for a new host ${s.hosts_replaced}`,
    `  recovery: machines taken back ${s.machines_preempted}; restarts ${kv(s.restarts)}; loss -> new machine running (s): ${d(s.loss_to_running_s)}; machine-seconds lost ${s.machine_s_lost}`,
    `  spot jobs with recovery: ${kv(s.recovery_jobs)}`,
    `  actions: ${Object.entries(s.actions)
      .sort()
      .map(([a, o]) => `${a} {${kv(o)}}`)
      .join("; ")}`,
    `  lessor requests ${s.requests} (${s.requests_per_s}/s): ${kv(s.lessor_status)}; resent after wrangler dev's proxy lost them: ${s.dev_proxy_resends}`,
    ...(s.deployments ? [`  deployments: ${JSON.stringify(s.deployments).replace(/[{}"]/g, "").replace(/,/g, ", ")}`] : []),
    `  durations (s): total ${s.durations_s.total}, creates done at ${s.durations_s.create_phase}, actions done at ${s.durations_s.action_phase}, drain ${s.durations_s.drain}, read-back ${s.durations_s.verify}`,
    `  lease lifetime (s): ${d(s.lease_lifetime_s)}`,
    `  release_requested -> released (s): ${d(s.release_lag_s)}`,
    `  ttl deadline -> release_requested (s): ${d(s.ttl_lag_s)}`,
    `  machine time after the lease's end (s): ${d(s.machine_time_after_end_s)}`,
    `  waits the cloud imposed after the end, where it did (s): ${d(s.imposed_wait_after_end_s)}`,
  );
  return lines.join("\n");
}

/**
 * What a chaos run's server is started with: no rate limit in the way, and bad-host memory on but
 * short. The sim's faults strike machines at random, not hosts, so each fault marks a healthy
 * host; a day's memory would empty GPU classes over a run of hundreds of leases.
 */
export const CHAOS_SERVER_ENV = {
  LESSOR_RATE_LIMIT_PER_MINUTE: "1000000",
  LESSOR_ORG_RATE_LIMIT_PER_MINUTE: "1000000",
  LESSOR_QUOTES_PER_DAY: "1000000",
  LESSOR_LEASES_PER_DAY: "1000000",
  LESSOR_INGRESS_EVENTS_PER_DAY: "1000000",
  LESSOR_BAD_HOST_TTL: "2m",
} as const;
