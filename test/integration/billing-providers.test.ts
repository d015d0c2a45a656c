/**
 * Billing on RunPod and Vast.ai (docs/design.md guarantee 7) through their real adapters
 * against the stub clouds, where every request and answer is held to the provider's own
 * document: a lease's receipt comes only from the provider's billing records (RunPod's hourly
 * pod buckets, Vast's per-instance charges by UTC day), once their windows are final, and equals
 * the stub's ledger to the cent.
 *
 * Neither provider says when its records are final, so each adapter takes a window as final only
 * once it has closed and a documented lag has passed (RUNPOD_BILLING_LAG_MS, VAST_BILLING_LAG_MS),
 * measured back from the clock the billing step is given. The stub's billing window is 1 s here
 * (its `billing_window_ms`), so the lease's machine bills across several windows in a few
 * seconds; the adapters' hours and days are real ones, so instead of waiting them out the test
 * hands the cron's billing step (`runBilling`, as the cron calls it) the moment when the lag has
 * passed. It never runs the whole cron: the stub clouds are one account shared by every test
 * file, and the cron's orphan reaper would act on other files' machines.
 */
import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runBilling, type BillingReport } from "../../src/billing/reconcile";
import { RUNPOD_BILLING_LAG_MS } from "../../src/providers/runpod/adapter";
import { SIM_DEFAULT_FAULTS } from "../../src/providers/sim/faults";
import { VAST_BILLING_LAG_MS } from "../../src/providers/vast/adapter";
import { STUB_API_KEYS, stubCloudAdmin, type StubProvider } from "../support/stub-clouds-admin";
import { call, createKey, createOrg, json, refreshCatalog, type TestOrg } from "./helpers";
import { createLease, getLease, waitForState } from "./lease-helpers";
import { ledgerCost } from "../support/ledger-cost";

const stubs = inject("stubClouds");

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The stub's billing window (RunPod's hour shrinks with it; Vast's days do not). */
const W = 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Case {
  name: Extract<StubProvider, "runpod" | "vast">;
  /** The adapter's own window: RunPod's hourly bucket, the UTC day Vast's charges are asked by. */
  windowMs: number;
  lagMs: number;
  /** Records a lease of a few seconds has: one per stub window at RunPod, one per UTC day at Vast. */
  minRecords: number;
  /** How far the receipt may be from the ledger: each record is rounded by the provider. */
  roundingPerRecord: number;
}

const CASES: Case[] = [
  { name: "runpod", windowMs: HOUR, lagMs: RUNPOD_BILLING_LAG_MS, minRecords: 4, roundingPerRecord: 1e-6 },
  // Vast states each charge to 3 decimals.
  { name: "vast", windowMs: DAY, lagMs: VAST_BILLING_LAG_MS, minRecords: 1, roundingPerRecord: 0.0005 },
];

const cents = (usd: number) => Math.round(usd * 100);

describe.each(CASES)("billing on $name", (c) => {
  const served = stubs?.providers.includes(c.name) ?? false;
  const admin = () => stubCloudAdmin(stubs!.url, c.name);
  let org: TestOrg;
  let key: string;

  /** The provider's own answer, read straight from the stub with the org's key (checked against the document too). */
  async function providerSays(path: string, query: Record<string, string>): Promise<any> {
    const res = await fetch(`${stubs!.url}/${c.name}${path}?${new URLSearchParams(query)}`, { headers: { authorization: `Bearer ${STUB_API_KEYS[c.name]}` } });
    expect(res.status).toBe(200);
    return res.json();
  }

  /** The cron's billing step at `now`; this provider's fetch must not have failed. */
  async function billing(now: number): Promise<BillingReport> {
    const report = await runBilling(env, now);
    if ("skipped" in report) throw new Error("billing step skipped: another run holds its lock");
    for (const a of report.accounts) if (a.provider === c.name && a.error) throw new Error(`${c.name} billing fetch failed: ${a.error}`);
    return report;
  }

  async function receiptOf(leaseId: string) {
    const list = await json(await call("GET", `/v1/receipts?lease_id=${leaseId}`, { key }));
    expect(list.data.length).toBeLessThanOrEqual(1);
    if (list.data.length === 0) return null;
    return json(await call("GET", `/v1/receipts/${list.data[0].id}`, { key }));
  }

  /** This lease's rows in D1's billing tables, for "changes nothing". */
  async function snapshot(leaseId: string, machineIds: readonly string[]) {
    const all = async (q: string, ...binds: unknown[]) => (await env.DB.prepare(q).bind(...binds).all()).results;
    const marks = machineIds.map(() => "?").join(",");
    return {
      records: await all(`SELECT * FROM billing_records WHERE provider = ? AND machine_id IN (${marks}) ORDER BY record_id`, c.name, ...machineIds),
      receipts: await all("SELECT * FROM receipts WHERE lease_id = ?", leaseId),
      lease: await all("SELECT id, billing_status, estimate_micro_usd, accrual, version FROM leases WHERE id = ?", leaseId),
    };
  }

  beforeAll(async () => {
    if (!served) return;
    org = await createOrg(`billing-${c.name}`);
    key = (await createKey(org, "write")).secret;
    const res = await call("PUT", `/v1/providers/${c.name}`, { key: org.adminKey, body: { api_key: STUB_API_KEYS[c.name] } });
    if (res.status !== 200) throw new Error(`PUT /v1/providers/${c.name}: ${res.status} ${await res.text()}`);
    await refreshCatalog();
    // Not a reset: the stub is shared with other files, whose machines must not vanish.
    await admin().setFaults({ provision_delay_ms: 50, boot_delay_ms: 100, billing_window_ms: W, billing_delay_ms: 0, billing_markup: 0 });
  });

  afterAll(async () => {
    if (!served) return;
    // Only the billing knobs go back: another file's test may be running on the same stub now.
    const { billing_window_ms, billing_delay_ms } = SIM_DEFAULT_FAULTS;
    await admin().setFaults({ billing_window_ms, billing_delay_ms });
    expect((await admin().getViolations()).violations, `${c.name}: requests or answers its document refuses`).toEqual([]);
  });

  it.skipIf(!served)(
    "a lease across several short billing windows settles only once they are final, with a receipt equal to the stub's billing and ledger to the cent; a second run changes nothing",
    async () => {
      const act = (id: string, action: string) => call("POST", `/v1/leases/${id}/${action}`, { key, body: {} });
      const lease = await createLease(key, { kind: "scratch", spec: { gpu: "l4:1", providers: [c.name] }, policy: { idle_timeout: null } });
      await waitForState(key, lease.id, "ready");
      await sleep(2 * W);
      // A stop and a start: the stopped second bills the kept disk (on RunPod, its container disk).
      expect((await act(lease.id, "stop")).status).toBe(200);
      await waitForState(key, lease.id, "stopped");
      await sleep(W);
      expect((await act(lease.id, "start")).status).toBe(200);
      await waitForState(key, lease.id, "ready");
      await sleep(W);
      expect((await act(lease.id, "end")).status).toBe(200);
      const released = await waitForState(key, lease.id, "released");
      expect(released.billing.status).toBe("awaiting_windows");
      const releasedAt = Date.parse(released.released_at);
      const machines = (await admin().getLedger(`lessor-dev-${lease.id}-`)).machines;
      expect(machines).toHaveLength(1);
      expect(machines[0]!.status).toBe("TERMINATED");
      const machineIds = machines.map((m) => m.id);
      // Every stub window the machine billed in has closed (and, with no delay, been published).
      const lastWindowEnd = (Math.floor(releasedAt / W) + 1) * W;
      if (Date.now() < lastWindowEnd + 50) await sleep(lastWindowEnd + 50 - Date.now());

      // Now: the provider has published every window, but by the adapter's lag none is final yet.
      // Nothing of it is stored (a record is stored once, so a growing one must never be), and
      // the lease is not settled early.
      await billing(Date.now());
      expect((await snapshot(lease.id, machineIds)).records).toEqual([]);
      expect((await getLease(key, lease.id)).billing.status).toBe("awaiting_windows");
      expect(await receiptOf(lease.id)).toBeNull();

      // The adapter's window holding the release has closed and the lag has passed.
      const final = (Math.floor(releasedAt / c.windowMs) + 1) * c.windowMs + c.lagMs;
      await billing(final - 1);
      expect(await receiptOf(lease.id), "settled a millisecond before the lag had passed").toBeNull();
      const report = await billing(final);
      expect(report.settle.failed).toBe(0);
      const account = report.accounts.find((a) => a.provider === c.name && a.account === org.id)!;
      expect(Date.parse(account.complete_through!)).toBeGreaterThanOrEqual(releasedAt);

      const receipt = await receiptOf(lease.id);
      expect(receipt, "a receipt").not.toBeNull();
      const ledger = ledgerCost(machines);
      expect(receipt.status, `actual ${receipt.actual_usd}, estimate ${receipt.estimate_usd}`).toBe("settled");
      expect(receipt.window_count).toBeGreaterThanOrEqual(c.minRecords);
      expect(Math.abs(receipt.actual_usd - ledger), `receipt ${receipt.actual_usd}, ledger ${ledger}`).toBeLessThanOrEqual(receipt.window_count * c.roundingPerRecord + 1e-9);
      if (c.roundingPerRecord < 1e-4) expect(cents(receipt.actual_usd)).toBe(cents(ledger));
      else expect(Math.abs(receipt.actual_usd - ledger)).toBeLessThan(0.005);
      for (const w of receipt.windows) expect(machineIds).toContain(w.machine_id);

      // Every window is the provider's own record, with its own amount.
      if (c.name === "runpod") {
        const start = Math.floor(Date.parse(receipt.windows[0].window_start) / HOUR) * HOUR;
        const says = await providerSays("/v2/billing/pods", { bucketSize: "hour", startTime: new Date(start).toISOString(), endTime: new Date(start + 2 * HOUR).toISOString(), podId: machineIds[0]! });
        expect(receipt.windows.map((w: any) => [w.record_id, w.window_start, w.window_end, w.amount_usd])).toEqual(
          says.records.map((r: any) => [`${r.podId}:${new Date(r.startTime).toISOString()}`, new Date(r.startTime).toISOString(), new Date(r.endTime).toISOString(), r.totalAmount]),
        );
        // RunPod's hour is the stub's shortened window here: one record per second the machine billed.
        for (const w of receipt.windows) expect(Date.parse(w.window_end) - Date.parse(w.window_start)).toBe(W);
      } else {
        for (const w of receipt.windows) {
          const day = Date.parse(w.window_start);
          expect(Date.parse(w.window_end) - day).toBe(DAY);
          const says = await providerSays("/api/v0/charges", { select_filters: JSON.stringify({ day: { gte: day / 1000, lte: (day + DAY) / 1000 - 1 } }) });
          const row = says.results.find((r: any) => r.source === `instance-${w.machine_id}`);
          expect(w.record_id).toBe(`instance-${w.machine_id}:${w.window_start.slice(0, 10)}`);
          expect(w.amount_usd).toBe(row.amount);
        }
        // Its parts are Vast's items (a stopped second of disk is $0.000 at 3 decimals).
        expect(Object.keys(receipt.components).sort()).toEqual(["disk_usd", "gpu_usd"]);
      }
      const view = await getLease(key, lease.id);
      expect(view.billing).toMatchObject({ status: "settled", actual_usd: receipt.actual_usd, receipt_id: receipt.id, estimate: { label: "estimate" } });

      // Again, a second and a minute later, and a window later (each run fetches again from a little before
      // where the last was complete, so the lease's records are answered again), and at the real
      // clock once more: nothing changes.
      const before = await snapshot(lease.id, machineIds);
      expect(before.records).toHaveLength(receipt.window_count);
      // (Never at the same millisecond: a run counts what it stored by its own `now`.)
      await billing(final + 1000);
      await billing(final + 60_000);
      await billing(final + c.windowMs);
      await billing(Date.now());
      expect(await snapshot(lease.id, machineIds)).toEqual(before);
      expect(await receiptOf(lease.id)).toEqual(receipt);
      expect((await admin().getViolations()).violations).toEqual([]);
    },
  );
});
