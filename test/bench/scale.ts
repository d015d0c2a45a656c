/**
 * The scale bench (issue 34, "Proved by simulation"; docs/scale.md): 100 orgs of 1,000 live
 * leases each, 100,000 in all, in lessor's own Worker and Durable Objects run in this process's
 * workerd through Miniflare, with real D1 and real object storage (SQLite files, kept in memory
 * under /dev/shm: see `memoryDir`). It measures, at that
 * size, what each request costs in D1 statements and rows and in object calls and rows (the
 * Worker's own meter, src/metering.ts), the list's latency beside a small org's, the cron
 * backstop over every org and one org's alarm, the D1 reads that still span every lease, and
 * what an org's object holds in memory and reads when it starts.
 *
 * What is simulated, and why: the 100,000 leases are not 100,000 lease objects with machines
 * (creating those takes hours here). Each is written into its org's object as a lease object
 * writes it, through the same call (`sync`: its row of the org's lease index with the events it
 * forwards, src/events/lease-stream.ts `forward`), its row and events copied from a real lease
 * made first; and its D1 row is inserted as the lease's first write would leave it, a batch per
 * org. The backstop's pokes then reach lease objects that hold nothing and answer at once: what a
 * poked lease itself does is a lease's cost (docs/cost.md), not the backstop's. A few real leases
 * (created, heartbeated, extended, ended through the API) give the per-request figures of a lease's
 * own write-through at that size. workerd is then started again on the same storage, so that each
 * org's object starts as after an eviction; and an org's index is built in this process's V8 at up
 * to 1,000,000 live leases to weigh its memory (`indexMemory`).
 *
 * The Worker is bundled by esbuild from test/bench/scale-worker.ts (the real Worker plus the
 * bench's `/__bench/*` routes) and given wrangler.toml's bindings (wrangler's own reading of it),
 * without wrangler.toml's `[alias]` entries, which only leave unused code out of the bundle.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions, unstable_readConfig } from "wrangler";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { newId } from "../../src/ids";
import { machineLabel } from "../../src/lease/label";
import type { MeterCounts } from "../../src/metering";
import { ORG_POKE_GRACE_MS, OrgLeaseIndex, POKE_AGAIN_MS } from "../../src/orgs/lease-index";
import { encodeCursor } from "../../src/pagination";
import { repoRoot } from "../e2e/server";
import { median, percentile } from "./in-process";
import type { BenchAsk, SeedLease } from "./scale-worker";

export interface ScaleOptions {
  orgs: number;
  leases_per_org: number;
  /** The org the list is compared with. */
  small_org_leases: number;
  /** One more org this large, alone, for how an org's object grows; 0: none. */
  large_org_leases: number;
  /** Of every org's leases, the share due when the backstop runs. */
  due_share: number;
  /** Requests timed per list, per org. */
  list_runs: number;
  /** The sim's market (LESSOR_SIM_OFFERS): the quote's figures are over it. */
  sim_offers: number;
  /** Live leases of one org whose index's memory is measured (`indexMemory`). */
  memory_leases: number[];
  /** How long the real lease is left after its create and after its end before the meter is read (the sim boots at once). */
  settle_ms: number;
}

export const SCALE_FULL: ScaleOptions = { orgs: 100, leases_per_org: 1_000, small_org_leases: 100, large_org_leases: 20_000, due_share: 0.01, list_runs: 200, sim_offers: 10_000, memory_leases: [1_000, 100_000, 1_000_000], settle_ms: 3_000 };

/** The same steps at 2 orgs of 50 leases: the test's (test/e2e/scale-bench.test.ts). */
export const SCALE_SMALL: ScaleOptions = { orgs: 2, leases_per_org: 50, small_org_leases: 10, large_org_leases: 0, due_share: 0.1, list_runs: 5, sim_offers: 400, memory_leases: [5_000], settle_ms: 2_000 };

/** What the bench holds itself to (docs/scale.md). */
export const SCALE_TARGETS = {
  /** The whole bench, build to teardown. */
  total_ms: 10 * 60_000,
  /** The list's median in a 1,000-lease org of the 100,000 over its median in the small org. */
  list_ratio: 2,
} as const;

/** What a request or a run cost, by the Worker's meter (src/metering.ts), its own read taken off. */
export type Cost = Omit<MeterCounts, "provider_calls" | "do_wall_ms"> & { provider_calls: number };

export interface Timed {
  median_ms: number;
  p99_ms: number;
  runs: number;
}

/** The first page of the list, the figure the list's target is set on. */
export const LIST_FIRST = "GET /v1/leases (first page, 50)";

export interface ScaleResult {
  date: string;
  options: ScaleOptions;
  leases: number;
  seeding: {
    /** One org fed one write-through at a time: what one org's object takes. */
    one_org: { leases: number; ms: number; syncs_per_s: number };
    all: { leases: number; ms: number; syncs_per_s: number; events_per_sync: number; per_sync: Cost };
    d1: { rows: number; ms: number };
    /** The files of D1 and of every org's object once seeded, and the length of one listed body. */
    storage: { d1_mb: number; d1_files_mb: number; d1_leases: number; d1_bodies_mb: number; org_objects_mb: number; body_bytes: number };
  };
  /** `GET /v1/healthz` (no storage): what a request costs here before lessor does anything. */
  floor: Timed;
  /** Per request, in a 1,000-lease org of the installation (medians of four after a first). */
  requests: Record<string, Cost>;
  list: Record<string, { big: Timed; small: Timed; ratio: number; rows: number; small_rows: number }>;
  quote: Timed;
  /** A real lease in a 1,000-lease org: its create to ready, heartbeat, extend and end to released. */
  lease: { create_to_ready: Cost; heartbeat: Cost; extend: Cost; end_to_released: Cost };
  /** D1 reads that span every lease of the installation. */
  d1: {
    reconciler_live: { rows: number; ms: number; cost: Cost };
    machines_lookup: { ids: number; ms: number; cost: Cost };
    ingress_lookup: { ms: number; cost: Cost };
  };
  backstop: {
    /** Every org's object running, `due_share` of the leases due. */
    due: { orgs: number; due: number; failed: number; ms: number; cost: Cost };
    /** Every org's object running, nothing due: the run of most minutes. */
    idle: { orgs: number; due: number; failed: number; ms: number; cost: Cost };
    /** Nothing due, every org's object stopped: each starts. */
    cold: { orgs: number; due: number; failed: number; ms: number; cost: Cost };
    one_org_sweep: { due: number; ms: number; cost: Cost };
    /** An org's own alarm, fired by workerd, poking the leases that came due. */
    alarm: { due: number; cost: Cost };
  };
  /** After workerd was started again: each org's object starting on its first list. */
  cold: {
    first_list: { org_leases: number; ms: number; cost: Cost };
    orgs_started: number;
    start_ms: Timed;
    rss_before_mb: number;
    rss_after_mb: number;
    per_org_mb: number;
  };
  /** One more org, alone this large. */
  large_org: { leases: number; seeding: { leases: number; ms: number; syncs_per_s: number }; start: { ms: number; cost: Cost; rss_mb: number }; list: Timed } | null;
  /** An org's index in memory (`indexMemory`). */
  memory: Array<{ leases: number; heap_mb: number; bytes_per_lease: number }>;
  phases_ms: Record<string, number>;
  total_ms: number;
  targets: { total_met: boolean; list_met: boolean };
}

// ---- the runtime ------------------------------------------------------------------------------

/** The bench's Worker, bundled as wrangler would (its `[alias]` entries aside). */
export async function buildBenchWorker(dir: string): Promise<string> {
  const out = path.join(dir, "worker.mjs");
  await build({
    entryPoints: [path.join(repoRoot, "test/bench/scale-worker.ts")],
    outfile: out,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["browser", "module", "main"],
    external: ["cloudflare:*"],
    minify: true,
    logLevel: "error",
  });
  return out;
}

/** workerd with wrangler.toml's bindings (as wrangler reads them), the bench's Worker, and its storage's files in `stateDir`. */
async function startRuntime(scriptPath: string, stateDir: string, vars: Record<string, string>): Promise<Miniflare> {
  const config = unstable_readConfig({ config: path.join(repoRoot, "wrangler.toml") });
  // The assets are the console's, which the API does not serve.
  const { workerOptions } = unstable_getMiniflareWorkerOptions({ ...config, assets: undefined });
  const options = workerOptions as { bindings?: Record<string, string> };
  const mf = new Miniflare({
    ...(workerOptions as object),
    name: "lessor",
    modules: true,
    scriptPath,
    modulesRoot: path.dirname(scriptPath),
    bindings: { ...options.bindings, ...vars },
    defaultPersistRoot: stateDir,
    // The Worker's own log lines (the cron's summary) are left out of the bench's table; what it
    // says to stderr (a failed step, an error) is passed on.
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      stdout.resume();
      stderr.pipe(process.stderr);
    },
  } as ConstructorParameters<typeof Miniflare>[0]);
  await mf.ready;
  return mf;
}

/** The bytes of every file under `dir`. */
function dirBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  let bytes = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    bytes += e.isDirectory() ? dirBytes(p) : statSync(p).size;
  }
  return bytes;
}

/** The resident memory of this process's workerd, in MB (Linux /proc). */
function workerdRssMb(): number {
  let kb = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (comm !== "workerd" || ppid !== process.pid) continue;
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${entry}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // gone between the listing and the read
    }
  }
  return kb / 1024;
}

/**
 * Where the storage goes: memory-backed (/dev/shm) where the machine has it. On this machine's
 * disk each object's write waits for its fsync, which neither production's storage nor what the
 * bench measures has anything to do with; 100,000 leases took more than 6 minutes to write there.
 */
function memoryDir(): string {
  return existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

class Bench {
  constructor(
    readonly mf: Miniflare,
    readonly token: string,
  ) {}

  async call(method: string, p: string, key: string, body?: unknown): Promise<{ status: number; json: any }> {
    const res = await this.mf.dispatchFetch(`http://lessor.bench${p}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null };
  }

  async api(method: string, p: string, key: string, body?: unknown): Promise<any> {
    const r = await this.call(method, p, key, body);
    if (r.status >= 300) throw new Error(`scale: ${method} ${p}: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json;
  }

  /** A `/__bench/*` route (test/bench/scale-worker.ts): its answer and its wall time in the isolate. */
  async ask<T = any>(a: BenchAsk): Promise<{ answer: T; ms: number }> {
    return this.api("POST", `/__bench/${a.what}`, this.token, a);
  }

  async meter(): Promise<Cost> {
    const m = (await this.api("GET", "/v1/meter", this.token)) as MeterCounts;
    const { do_wall_ms: _, provider_calls, ...rest } = m;
    return { ...rest, provider_calls: Object.values(provider_calls).reduce((a, b) => a + b, 0) };
  }

  /** What one read of the meter costs itself, taken off every difference. */
  overhead: Cost | null = null;

  async calibrate(): Promise<void> {
    const a = await this.meter();
    const b = await this.meter();
    this.overhead = minus(b, a);
  }

  /** The meter's difference across `run`, less its own read. */
  async cost<T>(run: () => Promise<T>): Promise<{ value: T; cost: Cost }> {
    const before = await this.meter();
    const value = await run();
    const after = await this.meter();
    return { value, cost: minus(minus(after, before), this.overhead!) };
  }
}

const COUNTERS = ["worker_requests", "do_requests", "do_alarms", "d1_queries", "d1_rows_read", "d1_rows_written", "do_rows_read", "do_rows_written", "provider_calls"] as const;

function minus(a: Cost, b: Cost): Cost {
  return Object.fromEntries(COUNTERS.map((k) => [k, a[k] - b[k]])) as Cost;
}

function per(c: Cost, n: number): Cost {
  return Object.fromEntries(COUNTERS.map((k) => [k, c[k] / n])) as Cost;
}

/** The median of each counter over several costs of the same request. */
function medianCost(cs: Cost[]): Cost {
  return Object.fromEntries(COUNTERS.map((k) => [k, median(cs.map((c) => c[k]))])) as Cost;
}

function timed(ms: number[]): Timed {
  return { median_ms: median(ms), p99_ms: percentile(ms, 99), runs: ms.length };
}

async function pool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

// ---- the leases -------------------------------------------------------------------------------

interface Template {
  body: Record<string, unknown>;
  events: SeedLease["events"];
}

interface Plan {
  /** When the due share's deadlines fall: an hour after the bench began, so no alarm fires on them while it runs. */
  due_at: number;
}

/**
 * An org's `n` leases as their objects would have written them: made over the last `n` minutes,
 * 90% ready, 5% stopped, 5% booting, a tenth jobs, a tenth named; `due_share` of them due at
 * `plan.due_at` (spread over its next second), the rest an hour after that.
 */
function orgLeases(n: number, t: Template, plan: Plan, dueShare: number, now: number): SeedLease[] {
  const dueEvery = dueShare > 0 ? Math.round(1 / dueShare) : 0;
  return Array.from({ length: n }, (_, j) => {
    const created = now - (n - j) * 60_000;
    const id = newId("ls", created);
    const state = j % 20 === 0 ? "stopped" : j % 20 === 1 ? "booting" : "ready";
    const kind = j % 10 === 3 ? "job" : "scratch";
    const name = j % 10 === 7 ? `run-${j}` : null;
    const deadline = dueEvery > 0 && j % dueEvery === Math.floor(dueEvery / 2) ? plan.due_at + (j % 1000) : plan.due_at + 3_600_000 + j;
    const machine = (t.body.machine as Record<string, unknown> | null) ?? {};
    const body = { ...t.body, id, name, kind, state, created_at: new Date(created).toISOString(), machine: { ...machine, id: `m-${id}`, label: machineLabel("dev", id, 1) } };
    const at = new Date(created).toISOString();
    return {
      row: { id, state, kind, name, version: 6, next_deadline: deadline, created_at: created, body: JSON.stringify(body) },
      events: t.events.map((e) => ({ ...e, at })),
      machine_id: `m-${id}`,
    };
  });
}

async function waitFor<T>(what: string, get: () => Promise<T | null | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (v) return v;
    if (Date.now() > until) throw new Error(`scale: timed out waiting for ${what}`);
    await sleep(100);
  }
}

// ---- the bench --------------------------------------------------------------------------------

export async function benchScale(log: (msg: string) => void, opts: ScaleOptions = SCALE_FULL): Promise<ScaleResult> {
  const began = performance.now();
  const phases: Record<string, number> = {};
  let mark = began;
  const phase = (name: string) => {
    const t = performance.now();
    phases[name] = Math.round(t - mark);
    mark = t;
  };
  const dir = mkdtempSync(path.join(memoryDir(), "lessor-scale-"));
  const stateDir = path.join(dir, "state");
  const token = randomBytes(24).toString("hex");
  const vars = {
    LESSOR_BOOTSTRAP_TOKEN: token,
    LESSOR_MASTER_KEY: randomBytes(32).toString("base64"),
    LESSOR_PROVIDERS: "sim",
    LESSOR_SIM_OFFERS: String(opts.sim_offers),
    // The bench measures what each request costs, not the caps (as the other benches).
    LESSOR_RATE_LIMIT_PER_MINUTE: "100000000",
    LESSOR_ORG_RATE_LIMIT_PER_MINUTE: "100000000",
    LESSOR_QUOTES_PER_DAY: "100000000",
    LESSOR_LEASES_PER_DAY: "100000000",
  };
  let mf: Miniflare | null = null;
  /** workerd started again on the same storage: every object starts afresh on its first call. */
  const restart = async (script: string) => {
    await mf?.dispose();
    mf = await startRuntime(script, stateDir, vars);
    const b = new Bench(mf, token);
    await b.calibrate();
    return b;
  };
  try {
    log("scale: building the Worker and starting workerd");
    const script = await buildBenchWorker(dir);
    let b = await restart(script);
    const d1 = await mf!.getD1Database("DB");
    for (const m of await readD1Migrations(path.join(repoRoot, "migrations"))) for (const q of m.queries) await d1.prepare(q).run();
    phase("start");

    // The orgs, the catalog, and a real lease to copy.
    const newOrg = async (name: string) => {
      const o = await b.api("POST", "/v1/orgs", token, { name });
      return { id: o.org.id as string, key: o.key.secret as string };
    };
    const small = await newOrg("scale-small");
    const orgs: Array<{ id: string; key: string }> = [];
    await pool(Array.from({ length: opts.orgs }, (_, i) => i), 8, async (i) => {
      orgs[i] = await newOrg(`scale-${String(i).padStart(3, "0")}`);
    });
    const large = opts.large_org_leases > 0 ? await newOrg("scale-large") : null;
    await (await mf!.getWorker()).scheduled({ cron: "* * * * *" }); // the offers
    await b.api("PUT", "/v1/sim/faults", token, { provision_delay_ms: 0, boot_delay_ms: 0, api_error_rate: 0, rate_limit_rate: 0, ambiguous_create_rate: 0, boot_failure_rate: 0, vanish_rate: 0 });
    const leaseBody = { kind: "scratch", spec: { gpu: "l40s:1" }, policy: { ttl: "2h", idle_timeout: "30m" } };
    const first = await b.api("POST", "/v1/leases", small.key, leaseBody);
    await waitFor("the first lease ready", async () => (await b.api("GET", `/v1/leases/${first.id}`, small.key)).state === "ready");
    const listed = await waitFor("the first lease listed ready", async () => {
      const page = await b.api("GET", "/v1/leases?limit=1", small.key);
      return page.data[0]?.state === "ready" ? page.data[0] : null;
    });
    const events = (await b.api("GET", `/v1/leases/${first.id}/events`, small.key)).data as SeedLease["events"];
    const template: Template = { body: listed, events: events.slice(0, 4) };
    // Released, so that nothing of its own is due when the backstop runs.
    await b.api("POST", `/v1/leases/${first.id}/end`, small.key, {});
    await waitFor("the first lease released", async () => (await b.api("GET", `/v1/leases/${first.id}`, small.key)).state === "released");
    phase("orgs_and_template");

    // The leases, through the write-through.
    const plan: Plan = { due_at: Date.now() + 3_600_000 };
    const now = Date.now();
    const seeded = orgs.map(() => orgLeases(opts.leases_per_org, template, plan, opts.due_share, now));
    const seedOrg = async (org: { id: string }, leases: SeedLease[], concurrency: number) => {
      // In parts, so that no one request carries megabytes.
      for (let i = 0; i < leases.length; i += 500) await b.ask({ what: "seed", org_id: org.id, leases: leases.slice(i, i + 500), concurrency });
    };
    log(`scale: seeding ${opts.orgs} orgs x ${opts.leases_per_org} leases through the write-through`);
    let t = performance.now();
    await seedOrg(orgs[0]!, seeded[0]!, 1);
    const oneOrg = rate(opts.leases_per_org, performance.now() - t);
    t = performance.now();
    const seedRest = await b.cost(() => pool(orgs.slice(1).map((o, i) => [o, seeded[i + 1]!] as const), 4, ([o, ls]) => seedOrg(o, ls, 4)));
    const all = rate(opts.orgs * opts.leases_per_org, performance.now() - t + oneOrg.ms);
    await seedOrg(small, orgLeases(opts.small_org_leases, template, plan, 0, now), 4);
    phase("seed_objects");
    log("scale: the D1 rows, a batch per org");
    t = performance.now();
    await pool(orgs.map((o, i) => [o, seeded[i]!] as const), 4, async ([o, ls]) => void (await b.ask({ what: "seed_d1", org_id: o.id, leases: ls })));
    const d1Seed = { rows: opts.orgs * opts.leases_per_org, ms: performance.now() - t };
    for (const [i, o] of orgs.entries()) {
      const counts = (await b.ask<{ live: number }>({ what: "counts", org_id: o.id })).answer;
      if (counts.live !== opts.leases_per_org) throw new Error(`scale: org ${i} holds ${counts.live} live leases, not ${opts.leases_per_org}`);
    }
    // What the storage holds: D1 by its own count of its pages, and the files (write-ahead logs included).
    const d1Size = (await b.ask<{ bytes: number; leases: number; body_bytes: number }>({ what: "d1_size" })).answer;
    const storage = {
      d1_mb: d1Size.bytes / 2 ** 20,
      d1_files_mb: dirBytes(path.join(stateDir, "d1")) / 2 ** 20,
      d1_leases: d1Size.leases,
      d1_bodies_mb: d1Size.body_bytes / 2 ** 20,
      org_objects_mb: dirBytes(path.join(stateDir, "do", "lessor-OrgEventsObject")) / 2 ** 20,
      body_bytes: JSON.stringify(template.body).length,
    };
    phase("seed_d1");

    // Per request, in the 1,000-lease org orgs[0], beside the small org.
    log("scale: per-request costs and the list's latency");
    const big = orgs[0]!;
    const timeGets = async (p: string, key: string): Promise<{ t: Timed; rows: number }> => {
      const ms: number[] = [];
      let rows = 0;
      for (let i = 0; i < opts.list_runs; i++) {
        const t0 = performance.now();
        const page = await b.api("GET", p, key);
        ms.push(performance.now() - t0);
        rows = page?.data?.length ?? 0;
      }
      return { t: timed(ms), rows };
    };
    const floor = (await timeGets("/v1/healthz", big.key)).t;
    const bigIds = seeded[0]!.map((l) => l.row.id).sort().reverse();
    const smallIds = ((await b.api("GET", "/v1/leases?limit=200", small.key)).data as Array<{ id: string }>).map((l) => l.id);
    const past = (ids: string[], at: number) => {
      const id = ids[Math.min(ids.length - 1, at)]!;
      return encodeCursor({ k: id, id });
    };
    const lists: Record<string, [string, string]> = {
      [LIST_FIRST]: ["/v1/leases", "/v1/leases"],
      "GET /v1/leases?state=stopped": ["/v1/leases?state=stopped", "/v1/leases?state=stopped"],
      "GET /v1/leases, the page after the 800th": [`/v1/leases?cursor=${past(bigIds, 799)}`, `/v1/leases?cursor=${past(smallIds, Math.floor(smallIds.length * 0.5))}`],
    };
    const requests: Record<string, Cost> = {};
    const list: ScaleResult["list"] = {};
    for (const [name, [bigPath, smallPath]] of Object.entries(lists)) {
      const costs: Cost[] = [];
      // The first may start what the others find started.
      for (let i = 0; i < 5; i++) costs.push((await b.cost(() => b.api("GET", bigPath, big.key))).cost);
      requests[name] = medianCost(costs.slice(1));
      const bigT = await timeGets(bigPath, big.key);
      const smallT = await timeGets(smallPath, small.key);
      list[name] = { big: bigT.t, small: smallT.t, ratio: bigT.t.median_ms / smallT.t.median_ms, rows: bigT.rows, small_rows: smallT.rows };
    }
    const quoteCosts: Cost[] = [];
    const quoteMs: number[] = [];
    for (let i = 0; i < 31; i++) {
      const t0 = performance.now();
      const { cost } = await b.cost(() => b.api("POST", "/v1/quotes", big.key, { spec: { gpu: "l40s:1" } }));
      if (i > 0) (quoteCosts.push(cost), quoteMs.push(performance.now() - t0));
    }
    requests["POST /v1/quotes {gpu: l40s:1}"] = medianCost(quoteCosts);
    const quote = timed(quoteMs);
    // A lease's write-through at that size, as `sync` takes it: a transition (its row and one
    // event), and its row alone; the median of five leases' each, whatever else the runtime does
    // meanwhile (org alarms poking due leases) counted in one at most.
    {
      const transitions: Cost[] = [];
      const rowsOnly: Cost[] = [];
      for (let i = 0; i < 5; i++) {
        const l = seeded[0]![Math.floor(opts.leases_per_org / 2) + i]!;
        transitions.push((await b.cost(() => b.ask({ what: "sync", org_id: big.id, lease: { ...l, row: { ...l.row, version: 7 }, events: [{ ...template.events.at(-1)!, seq: 5 }] }, deadline: true }))).cost);
        rowsOnly.push((await b.cost(() => b.ask({ what: "sync", org_id: big.id, lease: { ...l, row: { ...l.row, version: 8 }, events: [] }, deadline: false }))).cost);
      }
      requests["sync: a transition (row and one event)"] = medianCost(transitions);
      requests["sync: the row alone (a listed change)"] = medianCost(rowsOnly);
    }
    phase("requests");

    // A real lease in the 1,000-lease org.
    log("scale: a real lease in a 1,000-lease org");
    const createToReady = await b.cost(async () => {
      const l = await b.api("POST", "/v1/leases", big.key, leaseBody);
      await sleep(opts.settle_ms);
      return l;
    });
    const real = createToReady.value;
    if ((await b.api("GET", `/v1/leases/${real.id}`, big.key)).state !== "ready") throw new Error(`scale: the real lease was not ready ${opts.settle_ms} ms after its create`);
    const heartbeat = await b.cost(() => b.api("POST", `/v1/leases/${real.id}/heartbeat`, big.key, {}));
    const extend = await b.cost(() => b.api("POST", `/v1/leases/${real.id}/extend`, big.key, { by: "30m" }));
    const endToReleased = await b.cost(async () => {
      await b.api("POST", `/v1/leases/${real.id}/end`, big.key, {});
      await sleep(opts.settle_ms);
    });
    if ((await b.api("GET", `/v1/leases/${real.id}`, big.key)).state !== "released") throw new Error(`scale: the real lease was not released ${opts.settle_ms} ms after its end`);
    requests["POST /v1/leases/:id/heartbeat"] = heartbeat.cost;
    requests["POST /v1/leases/:id/extend"] = extend.cost;
    phase("real_lease");

    // D1 reads over every lease.
    const reconciler = await b.cost(() => b.ask<{ rows: number }>({ what: "reconciler_live", provider: "sim" }));
    const lookupIds = seeded.map((s) => s[0]!.row.id).slice(0, 90);
    const machines = await b.cost(() => b.ask({ what: "machines_lookup", lease_ids: lookupIds }));
    const ingress = await b.cost(() => b.ask({ what: "ingress_lookup", provider: "sim", machine_id: seeded.at(-1)![7]!.machine_id }));
    phase("d1");

    // The backstop: every org asked, `due_share` of the leases due. A run with nothing due first,
    // so that every org's object has started (workerd lets an idle one go after a few seconds).
    log("scale: the cron's backstop over every org, and one org's alarm");
    await b.ask({ what: "backstop", now: plan.due_at - 60_000 });
    const sweepAt = plan.due_at + 1_000;
    const backstopDue = await b.cost(() => b.ask<BackstopAnswer>({ what: "backstop", now: sweepAt }));
    const backstopIdle = await b.cost(() => b.ask<BackstopAnswer>({ what: "backstop", now: sweepAt + 1_000 }));
    // The leases it poked come due again a minute on (src/orgs/lease-index.ts POKE_AGAIN_MS): one org's sweep, as its alarm runs it.
    const oneSweep = await b.cost(() => b.ask<{ due: number; failed: number }>({ what: "sweep", org_id: orgs[1 % opts.orgs]!.id, now: sweepAt + 61_000 }));
    // An org's own alarm: ten of its leases' deadlines moved so that the alarm, which waits 30 s past
    // a deadline (ORG_POKE_GRACE_MS, src/orgs/lease-index.ts), fires two seconds from now, and
    // waited for by the clock, so that the meter's difference is the alarm's alone.
    const alarmOrg = orgs[2 % opts.orgs]!;
    const alarmLeases = seeded[2 % opts.orgs]!.slice(Math.floor(opts.leases_per_org / 10)).slice(0, 10);
    const soon = Date.now() + 2_000 - ORG_POKE_GRACE_MS;
    for (const l of alarmLeases) await b.ask({ what: "sync", org_id: alarmOrg.id, lease: { ...l, row: { ...l.row, version: 9, next_deadline: soon }, events: [] }, deadline: true });
    const alarm = await b.cost(() => sleep(soon + ORG_POKE_GRACE_MS + 3_000 - Date.now()));
    const after = (await b.ask<{ next_due: number }>({ what: "counts", org_id: alarmOrg.id })).answer;
    if (!(after.next_due >= soon + ORG_POKE_GRACE_MS + POKE_AGAIN_MS)) throw new Error(`scale: the org's alarm did not poke its due leases (next due ${after.next_due}, they were due at ${soon})`);
    phase("backstop");

    // Cold: workerd started again on the same storage; each org's object starts on its first list.
    log("scale: workerd started again; every org's object started by its first list");
    b = await restart(script);
    await b.api("GET", "/v1/healthz", big.key); // the Worker's own start
    const rssBefore = workerdRssMb();
    const firstT0 = performance.now();
    const firstList = await b.cost(() => b.api("GET", "/v1/leases", big.key));
    const firstMs = performance.now() - firstT0;
    const starts: number[] = [];
    for (const o of orgs.slice(1)) {
      const t0 = performance.now();
      await b.api("GET", "/v1/leases", o.key);
      starts.push(performance.now() - t0);
    }
    await sleep(500);
    const rssAfter = workerdRssMb();
    // And once more, every object stopped: the cron's backstop, nothing due, starting them all.
    b = await restart(script);
    // Before the leases the alarm poked come due again (a minute after it ran), after everything else's deadline passed.
    const backstopCold = await b.cost(() => b.ask<BackstopAnswer>({ what: "backstop", now: soon + 30_000 }));
    phase("cold");

    let largeOrg: ScaleResult["large_org"] = null;
    if (large) {
      log(`scale: one org of ${opts.large_org_leases} leases`);
      t = performance.now();
      await seedOrg(large, orgLeases(opts.large_org_leases, template, plan, opts.due_share, Date.now()), 4);
      const seeding = rate(opts.large_org_leases, performance.now() - t);
      b = await restart(script);
      await b.api("GET", "/v1/healthz", large.key);
      const before = workerdRssMb();
      const t0 = performance.now();
      const start = await b.cost(() => b.api("GET", "/v1/leases", large.key));
      const ms = performance.now() - t0;
      await sleep(500);
      const rss = workerdRssMb() - before;
      largeOrg = { leases: opts.large_org_leases, seeding, start: { ms, cost: start.cost, rss_mb: rss }, list: (await timeGets("/v1/leases", large.key)).t };
      phase("large_org");
    }

    // What an org's index holds in memory, by the V8 of this process.
    log("scale: an org's index in memory");
    const memory = opts.memory_leases.map((leases) => indexMemory(leases, JSON.stringify(template.body)));
    phase("memory");

    const total = performance.now() - began;
    return {
      date: new Date().toISOString(),
      options: opts,
      leases: opts.orgs * opts.leases_per_org,
      seeding: {
        one_org: oneOrg,
        all: { ...all, events_per_sync: template.events.length, per_sync: per(seedRest.cost, (opts.orgs - 1) * opts.leases_per_org) },
        d1: d1Seed,
        storage,
      },
      floor,
      requests,
      list,
      quote,
      lease: { create_to_ready: createToReady.cost, heartbeat: heartbeat.cost, extend: extend.cost, end_to_released: endToReleased.cost },
      d1: {
        reconciler_live: { rows: reconciler.value.answer.rows, ms: reconciler.value.ms, cost: reconciler.cost },
        machines_lookup: { ids: lookupIds.length, ms: machines.value.ms, cost: machines.cost },
        ingress_lookup: { ms: ingress.value.ms, cost: ingress.cost },
      },
      backstop: {
        due: { ...backstopDue.value.answer, ms: backstopDue.value.ms, cost: backstopDue.cost },
        idle: { ...backstopIdle.value.answer, ms: backstopIdle.value.ms, cost: backstopIdle.cost },
        cold: { ...backstopCold.value.answer, ms: backstopCold.value.ms, cost: backstopCold.cost },
        one_org_sweep: { due: oneSweep.value.answer.due, ms: oneSweep.value.ms, cost: oneSweep.cost },
        alarm: { due: alarmLeases.length, cost: alarm.cost },
      },
      cold: {
        first_list: { org_leases: opts.leases_per_org, ms: firstMs, cost: firstList.cost },
        orgs_started: starts.length + 1,
        start_ms: timed(starts.length > 0 ? starts : [firstMs]),
        rss_before_mb: rssBefore,
        rss_after_mb: rssAfter,
        per_org_mb: (rssAfter - rssBefore) / (starts.length + 1),
      },
      large_org: largeOrg,
      memory,
      phases_ms: phases,
      total_ms: total,
      targets: { total_met: total < SCALE_TARGETS.total_ms, list_met: list[LIST_FIRST]!.ratio <= SCALE_TARGETS.list_ratio },
    };
  } finally {
    await (mf as Miniflare | null)?.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

type BackstopAnswer = { orgs: number; due: number; failed: number };

function rate(leases: number, ms: number) {
  return { leases, ms, syncs_per_s: (leases / ms) * 1000 };
}

// ---- an org's index in memory -----------------------------------------------------------------

/**
 * What an org's lease index (src/orgs/lease-index.ts) keeps in memory for `leases` live leases:
 * the index itself over a stand-in for its SQLite table that answers the two reads it makes when
 * its object starts, every string made afresh as SQLite's would be; V8's heap before and after,
 * each after a full collection. Node's V8, not workerd's: the same engine, another version.
 */
export function indexMemory(leases: number, body: string): { leases: number; heap_mb: number; bytes_per_lease: number } {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  const start = Date.now() - leases * 60_000;
  const id = (j: number) => newId("ls", start + j * 60_000);
  const fresh = (s: string) => Buffer.from(s).toString();
  const table = {
    exec(query: string, ...args: unknown[]) {
      let rows: Array<Record<string, unknown>> = [];
      if (query.includes("WHERE state != 'released' OR next_deadline IS NOT NULL")) {
        rows = Array.from({ length: leases }, (_, j) => ({ id: id(j), state: j % 20 === 0 ? "stopped" : "ready", kind: "scratch", name: j % 10 === 7 ? `run-${j}` : null, next_deadline: start + j }));
      } else if (query.includes("ORDER BY id DESC LIMIT")) {
        const limit = Number(args[0]);
        rows = Array.from({ length: Math.min(limit, leases) }, (_, k) => {
          const j = leases - 1 - k;
          return { id: id(j), state: "ready", kind: "scratch", name: null, body: fresh(body) };
        });
      }
      return Object.assign(rows[Symbol.iterator](), { toArray: () => rows });
    },
  };
  // Miniflare runs in this process, so a collection can free what its last requests left behind;
  // the first collections settle that (a full one, then one for what finalizers released), and
  // the median of three measures stands against what remains.
  const once = () => {
    gc();
    gc();
    const before = process.memoryUsage().heapUsed;
    const index = new OrgLeaseIndex(table as unknown as SqlStorage);
    if (index.nextDue() === null) throw new Error("scale: the index in memory holds no deadline");
    gc();
    const heap = process.memoryUsage().heapUsed - before;
    index.nextDue(); // kept alive until measured
    return heap;
  };
  const heap = [once(), once(), once()].sort((a, b) => a - b)[1]!;
  return { leases, heap_mb: heap / 2 ** 20, bytes_per_lease: heap / leases };
}

// ---- the table --------------------------------------------------------------------------------

const n = (x: number, d = 0) => x.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });

/** A cost in one cell: D1 statements, rows read and written; object calls (and alarms), rows read and written. */
export function costCell(c: Cost): string {
  const d = (x: number) => n(x, Number.isInteger(x) ? 0 : 1);
  return `D1 ${d(c.d1_queries)} q, ${d(c.d1_rows_read)} r, ${d(c.d1_rows_written)} w; obj ${d(c.do_requests)}${c.do_alarms ? `+${d(c.do_alarms)} alarm` : ""} calls, ${d(c.do_rows_read)} r, ${d(c.do_rows_written)} w`;
}

/** The bench's rows of `npm run bench`'s table: benchmark, measure, figure, target, met. */
export function scaleRows(r: ScaleResult): string[][] {
  const big = n(r.options.leases_per_org);
  const rows: string[][] = [
    [`scale: ${n(r.leases)} leases in ${r.options.orgs} orgs, seeded`, "write-throughs/s: one org alone; all, 4 orgs at a time", `${n(r.seeding.one_org.syncs_per_s)}; ${n(r.seeding.all.syncs_per_s)} (${n(r.seeding.all.ms / 1000, 1)} s)`, "-", "-"],
    [
      "scale: storage once seeded",
      "D1 MB (its pages; of it `leases.body`), its files; the org objects' files MB; a listed body, bytes",
      `${n(r.seeding.storage.d1_mb, 1)} (${n(r.seeding.storage.d1_bodies_mb, 1)}), ${n(r.seeding.storage.d1_files_mb, 1)}; ${n(r.seeding.storage.org_objects_mb, 1)}; ${n(r.seeding.storage.body_bytes)}`,
      "-",
      "-",
    ],
    ["scale: one write-through while seeding", `cost each (${r.seeding.all.events_per_sync} events)`, costCell(r.seeding.all.per_sync), "-", "-"],
    ...Object.entries(r.requests).map(([name, c]) => [`scale: ${name}`, `cost, ${big}-lease org`, costCell(c), "-", "-"]),
    ["scale: GET /v1/healthz (the floor)", "median / p99 ms", `${n(r.floor.median_ms, 1)} / ${n(r.floor.p99_ms, 1)}`, "-", "-"],
    ...Object.entries(r.list).map(([name, l]) => [
      `scale: ${name}`,
      `median / p99 ms, ${big}-lease org vs ${n(r.options.small_org_leases)}`,
      `${n(l.big.median_ms, 1)} / ${n(l.big.p99_ms, 1)} vs ${n(l.small.median_ms, 1)} / ${n(l.small.p99_ms, 1)} (x${n(l.ratio, 2)}; ${l.rows} and ${l.small_rows} rows)`,
      name === LIST_FIRST ? `x <= ${SCALE_TARGETS.list_ratio}` : "-",
      name === LIST_FIRST ? String(r.targets.list_met) : "-",
    ]),
    ["scale: POST /v1/quotes", `median / p99 ms, ${big}-lease org`, `${n(r.quote.median_ms, 1)} / ${n(r.quote.p99_ms, 1)}`, "-", "-"],
    ["scale: a real lease, create to ready", `cost, ${big}-lease org`, costCell(r.lease.create_to_ready), "-", "-"],
    ["scale: a real lease, end to released", `cost, ${big}-lease org`, costCell(r.lease.end_to_released), "-", "-"],
    ["scale: reconciler's live leases on a provider (D1)", "rows, ms", `${n(r.d1.reconciler_live.rows)} read, ${n(r.d1.reconciler_live.ms)} ms`, "-", "-"],
    [`scale: reconciler's leases of ${r.d1.machines_lookup.ids} machines (D1)`, "cost, ms", `${costCell(r.d1.machines_lookup.cost)}, ${n(r.d1.machines_lookup.ms)} ms`, "-", "-"],
    ["scale: ingress's lease of a machine (D1)", "cost, ms", `${costCell(r.d1.ingress_lookup.cost)}, ${n(r.d1.ingress_lookup.ms)} ms`, "-", "-"],
    [`scale: cron backstop, ${r.backstop.due.orgs} orgs`, `${n(r.backstop.due.due)} due; cost, ms`, `${costCell(r.backstop.due.cost)}, ${n(r.backstop.due.ms)} ms`, "-", "-"],
    ["scale: cron backstop, nothing due", "cost, ms", `${costCell(r.backstop.idle.cost)}, ${n(r.backstop.idle.ms)} ms`, "-", "-"],
    ["scale: cron backstop, every object stopped", "cost, ms", `${costCell(r.backstop.cold.cost)}, ${n(r.backstop.cold.ms)} ms`, "-", "-"],
    ["scale: one org's sweep", `${r.backstop.one_org_sweep.due} due; cost, ms`, `${costCell(r.backstop.one_org_sweep.cost)}, ${n(r.backstop.one_org_sweep.ms)} ms`, "-", "-"],
    ["scale: one org's alarm", `${r.backstop.alarm.due} due; cost`, costCell(r.backstop.alarm.cost), "-", "-"],
    [`scale: an org's object starting (${big} leases)`, "first list ms; cost", `${n(r.cold.first_list.ms, 1)}; ${costCell(r.cold.first_list.cost)}`, "-", "-"],
    [`scale: ${r.cold.orgs_started} orgs' objects started`, "first list median / p99 ms; workerd MB per org", `${n(r.cold.start_ms.median_ms, 1)} / ${n(r.cold.start_ms.p99_ms, 1)}; ${n(r.cold.per_org_mb, 2)}`, "-", "-"],
  ];
  const large = r.large_org;
  if (large) {
    rows.push([`scale: one org of ${n(large.leases)} leases`, "write-throughs/s; start ms, workerd MB; list median / p99 ms", `${n(large.seeding.syncs_per_s)}; ${n(large.start.ms, 1)}, ${n(large.start.rss_mb, 1)}; ${n(large.list.median_ms, 1)} / ${n(large.list.p99_ms, 1)}`, "-", "-"]);
    rows.push(["scale: that org's object starting", "cost", costCell(large.start.cost), "-", "-"]);
  }
  for (const m of r.memory) rows.push([`scale: an org's index in memory, ${n(m.leases)} live`, "V8 heap MB, bytes a lease", `${n(m.heap_mb, 1)}, ${n(m.bytes_per_lease)}`, "-", "-"]);
  rows.push(["scale: the whole bench", "s", n(r.total_ms / 1000, 1), `< ${SCALE_TARGETS.total_ms / 60_000} min`, String(r.targets.total_met)]);
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // `--small`: the test's size (test/e2e/scale-bench.test.ts); else run it from `npm run bench -- --only=scale`.
  const result = await benchScale((m) => console.log(m), process.argv.includes("--small") ? SCALE_SMALL : SCALE_FULL);
  console.log(JSON.stringify(result, null, 2));
}
