/**
 * `npm run chaos` in small: 50 leases against the simulated cloud with its faults on (5% API 5xx,
 * 5% 429, 3% ambiguous creates, 5% boot failures, 2% vanishing machines), random user actions and
 * short policies, until every lease is released; then the same checks as the full run
 * (test/bench/chaos-lib.ts), each of which must count zero. The table is printed either way.
 *
 * Its own server (start.mjs through test/e2e/server.ts) with a cron tick every 3 s and a request
 * budget out of the way of the workload.
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CHAOS_SERVER_ENV, CHECKS, formatTable, runChaos, type ChaosResult } from "../bench/chaos-lib";
import { bootstrapTokenFromDevVars, removeStateDir, runningServers, startServer, stopServer, type Server } from "./server";

const LEASES = 50;
const SEED = 50;

let server: Server | undefined;

beforeAll(async () => {
  server = await startServer({ cronIntervalS: 3, env: CHAOS_SERVER_ENV });
});

afterAll(async () => {
  // Whatever was started, even by a beforeAll that timed out, is stopped by pid.
  for (const s of server ? [server] : runningServers()) {
    const { leftovers } = await stopServer(s);
    removeStateDir(s);
    expect(leftovers, "processes left after stopping the server").toEqual([]);
  }
});

it(
  `${LEASES} leases under faults and random actions: every check counts zero`,
  async () => {
    const t0 = Date.now();
    let result: ChaosResult;
    try {
      result = await runChaos({
        base: server!.base,
        bootstrapToken: bootstrapTokenFromDevVars(),
        leases: LEASES,
        seed: SEED,
        actionTailS: 8,
        timeoutS: 100,
        // 429s still come at 5%, with `Retry-After: 0`. With the sim's default of 1 s, a destroy
        // that meets two 429s in a row honours 2 s of waits and lands just past the check's 2 s
        // tolerance (seen in about one run in ten); `npm run chaos` keeps the 1 s and reports it.
        faults: { retry_after_s: 0 },
      });
    } catch (e) {
      console.error(`--- server log tail ---\n${server!.log().slice(-6000)}`);
      throw e;
    }
    let table = formatTable(result);
    if (result.violations.some((v) => v.count > 0) || !result.finished) {
      // Everything read back (events, objects, index rows, the sim's ledger), for the diagnosis.
      const dump = path.join(tmpdir(), `lessor-chaos-e2e-${SEED}-${Date.now()}.json`);
      writeFileSync(dump, JSON.stringify(result));
      table += `\n\neverything read back: ${dump}`;
    }
    console.log(`chaos (${LEASES} leases, ${((Date.now() - t0) / 1000).toFixed(1)} s):\n${table}`);

    // Every check of the issue is in the table...
    const checks = result.violations.map((v) => v.check);
    for (const check of Object.values(CHECKS)) expect(checks).toContain(check);
    // ...the workload did what it is for...
    // Every lease is created but one that mounts a volume, whose region may have no machine free
    // then (409 no_capacity) or whose volume the run's deletes took (404): those are refused.
    const refused = Object.entries(result.stats.create_refused);
    expect(refused.filter(([why]) => !/^(409 no_capacity|404 not_found) \(volume\)$/.test(why)), table).toEqual([]);
    expect(result.stats.leases_created + refused.reduce((n, [, count]) => n + count, 0)).toBe(LEASES);
    expect(result.stats.leases_created).toBeGreaterThanOrEqual(LEASES * 0.8);
    // Every lease rented a machine, but one its user ended before the machine was made.
    expect(result.stats.machines_created).toBeGreaterThanOrEqual(result.stats.leases_created - (result.stats.releases_by_reason.user_end ?? 0));
    // ...and nothing was violated.
    expect(result.finished, table).toBe(true);
    expect(
      result.violations.filter((v) => v.count > 0).map((v) => ({ check: v.check, count: v.count, examples: v.examples })),
      table,
    ).toEqual([]);
  },
  // Server start is in beforeAll; the run itself takes about a minute.
  150_000,
);
