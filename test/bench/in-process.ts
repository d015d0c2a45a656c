/**
 * Benchmarks that run in this process: offer selection over 100,000 offers, and the backstop's
 * sweep query on a real D1 (workerd's, through Miniflare) holding 1,000 and 100,000 leases.
 */
import path from "node:path";
import { readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { Miniflare } from "miniflare";
import type { Offer } from "../../src/catalog/offer";
import { constraintsOf, selectOffer } from "../../src/catalog/selector";
import { parseGpuToken, type Spec } from "../../src/catalog/spec";
import { database } from "../../src/db";
import { generateSimOffers, normalizeSimOffer } from "../../src/providers/sim/offers";
import { repoRoot } from "../e2e/server";

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/** The sim's market, normalized exactly as its adapter does. */
export function simOffers(count: number): Offer[] {
  return generateSimOffers(count, 1)
    .map(normalizeSimOffer)
    .filter((o): o is Offer => o !== null);
}

export interface SelectionResult {
  offers: number;
  /** Median milliseconds per quote, by spec. */
  specs: Array<{ spec: string; pool: number; median_ms: number; p99_ms: number }>;
}

/**
 * Quoting against 100,000 offers: the selector over the pool the quote path gives it (the spec's
 * class, as the D1 narrowing does; every GPU offer for a minimums-only spec).
 */
export function benchSelection(count = 100_000, runs = 60): SelectionResult {
  const offers = simOffers(count);
  const specs: Spec[] = [
    { gpu: "h100:8" },
    { gpu: "l40s:1", regions: ["us-east", "eu-central"], max_hourly_usd: 2 },
    { min_vram_gb: 80, min_gpus: 2 },
    { min_vram_gb: 24, spot: true, exclude_hosts: ["sim-host-00001"] },
  ];
  const result: SelectionResult = { offers: offers.length, specs: [] };
  for (const spec of specs) {
    const token = spec.gpu ? parseGpuToken(spec.gpu) : null;
    const pool = token ? offers.filter((o) => o.gpu === token.gpu) : offers.filter((o) => o.gpu !== "cpu");
    const constraints = constraintsOf(spec, token, ["sim"]);
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      const r = selectOffer(pool, constraints);
      times.push(performance.now() - t);
      if (!r.ok) throw new Error(`selection bench: ${JSON.stringify(spec)} found nothing (${r.constraint})`);
    }
    result.specs.push({ spec: JSON.stringify(spec), pool: pool.length, median_ms: median(times), p99_ms: percentile(times, 99) });
  }
  return result;
}

export interface SweepResult {
  sizes: Array<{ leases: number; due: number; median_ms: number }>;
  ratio: number;
}

/** One backstop sweep query finding 100 due leases among 1,000 and among 100,000, on real D1. */
export async function benchSweep(runs = 50): Promise<SweepResult> {
  const sizes: SweepResult["sizes"] = [];
  for (const leases of [1_000, 100_000]) {
    const mf = new Miniflare({ modules: true, script: "export default { fetch() { return new Response('') } }", d1Databases: { DB: "bench" } });
    try {
      const d1 = (await mf.getD1Database("DB")) as unknown as D1Database;
      for (const m of await readD1Migrations(path.join(repoRoot, "migrations"))) {
        for (const q of m.queries) await d1.prepare(q).run();
      }
      const now = Date.now();
      await d1.prepare("INSERT INTO orgs (id, name, created_at) VALUES ('org_bench', 'bench', ?)").bind(now).run();
      // 100 due a little in the past; a tenth released (no deadline); the rest due later.
      await d1
        .prepare(
          `INSERT INTO leases (id, org_id, kind, state, provider, machine_id, release_reason, next_deadline, created_at, updated_at, version, body)
           WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < ?1)
           SELECT printf('ls_%026d', x), 'org_bench', 'scratch',
                  CASE WHEN x % 10 = 0 THEN 'released' ELSE 'ready' END, 'sim', printf('m%d', x), NULL,
                  CASE WHEN x <= 100 THEN ?2 - 1000 - x WHEN x % 10 = 0 THEN NULL ELSE ?2 + 60000 + x END,
                  ?2, ?2, 1, '{}'
           FROM n`,
        )
        .bind(leases, now)
        .run();
      await d1.prepare("ANALYZE").run();
      const db = database(d1);
      const times: number[] = [];
      for (let i = 0; i < runs + 5; i++) {
        const t = performance.now();
        const due = await db.selectFrom("leases").select("id").where("next_deadline", "is not", null).where("next_deadline", "<=", now).orderBy("next_deadline").limit(1_000).execute();
        const ms = performance.now() - t;
        if (due.length !== 100) throw new Error(`sweep bench: expected 100 due, found ${due.length}`);
        if (i >= 5) times.push(ms); // the first runs warm the connection
      }
      sizes.push({ leases, due: 100, median_ms: median(times) });
    } finally {
      await mf.dispose();
    }
  }
  return { sizes, ratio: sizes[1]!.median_ms / sizes[0]!.median_ms };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(benchSelection(), null, 2));
  console.log(JSON.stringify(await benchSweep(), null, 2));
}
