/**
 * The occupant's figures against a real `wrangler dev` (docs/agent.md): log ingest into one lease
 * as the agent posts it (64 KiB chunks, one in flight), the latency from an agent's log POST to a
 * follower receiving the chunk, and the same for 100 followers of one lease, each of which must
 * receive every chunk.
 */
import type { Server } from "../e2e/server";
import { onceCatalogReady, request, type Client } from "./http";
import { median, percentile } from "./in-process";

export const FOLLOW_P99_TARGET_MS = 100;

export interface IngestResult {
  chunk_bytes: number;
  chunks: number;
  seconds: number;
  mb_per_s: number;
  post_p50_ms: number;
  post_p99_ms: number;
}

export interface FollowResult {
  followers: number;
  chunks: number;
  /** Chunks received, over all followers; every one of them must be `followers * chunks`. */
  delivered: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

export interface OccupantResult {
  ingest: IngestResult;
  follow: FollowResult;
  fan_out: FollowResult;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface AgentLease {
  id: string;
  token: string;
}

/** A job lease whose command never ends on its own, and its agent token from the test-only route. */
async function agentLease(server: Server, c: Client): Promise<AgentLease> {
  return onceCatalogReady(server, async () => {
    const lease = await request(c, "POST", "/v1/leases", { kind: "job", cmd: "hang", spec: { gpu: "l40s:1" }, policy: { on_exit: "keep" } });
    const minted = await request(c, "POST", `/v1/sim/leases/${lease.id}/agent-token`, undefined, "bootstrap");
    return { id: lease.id, token: minted.token };
  });
}

/** One chunk, posted as src/agent/agent.sh posts it. */
async function postChunk(c: Client, lease: AgentLease, seq: number, body: string) {
  const res = await fetch(`${c.base}/v1/agent/logs`, {
    method: "POST",
    headers: { authorization: `Bearer ${lease.token}`, "lessor-lease-id": lease.id, "lessor-log-seq": String(seq), "content-type": "text/plain" },
    body,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST /v1/agent/logs seq ${seq}: ${res.status} ${text}`);
}

async function benchIngest(c: Client, lease: AgentLease, seconds: number): Promise<IngestResult> {
  const chunkBytes = 64 * 1024;
  const line = "x".repeat(127) + "\n";
  const body = line.repeat(chunkBytes / line.length);
  const times: number[] = [];
  const start = performance.now();
  let seq = 0;
  while (performance.now() - start < seconds * 1_000) {
    const t0 = performance.now();
    await postChunk(c, lease, ++seq, body);
    times.push(performance.now() - t0);
  }
  const elapsed = (performance.now() - start) / 1_000;
  return {
    chunk_bytes: chunkBytes,
    chunks: seq,
    seconds: elapsed,
    mb_per_s: (seq * chunkBytes) / elapsed / 1e6,
    post_p50_ms: median(times),
    post_p99_ms: percentile(times, 99),
  };
}

/** A follower of the lease's log: when each chunk (by its sequence number, the event's id) arrived. */
function follow(c: Client, lease: AgentLease, abort: AbortSignal) {
  const arrived = new Map<number, number>();
  const done = (async () => {
    const res = await fetch(`${c.base}/v1/leases/${lease.id}/logs?follow=1`, { headers: { authorization: `Bearer ${c.key}` }, signal: abort });
    if (!res.ok || !res.body) throw new Error(`follow: ${res.status} ${await res.text()}`);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffered += value;
        let end: number;
        while ((end = buffered.indexOf("\n\n")) >= 0) {
          const event = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const id = /^id: ?(\d+)$/m.exec(event);
          if (id && !/^event:/m.test(event)) arrived.set(Number(id[1]), performance.now());
        }
      }
    } catch (err) {
      if (!abort.aborted) throw err;
    }
  })();
  return { arrived, done };
}

/**
 * `followers` clients follow one lease; chunks are posted one at a time, each once every follower
 * has the one before, so each figure is the delivery of one chunk, never a queue behind others.
 */
async function benchFollow(c: Client, lease: AgentLease, followers: number, chunks: number): Promise<FollowResult> {
  const abort = new AbortController();
  const all = Array.from({ length: followers }, () => follow(c, lease, abort.signal));
  const failed = Promise.race(all.map((f) => f.done.then(() => Promise.reject(new Error("a follow ended early")))));
  failed.catch(() => {});
  const waitFor = async (seq: number, timeoutMs: number) => {
    const deadline = performance.now() + timeoutMs;
    while (!all.every((f) => f.arrived.has(seq))) {
      if (performance.now() > deadline) return false;
      await Promise.race([sleep(1), failed]);
    }
    return true;
  };
  try {
    // A first chunk that every follower receives: all of them are registered with the lease.
    await postChunk(c, lease, 1, "warm-up\n");
    if (!(await waitFor(1, 30_000))) throw new Error("the followers never received the first chunk");
    const latencies: number[] = [];
    for (let seq = 2; seq <= chunks + 1; seq++) {
      const t0 = performance.now();
      await postChunk(c, lease, seq, `chunk ${seq} ${"y".repeat(200)}\n`);
      await waitFor(seq, 5_000);
      for (const f of all) {
        const at = f.arrived.get(seq);
        if (at !== undefined) latencies.push(at - t0);
      }
    }
    return {
      followers,
      chunks,
      delivered: latencies.length,
      p50_ms: median(latencies),
      p99_ms: percentile(latencies, 99),
      max_ms: Math.max(...latencies),
    };
  } finally {
    abort.abort();
    await Promise.allSettled(all.map((f) => f.done));
  }
}

export async function benchOccupant(server: Server, c: Client, log: (msg: string) => void): Promise<OccupantResult> {
  log("occupant: log ingest into one lease, 64 KiB chunks, ~5 s");
  const ingest = await benchIngest(c, await agentLease(server, c), 5);
  log("occupant: follow latency, one follower, 200 chunks");
  const followOne = await benchFollow(c, await agentLease(server, c), 1, 200);
  log("occupant: 100 followers of one lease, 50 chunks");
  const fanOut = await benchFollow(c, await agentLease(server, c), 100, 50);
  return { ingest, follow: followOne, fan_out: fanOut };
}

/** Every chunk reached every follower (a chunk `waitFor` gave up on is missing from `delivered`). */
const complete = (x: FollowResult) => x.delivered === x.followers * x.chunks;

/** The follow target: p99 under FOLLOW_P99_TARGET_MS, and not one chunk lost on the way. */
export const followMet = (x: FollowResult) => x.p99_ms < FOLLOW_P99_TARGET_MS && complete(x);

/** The table's rows: benchmark, measure, figure, target, met. */
export function occupantRows(r: OccupantResult): string[][] {
  const f = (x: number, d = 1) => x.toFixed(d);
  return [
    ["log ingest, one lease, 64 KiB chunks", "MB/s; POST p50 / p99 ms", `${f(r.ingest.mb_per_s)}; ${f(r.ingest.post_p50_ms)} / ${f(r.ingest.post_p99_ms)}`, "-", "-"],
    [`log follow, ${r.follow.chunks} chunks`, "POST to event p50 / p99 / max ms", `${f(r.follow.p50_ms)} / ${f(r.follow.p99_ms)} / ${f(r.follow.max_ms)}`, `p99 < ${FOLLOW_P99_TARGET_MS}`, String(followMet(r.follow))],
    [`log follow, ${r.fan_out.followers} followers x ${r.fan_out.chunks} chunks`, "delivered; p50 / p99 / max ms", `${r.fan_out.delivered}/${r.fan_out.followers * r.fan_out.chunks}; ${f(r.fan_out.p50_ms)} / ${f(r.fan_out.p99_ms)} / ${f(r.fan_out.max_ms)}`, "all delivered", String(complete(r.fan_out))],
  ];
}
