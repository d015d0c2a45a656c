/**
 * Benchmarks against a real `wrangler dev` on loopback (started through `npm start`'s own script):
 * reap latency with alarms and with only the cron backstop, and API throughput with autocannon.
 */
import { readdirSync, readFileSync } from "node:fs";
import autocannon from "autocannon";
import { bootstrapTokenFromDevVars, type Server } from "../e2e/server";
import { median, percentile } from "./in-process";
import { WRANGLER_RESTARTED } from "./chaos-lib";

export interface Client {
  base: string;
  token: string;
  key: string;
}

export async function request(c: Client, method: string, path: string, body?: unknown, auth: "key" | "bootstrap" = "key") {
  const res = await fetch(`${c.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${auth === "key" ? c.key : c.token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/**
 * `POST /v1/leases` with an Idempotency-Key, resent at most twice when wrangler dev's proxy lost it
 * before lessor read it (WRANGLER_RESTARTED, chaos-lib.ts) or reset the connection under load: the
 * key keeps a resend from renting twice. Answers the lease and how many times it was resent.
 */
export async function createLeaseResending(c: Client, body: unknown, idempotencyKey: string): Promise<{ lease: any; resends: number }> {
  const headers = { authorization: `Bearer ${c.key}`, "content-type": "application/json", "idempotency-key": idempotencyKey };
  for (let sent = 1; ; sent++) {
    let res: Response;
    try {
      res = await fetch(`${c.base}/v1/leases`, { method: "POST", headers, body: JSON.stringify(body) });
    } catch (e) {
      if (sent >= 3) throw e;
      continue;
    }
    const text = await res.text();
    if (res.ok) return { lease: JSON.parse(text), resends: sent - 1 };
    if (!(res.status === 503 && text.startsWith(WRANGLER_RESTARTED)) || sent >= 3) throw new Error(`POST /v1/leases: ${res.status} ${text}`);
  }
}

export async function client(server: Server): Promise<Client> {
  const token = bootstrapTokenFromDevVars();
  const c: Client = { base: server.base, token, key: "" };
  const org = await request(c, "POST", "/v1/orgs", { name: `bench-${Date.now()}` }, "bootstrap");
  c.key = org.key.secret;
  return c;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function pool<T>(items: T[], concurrency: number, work: (item: T, i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const i = next++;
        await work(items[i]!, i);
      }
    }),
  );
}

async function allLeases(c: Client): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await request(c, "GET", `/v1/leases?limit=200${cursor ? `&cursor=${cursor}` : ""}`);
    out.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return out;
}

/**
 * `make()`, tried again after a cron tick while it fails (the catalog may not be seeded yet), at
 * most 11 times.
 */
export async function onceCatalogReady<T>(server: Server, make: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await make();
    } catch (err) {
      if (attempt >= 10) throw err;
      await tick(server);
      await sleep(500);
    }
  }
}

export async function tick(server: Server) {
  const res = await fetch(`${server.base}/__scheduled?cron=${encodeURIComponent("* * * * *")}`);
  await res.text();
}

/** The sim with no delays and no faults: a lease is up as soon as its object gets to it. */
export async function fastSim(c: Client) {
  await request(c, "PUT", "/v1/sim/faults", { provision_delay_ms: 0, boot_delay_ms: 0, api_error_rate: 0, rate_limit_rate: 0, ambiguous_create_rate: 0, boot_failure_rate: 0, vanish_rate: 0 }, "bootstrap");
}

export interface ReapResult {
  leases: number;
  measured: number;
  /** From the first create sent to the last one answered. */
  creates_ms: number;
  /** The workerd process's CPU time over the creates, per create: an upper bound (the sim's work, its webhooks and ingress are in it). */
  cpu_ms_per_create: number;
  /** With `afterCreates`: the leases left out, whose deadline fell before the last create was answered. */
  left_out: number;
  /** Creates resent because wrangler dev's proxy lost them (createLeaseResending). */
  dev_proxy_resends: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

/**
 * Leases with TTLs spread over 3 to 15 s (after `offsetS`), on machines that boot at once; per
 * lease, the time from its deadline to the sim receiving its stop or destroy (the ledger's record
 * of the call). `drive` runs while waiting: nothing for the alarms, the cron cadence otherwise.
 * `afterCreates`: only the leases whose deadline fell after the last create was answered count.
 */
export async function benchReap(
  server: Server,
  c: Client,
  opts: { leases: number; offsetS: number; afterCreates?: boolean; setup?: (ids: string[]) => Promise<void>; drive?: (done: () => boolean) => Promise<void>; timeoutS: number },
): Promise<ReapResult> {
  await fastSim(c);
  const deadlines = new Map<string, number>();
  const createsFrom = Date.now();
  const cpuFrom = workerdCpuMs(server);
  const specs = Array.from({ length: opts.leases }, (_, i) => ({ ttlS: opts.offsetS + 3 + (i % 13) }));
  let resends = 0;
  await pool(specs, 16, async ({ ttlS }, i) => {
    const body = { kind: "scratch", spec: { gpu: "l4:1" }, policy: { ttl: `${ttlS}s`, idle_timeout: null } };
    const created = await createLeaseResending(c, body, `reap-${createsFrom}-${i}`);
    resends += created.resends;
    deadlines.set(created.lease.id, Date.parse(created.lease.ttl_expires_at));
  });
  const createdBy = Date.now();
  const cpuPerCreate = (workerdCpuMs(server) - cpuFrom) / opts.leases;
  await opts.setup?.([...deadlines.keys()]);
  let finished = false;
  const driver = opts.drive?.(() => finished);
  const until = Date.now() + opts.timeoutS * 1000;
  try {
    for (;;) {
      const leases = (await allLeases(c)).filter((l) => deadlines.has(l.id));
      if (leases.every((l) => l.state === "released")) break;
      if (Date.now() > until) throw new Error(`reap bench: ${leases.filter((l) => l.state !== "released").length} leases not released in ${opts.timeoutS} s`);
      await sleep(500);
    }
  } finally {
    finished = true;
    await driver;
  }
  const ledger = await request(c, "GET", "/v1/sim/ledger?label_prefix=lessor-", undefined, "bootstrap");
  const latencies: number[] = [];
  let leftOut = 0;
  for (const m of ledger.machines as any[]) {
    const id = /^lessor-[a-z0-9]+-(ls_[0-9a-z]+)-a\d+$/.exec(m.label)?.[1];
    const deadline = id ? deadlines.get(id) : undefined;
    if (deadline === undefined) continue;
    if (opts.afterCreates && deadline <= createdBy) {
      leftOut++;
      continue;
    }
    // The first call that ended the machine's run: a stop (EXITED) or the destroy.
    const stopped = (m.intervals as any[]).find((i) => i.status === "EXITED")?.from ?? null;
    const ended = stopped ?? m.destroyed_at;
    if (ended !== null && ended !== undefined) latencies.push(ended - deadline);
  }
  return {
    leases: opts.leases,
    measured: latencies.length,
    creates_ms: createdBy - createsFrom,
    cpu_ms_per_create: cpuPerCreate,
    left_out: leftOut,
    dev_proxy_resends: resends,
    p50_ms: median(latencies),
    p99_ms: percentile(latencies, 99),
    max_ms: Math.max(...latencies),
  };
}

export interface RouteResult {
  route: string;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  non2xx: number;
  ratio_to_floor: number;
}

/**
 * Each route's throughput against the floor (`GET /v1/healthz`, no I/O), with autocannon. Every
 * route runs right after a floor run of its own and is compared with that one, so load that
 * comes and goes on the machine (the two cores are shared) moves both sides of each ratio alike;
 * the floor row is the median of those floor runs. `only`: the keys of the routes to run.
 */
export async function benchThroughput(c: Client, durationS = 10, only?: string[]): Promise<RouteResult[]> {
  const lease = await request(c, "POST", "/v1/leases", { kind: "scratch", spec: { gpu: "l4:1" }, policy: { ttl: "1h" } });
  const headers = { authorization: `Bearer ${c.key}`, "content-type": "application/json" };
  const floor = { key: "floor", route: "GET /v1/healthz (floor)", path: "/v1/healthz" };
  const routes: Array<{ key: string; route: string; path: string; method?: "POST"; body?: string }> = [
    { key: "org", route: "GET /v1/org (authentication; the org remembered per isolate)", path: "/v1/org" },
    { key: "lease", route: "GET /v1/leases/:id", path: `/v1/leases/${lease.id}` },
    { key: "leases", route: "GET /v1/leases", path: "/v1/leases" },
    { key: "quote", route: "POST /v1/quotes {gpu: h100:8}", path: "/v1/quotes", method: "POST", body: JSON.stringify({ spec: { gpu: "h100:8" } }) },
    { key: "quote-wide", route: "POST /v1/quotes {min_vram_gb: 80} (every GPU offer)", path: "/v1/quotes", method: "POST", body: JSON.stringify({ spec: { min_vram_gb: 80, min_gpus: 2 } }) },
  ];
  const measure = async (r: (typeof routes)[number]): Promise<RouteResult> => {
    const result = await autocannon({
      url: `${c.base}${r.path}`,
      connections: 32,
      duration: durationS,
      method: r.method ?? "GET",
      headers,
      body: r.body,
    });
    return {
      route: r.route,
      rps: result.requests.average,
      p50_ms: result.latency.p50,
      p99_ms: result.latency.p99,
      non2xx: result.non2xx + result.errors + result.timeouts,
      ratio_to_floor: 1,
    };
  };
  const floors: RouteResult[] = [];
  const out: RouteResult[] = [];
  for (const r of routes.filter((r) => !only || only.includes(r.key))) {
    const base = await measure(floor);
    const result = await measure(r);
    floors.push(base);
    out.push({ ...result, ratio_to_floor: result.rps / base.rps });
  }
  const mid = (pick: (r: RouteResult) => number) => median(floors.map(pick));
  const floorRow: RouteResult = {
    route: floor.route,
    rps: mid((r) => r.rps),
    p50_ms: mid((r) => r.p50_ms),
    p99_ms: mid((r) => r.p99_ms),
    non2xx: floors.reduce((n, r) => n + r.non2xx, 0),
    ratio_to_floor: 1,
  };
  return [floorRow, ...out];
}

/** pid, parent, name and CPU ticks (utime + stime) of every process (Linux /proc). */
function processTable(): Array<{ pid: number; ppid: number; comm: string; ticks: number }> {
  const out = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.push({ pid: Number(entry), ppid: Number(fields[1]), comm: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // gone between the listing and the read
    }
  }
  return out;
}

/**
 * The CPU time of the workerd processes under the server (wrangler starts workerd in a process
 * group of its own, so its descendants are followed, not its group), in ms at 100 ticks a second.
 */
export function workerdCpuMs(server: Server): number {
  const table = processTable();
  const under = new Set([server.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of table) if (under.has(p.ppid) && !under.has(p.pid)) (under.add(p.pid), (grew = true));
  }
  return table.filter((p) => under.has(p.pid) && p.comm === "workerd").reduce((a, p) => a + p.ticks, 0) * 10;
}
