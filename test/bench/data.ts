/**
 * Data in and out through the agent routes (docs/artifacts.md), against a real `wrangler dev`: a
 * 64 MiB file uploaded as an agent uploads it (`POST ?uploads`, eight 8 MiB parts, each with its
 * digest, `POST ?complete`, which reads the whole object back to check it) and downloaded again
 * by its user (`GET /v1/leases/:id/artifacts/:path`), a few times; the throughput of each way in
 * MB/s (10^6 bytes a second), the median of the runs; and what moving a GB costs the control
 * plane, priced as docs/cost.md prices a lease, with R2's operations added.
 *
 * The R2 operations are counted from what src/artifacts/store.ts calls, not metered: a file of N
 * parts is N + 2 Class A operations (create, N parts, complete) and 2 Class B (the complete's
 * read-back and the download). Egress from R2 is free. Everything runs on this machine, so the
 * throughput is local: it measures lessor's own work on the bytes (hashing them as they stream,
 * the Worker's and workerd's copies), not a network.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Server } from "../e2e/server";
import { bootstrapTokenFromDevVars } from "../e2e/server";
import { dollars, read as readMeter, diffCounts, type Counts } from "./cost";
import { fastSim, request, type Client } from "./http";
import { median } from "./in-process";

const MiB = 1024 * 1024;
const PART = 8 * MiB;
export const DATA_FILE_BYTES = 64 * MiB;
const RUNS = 3;

/** R2 Standard's published prices (docs/cost.md "Prices"), in dollars. */
export const R2_RATES = { class_a: 4.5 / 1e6, class_b: 0.36 / 1e6, gb_month: 0.015 } as const;

export interface DataResult {
  file_bytes: number;
  runs: number;
  upload_mb_s: number[];
  download_mb_s: number[];
  upload_mb_s_median: number;
  download_mb_s_median: number;
  /** One file up and down again, as the meter counted it (the median run). */
  counts: Counts;
  r2_class_a: number;
  r2_class_b: number;
  /** The control plane's cost of moving one GB (2^30 bytes) up and down once. */
  per_gb_usd: { worker: number; objects: number; rows: number; r2_ops: number; total: number };
  /** Keeping a GB for a month, R2's storage alone. */
  storage_per_gb_month_usd: number;
}

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function benchData(server: Server, c: Client, log: (msg: string) => void): Promise<DataResult> {
  await fastSim(c);
  // A job whose sim machine only waits: the bench is its agent, with the lease's token.
  const lease = await request(c, "POST", "/v1/leases", { kind: "job", spec: { gpu: "l40s:1", providers: ["sim"] }, cmd: "hang", policy: { ttl: "30m" } });
  for (let i = 0; (await request(c, "GET", `/v1/leases/${lease.id}`)).state !== "ready"; i++) {
    if (i > 120) throw new Error(`data: lease ${lease.id} never ready`);
    await sleep(500);
  }
  const minted = await fetch(`${c.base}/v1/sim/leases/${lease.id}/agent-token`, { method: "POST", headers: { authorization: `Bearer ${bootstrapTokenFromDevVars()}` } });
  if (minted.status !== 201) throw new Error(`data: agent token: ${minted.status} ${await minted.text()}`);
  const token = ((await minted.json()) as { token: string }).token;
  const agent = { authorization: `Bearer ${token}`, "lessor-lease-id": lease.id };

  const file = new Uint8Array(randomBytes(DATA_FILE_BYTES));
  const digest = sha(file);
  const parts = Array.from({ length: DATA_FILE_BYTES / PART }, (_, i) => file.subarray(i * PART, (i + 1) * PART));
  const partDigests = parts.map(sha);

  const call = async (method: string, path: string, headers: Record<string, string>, body?: BodyInit) => {
    const res = await fetch(`${c.base}${path}`, { method, headers, body });
    if (!res.ok) throw new Error(`data: ${method} ${path}: ${res.status} ${await res.text()}`);
    return res;
  };

  const up: number[] = [];
  const down: number[] = [];
  const counted: Counts[] = [];
  for (let run = 1; run <= RUNS; run++) {
    const path = `bench/run-${run}.bin`;
    log(`data: run ${run} of ${RUNS}: ${DATA_FILE_BYTES / MiB} MiB up in ${parts.length} parts and down again`);
    const before = await readMeter(server, c);
    const t0 = performance.now();
    const json = { ...agent, "content-type": "application/json" };
    const created = (await (await call("POST", `/v1/agent/artifacts/${path}?uploads`, json, JSON.stringify({ size: DATA_FILE_BYTES, sha256: digest }))).json()) as { upload_id: string };
    for (const [i, part] of parts.entries()) {
      const res = await call("PUT", `/v1/agent/artifacts/${path}?upload_id=${created.upload_id}&part=${i + 1}`, { ...agent, "content-type": "application/octet-stream", "lessor-sha256": partDigests[i]! }, part);
      await res.arrayBuffer();
    }
    await (await call("POST", `/v1/agent/artifacts/${path}?upload_id=${created.upload_id}&complete`, json, JSON.stringify({ size: DATA_FILE_BYTES, sha256: digest }))).arrayBuffer();
    const t1 = performance.now();
    const got = await call("GET", `/v1/leases/${lease.id}/artifacts/${path}`, { authorization: `Bearer ${c.key}` });
    const hash = createHash("sha256");
    let bytes = 0;
    for await (const chunk of got.body! as unknown as AsyncIterable<Uint8Array>) {
      hash.update(chunk);
      bytes += chunk.byteLength;
    }
    const t2 = performance.now();
    if (bytes !== DATA_FILE_BYTES || hash.digest("hex") !== digest) throw new Error(`data: ${path} came back different`);
    counted.push(diffCounts(await readMeter(server, c), before));
    up.push(DATA_FILE_BYTES / 1e6 / ((t1 - t0) / 1000));
    down.push(DATA_FILE_BYTES / 1e6 / ((t2 - t1) / 1000));
  }
  await request(c, "POST", `/v1/leases/${lease.id}/end`, {});

  const mid = counted.map((k, i) => ({ k, i })).sort((a, b) => a.k.worker_requests + a.k.cpu_ms / 1e6 - (b.k.worker_requests + b.k.cpu_ms / 1e6))[Math.floor(RUNS / 2)]!.k;
  const classA = parts.length + 2;
  const classB = 2;
  const perFile = dollars(mid);
  const r2 = classA * R2_RATES.class_a + classB * R2_RATES.class_b;
  const gbs = DATA_FILE_BYTES / 1024 ** 3;
  const per = (x: number) => x / gbs;
  return {
    file_bytes: DATA_FILE_BYTES,
    runs: RUNS,
    upload_mb_s: up,
    download_mb_s: down,
    upload_mb_s_median: median(up),
    download_mb_s_median: median(down),
    counts: mid,
    r2_class_a: classA,
    r2_class_b: classB,
    per_gb_usd: { worker: per(perFile.worker), objects: per(perFile.objects), rows: per(perFile.rows), r2_ops: per(r2), total: per(perFile.total + r2) },
    storage_per_gb_month_usd: R2_RATES.gb_month,
  };
}

export function dataRows(r: DataResult): string[][] {
  const f = (x: number, d = 0) => x.toFixed(d);
  const k = r.counts;
  return [
    ["data: upload through the agent routes", `MB/s, ${r.file_bytes / MiB} MiB in 8 MiB parts, median of ${r.runs}`, `${f(r.upload_mb_s_median, 1)} (${r.upload_mb_s.map((x) => f(x, 1)).join(", ")})`, "-", "-"],
    ["data: download, GET .../artifacts/:path", `MB/s, median of ${r.runs}`, `${f(r.download_mb_s_median, 1)} (${r.download_mb_s.map((x) => f(x, 1)).join(", ")})`, "-", "-"],
    [
      "data: one file up and down, counted",
      "worker req / DO req+alarms / D1 rows r,w / DO rows r,w / R2 A,B / CPU ms",
      `${f(k.worker_requests)} / ${f(k.do_requests + k.do_alarms)} / ${f(k.d1_rows_read)},${f(k.d1_rows_written)} / ${f(k.do_rows_read)},${f(k.do_rows_written)} / ${r.r2_class_a},${r.r2_class_b} / ${f(k.cpu_ms)}`,
      "-",
      "-",
    ],
    [
      "data: control plane per GB moved (up + down)",
      "USD (Workers, DO, rows, R2 ops)",
      `${r.per_gb_usd.total.toFixed(6)} (${r.per_gb_usd.worker.toFixed(6)}, ${r.per_gb_usd.objects.toFixed(6)}, ${r.per_gb_usd.rows.toFixed(6)}, ${r.per_gb_usd.r2_ops.toFixed(6)})`,
      "-",
      "-",
    ],
    ["data: keeping a GB", "USD a month (R2 storage)", f(r.storage_per_gb_month_usd, 3), "-", "-"],
  ];
}
