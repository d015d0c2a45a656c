/**
 * The org event figures against a real `wrangler dev` (docs/events.md): 1,000 clients following one
 * org's event stream while its leases come and go, and webhook deliveries to 10 endpoints of one
 * org, each a path of a receiver on this machine that verifies every delivery with the
 * `standardwebhooks` package and its endpoint's own secret. Every latency runs from the event's
 * own `at` (written by the lease's object) to the client or receiver having it, so it holds the
 * forward to the org's log as well as the fan-out (and, for webhooks, the queue).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { SseReader } from "../integration/sse-reader";
import type { Server } from "../e2e/server";
import { client, createLeaseResending, fastSim, pool, request, tick, type Client } from "./http";
import { median, percentile } from "./in-process";

export const FAN_OUT_P99_TARGET_MS = 1_000;
const FAN_OUT_CLIENTS = 1_000;
const FAN_OUT_LEASES = 30;
const WEBHOOK_LEASES = 100;
/** Endpoints of the one org, each taking every event: 10 deliveries an event (the bench lifts the fan-out cap, run.ts BASE_ENV). */
export const WEBHOOK_ENDPOINTS = 10;
/** Deliveries a second to the org's endpoints together (issue 34). */
export const WEBHOOK_RATE_TARGET = 500;
/** How long an event may take to reach everyone, after the last lease's release, before it counts as lost. */
const SETTLE_MS = 60_000;

interface Latencies {
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

export interface FanOutResult extends Latencies {
  clients: number;
  /** Events in the org's log once every lease was released; each client must receive each one. */
  events: number;
  delivered: number;
  lost: number;
  /** Creates resent because wrangler dev's proxy lost them before lessor read them (WRANGLER_RESTARTED, chaos-lib.ts). */
  dev_proxy_resends: number;
  /** From the first follower connecting to the last event arriving, and the CPU this process (the 1,000 clients) used meanwhile. */
  seconds: number;
  client_cpu_s: number;
}

export interface WebhookResult extends Latencies {
  endpoints: number;
  /** Events in the org's log: one delivery each to every endpoint (each takes every type). */
  events: number;
  /** events x endpoints: every (endpoint, webhook-id) must arrive once. */
  expected: number;
  received: number;
  verified: number;
  /** Arrivals of an (endpoint, webhook-id) that had arrived before. */
  duplicates: number;
  lost: number;
  /** From the first event's `at` to the last delivery's arrival. */
  seconds: number;
  per_s: number;
  /** From the last event's `at` (the churn's end) to the last arrival: how far the deliveries trailed the events. */
  trail_s: number;
  /**
   * The deliveries that arrived after the last event's `at`, over `trail_s`: the queue draining
   * what the churn left it, with no lease work beside it on the one workerd thread.
   */
  drain_per_s: number;
  /** The busiest second's arrivals, and the arrivals over the span from the first arrival to the last. */
  peak_per_s: number;
  arrival_span_per_s: number;
  /** From the first event's `at` to the last's: how long the leases took to make them. */
  events_span_s: number;
  /** Events (by their `at`) and arrivals in each second after the first event. */
  events_by_second: number[];
  arrivals_by_second: number[];
}

export interface EventsResult {
  fan_out: FanOutResult;
  webhooks: WebhookResult;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Spread into `Math.max`, a fan-out's hundreds of thousands of figures overflow the stack. */
const latencies = (xs: number[]): Latencies =>
  xs.length === 0 ? { p50_ms: NaN, p99_ms: NaN, max_ms: NaN } : { p50_ms: median(xs), p99_ms: percentile(xs, 99), max_ms: xs.reduce((a, b) => Math.max(a, b)) };

/** Every event of the org's log, paged. */
async function orgLog(c: Client): Promise<Array<{ id: number; lease_id: string | null; seq: number | null; type: string; at: string }>> {
  const out = [];
  let after = 0;
  for (;;) {
    const page = await request(c, "GET", `/v1/events?after=${after}`);
    out.push(...page.data);
    if (page.next_after === null) return out;
    after = page.next_after;
  }
}

/**
 * Scratch leases on a sim with no delays, `concurrency` created at a time, with ttls of 2 to 5 s (or `ttl(i)` s):
 * each goes through its states to `released` on its own alarms. Answers the org's whole log once
 * every lease has its `released` event there.
 */
async function churn(server: Server, c: Client, leases: number, concurrency: number, ttl: (i: number) => number = (i) => 2 + (i % 4)) {
  let resends = 0;
  await fastSim(c);
  await tick(server);
  await pool(
    Array.from({ length: leases }, (_, i) => i),
    concurrency,
    async (i) => {
      const body = { kind: "scratch", spec: { gpu: "l4:1" }, policy: { ttl: `${ttl(i)}s`, idle_timeout: null } };
      resends += (await createLeaseResending(c, body, `churn-${Date.now()}-${i}`)).resends;
    },
  );
  const deadline = Date.now() + 120_000;
  for (;;) {
    const log = await orgLog(c);
    if (log.filter((e) => e.type === "released").length >= leases) return { log, resends };
    if (Date.now() > deadline) throw new Error(`events bench: ${leases} leases not all released in 120 s`);
    await sleep(500);
  }
}

/** One client of the org's stream: each event's latency by its org log id, and when it was connected. */
function follower(c: Client, signal: AbortSignal) {
  const arrived = new Map<number, number>();
  let connected!: () => void;
  const ready = new Promise<void>((r) => (connected = r));
  const done = (async () => {
    const res = await fetch(`${c.base}/v1/events?follow=1`, { headers: { authorization: `Bearer ${c.key}` }, signal });
    if (!res.ok) throw new Error(`GET /v1/events?follow=1: ${res.status} ${await res.text()}`);
    const reader = new SseReader(res);
    try {
      for (;;) {
        const f = await reader.next(3_600_000);
        if (f === null) return;
        // The stream's first frame is `retry:`: the client is one of the org's followers.
        if (f.retry !== undefined) connected();
        if (f.id !== undefined && f.data !== undefined) arrived.set(Number(f.id), Date.now() - Date.parse(JSON.parse(f.data).at));
      }
    } catch (err) {
      if (!signal.aborted) throw err;
    }
  })();
  return { arrived, ready, done };
}

export async function benchFanOut(server: Server, c: Client, clients = FAN_OUT_CLIENTS, leases = FAN_OUT_LEASES): Promise<FanOutResult> {
  const abort = new AbortController();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const all = Array.from({ length: clients }, () => follower(c, abort.signal));
  const failed = Promise.race(all.map((f) => f.done.then(() => Promise.reject(new Error("a follower's stream ended")))));
  failed.catch(() => {});
  try {
    await Promise.race([Promise.all(all.map((f) => f.ready)), failed, sleep(60_000).then(() => Promise.reject(new Error(`${clients} followers not connected in 60 s`)))]);
    const { log, resends } = await churn(server, c, leases, 4);
    const deadline = Date.now() + SETTLE_MS;
    while (!all.every((f) => f.arrived.size >= log.length) && Date.now() < deadline) await Promise.race([sleep(50), failed]);
    const cpu = process.cpuUsage(cpu0);
    const got = all.flatMap((f) => log.map((e) => f.arrived.get(e.id)).filter((ms): ms is number => ms !== undefined));
    return {
      clients,
      events: log.length,
      delivered: got.length,
      lost: clients * log.length - got.length,
      dev_proxy_resends: resends,
      ...latencies(got),
      seconds: (performance.now() - t0) / 1_000,
      client_cpu_s: (cpu.user + cpu.system) / 1e6,
    };
  } finally {
    abort.abort();
    await Promise.allSettled(all.map((f) => f.done));
  }
}

export async function benchWebhooks(server: Server, c: Client, leases = WEBHOOK_LEASES, endpoints = WEBHOOK_ENDPOINTS): Promise<WebhookResult> {
  const arrivals: Array<{ key: string; at: number; event_at: number }> = [];
  /** Each endpoint's verifier, by its receiver path. */
  const verifiers = new Map<string, Webhook>();
  let rejected = 0;
  const receiver = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req.setEncoding("utf8")) body += chunk;
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    try {
      const verifier = verifiers.get(req.url ?? "");
      if (!verifier) throw new Error(`no endpoint at ${req.url}`);
      const payload = verifier.verify(body, headers) as { timestamp: string };
      arrivals.push({ key: `${req.url} ${headers["webhook-id"]}`, at: Date.now(), event_at: Date.parse(payload.timestamp) });
      res.writeHead(204).end();
    } catch {
      rejected++;
      res.writeHead(401).end();
    }
  });
  // Up to a batch's 100 deliveries at once, each on its own connection.
  receiver.maxConnections = 1_000;
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", 511, r));
  try {
    const port = (receiver.address() as AddressInfo).port;
    for (let i = 0; i < endpoints; i++) {
      const path = `/hook/${i}`;
      const hook = await request(c, "POST", "/v1/webhooks", { url: `http://127.0.0.1:${port}${path}`, events: ["*"] });
      verifiers.set(path, new Webhook(hook.secret));
    }
    // Every lease lives 2 s: the events come as fast as the leases can make them.
    const { log } = await churn(server, c, leases, 16, () => 2);
    const ids = log.map((e) => `msg_${e.lease_id ?? "org"}_${e.lease_id === null ? e.id : e.seq}`);
    const expected = new Set([...verifiers.keys()].flatMap((path) => ids.map((id) => `${path} ${id}`)));
    const deadline = Date.now() + SETTLE_MS;
    const unique = () => new Set(arrivals.map((a) => a.key));
    while (unique().size < expected.size && Date.now() < deadline) await sleep(50);
    // A repeated delivery would come now or never: every attempt above was answered at once.
    await sleep(2_000);
    const got = unique();
    const first = Math.min(...arrivals.map((a) => a.event_at));
    const lastEvent = Math.max(...arrivals.map((a) => a.event_at));
    const firstArrival = Math.min(...arrivals.map((a) => a.at));
    const lastArrival = Math.max(...arrivals.map((a) => a.at));
    const seconds = (lastArrival - first) / 1_000;
    /** How many of `times` fell in each second after the first event. */
    const bySecond = (times: number[]) => {
      const counts: number[] = [];
      for (const t of times) {
        const k = Math.max(0, Math.floor((t - first) / 1_000));
        counts[k] = (counts[k] ?? 0) + 1;
      }
      return Array.from(counts, (n) => n ?? 0);
    };
    const perSecond = new Map<number, number>();
    for (const a of arrivals) perSecond.set(Math.floor(a.at / 1_000), (perSecond.get(Math.floor(a.at / 1_000)) ?? 0) + 1);
    return {
      endpoints,
      events: ids.length,
      expected: expected.size,
      received: arrivals.length + rejected,
      verified: arrivals.length,
      duplicates: arrivals.length - got.size,
      lost: [...expected].filter((k) => !got.has(k)).length,
      seconds,
      per_s: got.size / seconds,
      trail_s: (lastArrival - lastEvent) / 1_000,
      drain_per_s: arrivals.filter((a) => a.at > lastEvent).length / Math.max(0.001, (lastArrival - lastEvent) / 1_000),
      peak_per_s: Math.max(...perSecond.values()),
      arrival_span_per_s: got.size / Math.max(0.001, (lastArrival - firstArrival) / 1_000),
      events_span_s: (lastEvent - first) / 1_000,
      events_by_second: bySecond(log.map((e) => Date.parse(e.at))),
      arrivals_by_second: bySecond(arrivals.map((a) => a.at)),
      ...latencies(arrivals.map((a) => a.at - a.event_at)),
    };
  } finally {
    await new Promise((r) => receiver.close(r));
  }
}

export async function benchEvents(server: Server, c: Client, log: (msg: string) => void): Promise<EventsResult> {
  log(`events: ${FAN_OUT_CLIENTS} followers of one org's stream, ${FAN_OUT_LEASES} leases coming and going`);
  const fanOut = await benchFanOut(server, c);
  log(`events: webhook deliveries to ${WEBHOOK_ENDPOINTS} endpoints, ${WEBHOOK_LEASES} leases coming and going`);
  // An org of its own, whose log holds only the burst.
  const webhooks = await benchWebhooks(server, await client(server));
  return { fan_out: fanOut, webhooks };
}

/** The webhook figure alone (`npm run bench -- --only=webhooks`), on a server of its own. */
export async function benchWebhooksAlone(server: Server, c: Client, log: (msg: string) => void): Promise<WebhookResult> {
  log(`webhooks: deliveries to ${WEBHOOK_ENDPOINTS} endpoints of one org, ${WEBHOOK_LEASES} leases coming and going`);
  return benchWebhooks(server, c);
}

/** Every event reached every follower within the target. */
export const fanOutMet = (x: FanOutResult) => x.p99_ms < FAN_OUT_P99_TARGET_MS && x.lost === 0;
/** Every event delivered once to every endpoint, every delivery verified, at the rate. */
export const webhooksMet = (x: WebhookResult) => x.lost === 0 && x.duplicates === 0 && x.verified === x.received && x.per_s >= WEBHOOK_RATE_TARGET;

/** The table's rows: benchmark, measure, figure, target, met. */
export function eventsRows(r: EventsResult): string[][] {
  const f = (x: number, d = 0) => x.toFixed(d);
  const { fan_out: o } = r;
  return [
    [
      `org event stream, ${o.clients} followers x ${o.events} events`,
      "lost; event to client p50 / p99 / max ms",
      `${o.lost}; ${f(o.p50_ms)} / ${f(o.p99_ms)} / ${f(o.max_ms)} (clients' CPU ${f(o.client_cpu_s, 1)} s of ${f(o.seconds, 1)} s)`,
      `p99 < ${FAN_OUT_P99_TARGET_MS}, none lost`,
      String(fanOutMet(o)),
    ],
    ...webhookRows(r.webhooks),
  ];
}

export function webhookRows(w: WebhookResult): string[][] {
  const f = (x: number, d = 0) => x.toFixed(d);
  return [
    [
      `webhooks, ${w.events} events x ${w.endpoints} endpoints of one org`,
      "deliveries/s (first event to last arrival; after the last event; busiest second); event to receiver p50 / p99 / max ms; verified, lost, duplicates",
      `${f(w.per_s, 1)} (${f(w.drain_per_s)}; ${f(w.peak_per_s)}); ${f(w.p50_ms)} / ${f(w.p99_ms)} / ${f(w.max_ms)}; ${w.verified}/${w.received}, ${w.lost}, ${w.duplicates}`,
      `>= ${WEBHOOK_RATE_TARGET}/s, all verified, none lost or twice`,
      String(webhooksMet(w)),
    ],
  ];
}
