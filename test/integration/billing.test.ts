/**
 * Billing: accrual, reconciliation into receipts, budgets, usage and receipts, against
 * the sim's own billing records and ledger. The sim's billing window is 500 ms here instead of an
 * hour (its `billing_window_ms` setting), so a simulated day of 24 windows closes in 12 s; prices
 * stay per real hour, so every amount is what that time really costs. Receipts come only from the
 * sim's records, fetched by the cron's billing step; the comparison is against the sim's ledger.
 */
import { createScheduledController, env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../functions/index";
import { runBilling, type BillingReport } from "../../src/billing/reconcile";
import { SimProvider } from "../../src/providers/sim/adapter";
import { call, createKey, createOrg, expectError, json, refreshCatalog, type TestOrg } from "./helpers";
import { createLease, events, getLease, machinesOf, sim, waitFor, waitForState } from "./lease-helpers";
import { ledgerCost } from "../support/ledger-cost";

/** One simulated hour. */
const W = 500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let org: TestOrg;
let key: string;

beforeAll(async () => {
  org = await createOrg("billing");
  key = (await createKey(org, "write")).secret;
  await refreshCatalog();
  // One sim for the whole file, never reset: its ledger and records are the truth every test checks.
  await sim().reset();
  await sim().setFaults({ provision_delay_ms: 50, boot_delay_ms: 100, billing_window_ms: W });
});

async function billing(): Promise<BillingReport> {
  const report = await runBilling(env, Date.now());
  if ("skipped" in report) throw new Error("billing step skipped: another run holds its lock");
  for (const a of report.accounts) if (a.error) throw new Error(`billing fetch failed: ${a.error}`);
  return report;
}

/** Waits until the window holding `t` has closed (and, with no delay, been published). */
async function windowClosed(t: number) {
  const end = (Math.floor(t / W) + 1) * W;
  if (Date.now() < end) await sleep(end - Date.now() + 20);
}

const cents = (usd: number) => Math.round(usd * 100);
const act = (id: string, action: string, body: unknown = {}) => call("POST", `/v1/leases/${id}/${action}`, { key, body });
async function receiptOf(id: string) {
  const list = await json(await call("GET", `/v1/receipts?lease_id=${id}`, { key }));
  expect(list.data.length, `receipts of ${id}`).toBeLessThanOrEqual(1);
  if (list.data.length === 0) return null;
  const res = await call("GET", `/v1/receipts/${list.data[0].id}`, { key });
  expect(res.status).toBe(200);
  return json(res);
}

/** D1's billing tables as they are, for "changes nothing". */
async function snapshot() {
  const all = async (q: string) => (await env.DB.prepare(q).all()).results;
  return {
    records: await all("SELECT * FROM billing_records ORDER BY provider, record_id"),
    receipts: await all("SELECT * FROM receipts ORDER BY id"),
    leases: await all("SELECT id, billing_status, estimate_micro_usd, accrual, version FROM leases ORDER BY id"),
  };
}

const day: Record<string, any> = {};

describe("guarantee 7: a receipt comes only from the provider's billing for closed windows; the estimate is labelled; a settled receipt never changes; a mismatch is disputed", () => {
  it("a simulated day of leases crossing hour boundaries, stops and restarts: every receipt equals the sim's ledger to the cent", async () => {
    // A lease that never runs: the sim has no capacity for it.
    await sim().setFaults({ no_capacity_rate: 1 });
    const never = await createLease(key, { kind: "scratch", spec: { gpu: "rtx4090:1" } });
    await waitForState(key, never.id, "released");
    await sim().setFaults({ no_capacity_rate: 0 });

    const t0 = Date.now();
    const at = async (hour: number) => {
      const t = t0 + hour * W;
      if (Date.now() < t) await sleep(t - Date.now());
    };
    const big = await createLease(key, { kind: "scratch", spec: { gpu: "h100:8" }, policy: { ttl: "1h", idle_timeout: null } });
    const job = await createLease(key, { kind: "job", cmd: "hang", spec: { gpu: "l40s:1" } });
    await waitForState(key, big.id, "ready");

    // While it runs, the estimate is labelled and grows; the billing is accruing.
    const early = await getLease(key, big.id);
    expect(early.billing).toMatchObject({ status: "accruing", actual_usd: null, receipt_id: null, estimate: { label: "estimate" } });
    await sleep(300);
    const later = await getLease(key, big.id);
    expect(later.billing.estimate.amount_usd).toBeGreaterThan(early.billing.estimate.amount_usd);
    expect(later.billing.estimate.hourly_usd).toBe(later.hourly_usd);

    await at(2);
    const deployment = await createLease(key, { kind: "deployment", spec: { gpu: "a100-80gb:1" }, policy: { ttl: "4s", idle_timeout: null } });
    await at(4);
    const idle = await createLease(key, { kind: "scratch", spec: { gpu: "rtx4090:1" }, policy: { idle_timeout: "2s", heartbeat_grace: "1s" } });
    await at(6);
    expect((await act(big.id, "stop")).status).toBe(200);
    await at(8);
    expect((await act(job.id, "stop")).status).toBe(200);
    await at(10);
    await waitForState(key, big.id, "stopped");
    expect((await act(big.id, "start")).status).toBe(200);
    await at(16);
    await waitForState(key, idle.id, "stopped");
    expect((await act(idle.id, "end")).status).toBe(200);
    await at(20);
    expect((await act(big.id, "end")).status).toBe(200);
    await at(22);
    expect((await act(job.id, "end")).status).toBe(200);

    const leases = { big, job, deployment, idle };
    for (const l of Object.values(leases)) await waitForState(key, l.id, "released");
    expect((await getLease(key, deployment.id)).release_reason).toBe("ttl_expired");
    expect((await events(key, idle.id)).find((e) => e.type === "stop_requested")?.reason).toBe("idle_timeout");

    // Released, its windows not yet fetched: awaiting them, the estimate final and still labelled.
    const awaiting = await getLease(key, big.id);
    expect(awaiting.billing).toMatchObject({ status: "awaiting_windows", actual_usd: null, estimate: { label: "estimate" } });
    const lastRelease = Math.max(...(await Promise.all(Object.values(leases).map(async (l) => Date.parse((await getLease(key, l.id)).released_at)))));
    await windowClosed(lastRelease);
    const report = await billing();
    expect(report.settle.failed).toBe(0);
    expect(report.accounts[0]!.unattributed.records).toBe(0);

    const simRecords = new Map((await sim().getBilling({ from: 0 })).records.map((r) => [r.record_id, r]));
    for (const [name, l] of Object.entries(leases)) {
      const machines = await machinesOf(l.id);
      const ledger = ledgerCost(machines);
      const receipt = await receiptOf(l.id);
      expect(receipt, `${name} has a receipt`).not.toBeNull();
      expect(receipt.status, `${name}: actual ${receipt.actual_usd}, estimate ${receipt.estimate_usd}`).toBe("settled");
      // To the cent, and closer: each record is rounded to a millionth of a dollar.
      expect(cents(receipt.actual_usd), `${name}: receipt ${receipt.actual_usd}, ledger ${ledger}`).toBe(cents(ledger));
      expect(Math.abs(receipt.actual_usd - ledger)).toBeLessThanOrEqual(receipt.window_count * 1e-6 + 1e-9);
      // Every window is the sim's own record, with its amount.
      for (const w of receipt.windows) {
        const r = simRecords.get(w.record_id);
        expect(r, w.record_id).toBeDefined();
        expect(w.amount_usd).toBe(r!.amount_usd);
        expect(machines.map((m) => m.id)).toContain(r!.machine_id);
      }
      expect(receipt.window_count, `${name} crossed hour boundaries`).toBeGreaterThanOrEqual(2);
      const lease = await getLease(key, l.id);
      expect(lease.billing).toMatchObject({ status: "settled", actual_usd: receipt.actual_usd, receipt_id: receipt.id, estimate: { label: "estimate" } });
      expect(receipt.estimate_usd).toBe(lease.billing.estimate.amount_usd);
      day[name] = { lease: l, receipt, ledger };
    }
    // The stopped hours billed the disk, and the restart began a new session.
    expect(day.big.receipt.components.stopped_seconds).toBeGreaterThan(1);
    expect(day.job.receipt.components.stopped_seconds).toBeGreaterThan(1);
    expect(day.big.receipt.window_count).toBeGreaterThanOrEqual(18);

    // The lease that never ran: nothing billed, no receipt.
    const none = await getLease(key, never.id);
    expect(none.billing).toMatchObject({ status: "none", actual_usd: null, receipt_id: null, estimate: { amount_usd: 0 } });
    expect(await receiptOf(never.id)).toBeNull();
    day.never = never;
  });

  it("a repeated cron run, or one over windows already fetched, changes nothing", async () => {
    const before = await snapshot();
    expect(before.receipts.length).toBeGreaterThanOrEqual(4);
    await billing();
    await billing();
    // The whole cron, as the trigger runs it.
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), env);
    // Forget how far the last run got: the next fetches every window again, from the start.
    await env.DB.prepare("DELETE FROM billing_cursors").run();
    await billing();
    const after = await snapshot();
    expect(after.records).toEqual(before.records);
    expect(after.receipts).toEqual(before.receipts);
    expect(after.leases).toEqual(before.leases);
    // Two runs at once (the second usually finds the first holding the lock): still nothing changes.
    const [a, b] = await Promise.all([runBilling(env, Date.now()), runBilling(env, Date.now())]);
    expect(["skipped" in a, "skipped" in b].filter(Boolean).length).toBeLessThanOrEqual(1);
    const again = await snapshot();
    expect(again.records).toEqual(before.records);
    expect(again.receipts).toEqual(before.receipts);
    expect(again.leases).toEqual(before.leases);
  });

  it("a record that arrives late keeps the lease awaiting_windows, never settled early", async () => {
    // The sim publishes a window's records a minute after it closes.
    await sim().setFaults({ billing_delay_ms: 60_000 });
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1" } });
    await waitForState(key, lease.id, "ready");
    await sleep(3 * W);
    await act(lease.id, "end");
    const released = await waitForState(key, lease.id, "released");
    await windowClosed(Date.parse(released.released_at));
    await sleep(W);
    await billing();
    await billing();
    // Every window it touched has closed, but not every record is published: no receipt yet.
    expect((await getLease(key, lease.id)).billing.status).toBe("awaiting_windows");
    expect(await receiptOf(lease.id)).toBeNull();

    await sim().setFaults({ billing_delay_ms: 0 });
    await billing();
    const receipt = await receiptOf(lease.id);
    expect(receipt.status).toBe("settled");
    expect(cents(receipt.actual_usd)).toBe(cents(ledgerCost(await machinesOf(lease.id))));
    expect((await getLease(key, lease.id)).billing.status).toBe("settled");
  });

  it("a mismatch beyond max($0.01, 1%) is disputed with both figures kept; a settled receipt never changes", async () => {
    // The provider bills twice its price (a billing error of its own).
    await sim().setFaults({ billing_markup: 1 });
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "h100:8" } });
    await waitForState(key, lease.id, "ready");
    await sleep(6 * W);
    await act(lease.id, "end");
    const released = await waitForState(key, lease.id, "released");
    await windowClosed(Date.parse(released.released_at));
    await billing();
    await sim().setFaults({ billing_markup: 0 });

    const receipt = await receiptOf(lease.id);
    const ledger = ledgerCost(await machinesOf(lease.id));
    expect(receipt.status).toBe("disputed");
    expect(cents(receipt.actual_usd)).toBe(cents(2 * ledger));
    expect(receipt.actual_usd - receipt.estimate_usd).toBeGreaterThan(0.01);
    expect(receipt.difference_usd).toBeCloseTo(receipt.actual_usd - receipt.estimate_usd, 6);
    const view = await getLease(key, lease.id);
    expect(view.billing).toMatchObject({ status: "disputed", actual_usd: receipt.actual_usd, receipt_id: receipt.id });
    expect(view.billing.estimate.amount_usd).toBe(receipt.estimate_usd);
    expect((await json(await call("GET", "/v1/receipts?status=disputed", { key }))).data.map((r: any) => r.id)).toEqual([receipt.id]);

    // Fetching every window again, now billed right, changes no receipt.
    await env.DB.prepare("DELETE FROM billing_cursors").run();
    await billing();
    expect(await receiptOf(lease.id)).toEqual(receipt);
    // And the table itself refuses a change.
    await expect(env.DB.prepare("UPDATE receipts SET actual_micro_usd = 0 WHERE id = ?").bind(receipt.id).run()).rejects.toThrow(/never changes/);
    day.disputed = { lease, receipt };
  });

  it("a record for a machine no lease owns is kept and reported as unattributed", async () => {
    const provider = new SimProvider(env);
    const offer = (await provider.listOffers()).offers.find((o) => o.gpu === "l4")!;
    const stranger = await provider.createMachine({ label: "someone-elses-notebook", offer_id: offer.provider_offer_id });
    await sleep(3 * W);
    await provider.destroyMachine(stranger.id);
    await windowClosed(Date.now());
    const report = await billing();
    expect(report.accounts[0]!.unattributed.records).toBeGreaterThanOrEqual(2);
    const rows = (await env.DB.prepare("SELECT lease_id, org_id, amount_micro_usd FROM billing_records WHERE machine_id = ?").bind(stranger.id).all<any>()).results;
    expect(rows.length).toBe(report.accounts[0]!.unattributed.records);
    for (const r of rows) expect(r).toMatchObject({ lease_id: null, org_id: null });
    const total = rows.reduce((s, r) => s + r.amount_micro_usd, 0) / 1e6;
    expect(report.accounts[0]!.unattributed.amount_usd).toBeCloseTo(total, 6);
    // It is no org's spend.
    const usage = await json(await call("GET", "/v1/usage?group_by=lease", { key }));
    expect(JSON.stringify(usage)).not.toContain(stranger.id);
  });
});

describe("GET /v1/usage and GET /v1/receipts", () => {
  it("answer estimate, actual and disputed per provider, GPU, lease and day; never a cost for a lease that never ran", async () => {
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const receipts = (await json(await call("GET", "/v1/receipts?limit=200", { key }))).data;
    const actual = receipts.reduce((s: number, r: any) => s + r.actual_usd, 0);
    const disputed = receipts.filter((r: any) => r.status === "disputed").reduce((s: number, r: any) => s + r.actual_usd, 0);
    const estimate = receipts.reduce((s: number, r: any) => s + r.estimate_usd, 0);
    for (const group of ["provider", "gpu", "lease", "day"]) {
      const res = await call("GET", `/v1/usage?from=${from}&group_by=${group}`, { key });
      expect(res.status).toBe(200);
      const u = await json(res);
      expect(u.group_by).toBe(group);
      expect(u.totals.actual_usd).toBeCloseTo(actual, 6);
      expect(u.totals.disputed_usd).toBeCloseTo(disputed, 6);
      expect(Math.abs(u.totals.estimate_usd - estimate)).toBeLessThan(receipts.length * 2e-6);
      expect(u.data.reduce((s: number, r: any) => s + r.actual_usd, 0)).toBeCloseTo(actual, 6);
      expect(u.totals.leases).toBe(receipts.length);
    }
    const byLease = await json(await call("GET", `/v1/usage?from=${from}&group_by=lease`, { key }));
    const keys = byLease.data.map((r: any) => r.key);
    expect(keys).not.toContain(day.never.id);
    const big = byLease.data.find((r: any) => r.key === day.big.lease.id);
    expect(big).toMatchObject({ provider: "sim", gpu: "h100", billing_status: "settled", actual_usd: day.big.receipt.actual_usd, disputed_usd: 0 });
    expect(byLease.data.find((r: any) => r.key === day.disputed.lease.id)).toMatchObject({ billing_status: "disputed", disputed_usd: day.disputed.receipt.actual_usd });
    const byGpu = await json(await call("GET", `/v1/usage?from=${from}&group_by=gpu`, { key }));
    expect(byGpu.data.map((r: any) => r.key)).toEqual(expect.arrayContaining(["h100", "l40s", "a100-80gb", "rtx4090"]));
    const byDay = await json(await call("GET", `/v1/usage?from=${from}&group_by=day`, { key }));
    for (const r of byDay.data) expect(r.key).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // A range before anything ran is empty.
    const empty = await json(await call("GET", "/v1/usage?from=2020-01-01&to=2020-02-01", { key }));
    expect(empty).toMatchObject({ data: [], totals: { estimate_usd: 0, actual_usd: 0, disputed_usd: 0, leases: 0 } });
    await expectError(await call("GET", "/v1/usage?from=yesterday", { key }), 400);
    await expectError(await call("GET", "/v1/usage?from=2026-02-01&to=2026-01-01", { key }), 400, "invalid_range");
    await expectError(await call("GET", "/v1/usage?group_by=color", { key }), 400);
  });

  it("lists receipts newest first with cursor pagination; a receipt carries its windows; another org's answers 404", async () => {
    const all = (await json(await call("GET", "/v1/receipts?limit=200", { key }))).data;
    expect(all.length).toBeGreaterThanOrEqual(6);
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await json(await call("GET", `/v1/receipts?limit=2${cursor ? `&cursor=${cursor}` : ""}`, { key }));
      expect(page.data.length).toBeLessThanOrEqual(2);
      for (const r of page.data) expect(r.windows).toBeUndefined();
      ids.push(...page.data.map((r: any) => r.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(ids).toEqual(all.map((r: any) => r.id));
    expect([...ids].sort().reverse()).toEqual(ids);
    const other = await createOrg("billing-other");
    await expectError(await call("GET", `/v1/receipts/${ids[0]}`, { key: other.adminKey }), 404, "not_found");
    expect((await json(await call("GET", "/v1/receipts", { key: other.adminKey }))).data).toEqual([]);
    await expectError(await call("GET", "/v1/receipts?cursor=nope", { key }), 400, "invalid_cursor");
  });
});

describe("budgets", () => {
  it("GET/PUT /v1/budget: caps in dollars, null removes one, fields left out keep theirs; admin only", async () => {
    const o = await createOrg("budget-caps");
    expect(await json(await call("GET", "/v1/budget", { key: o.adminKey }))).toMatchObject({ monthly_usd: null, concurrent_hourly_usd: null, month_committed_usd: 0, live_hourly_usd: 0 });
    const put = await call("PUT", "/v1/budget", { key: o.adminKey, body: { monthly_usd: 250.5, concurrent_hourly_usd: 12 } });
    expect(put.status).toBe(200);
    expect(await json(put)).toMatchObject({ monthly_usd: 250.5, concurrent_hourly_usd: 12 });
    expect(await json(await call("PUT", "/v1/budget", { key: o.adminKey, body: { concurrent_hourly_usd: null } }))).toMatchObject({ monthly_usd: 250.5, concurrent_hourly_usd: null });
    const writer = (await createKey(o, "write")).secret;
    await expectError(await call("PUT", "/v1/budget", { key: writer, body: { monthly_usd: 1 } }), 403, "insufficient_scope");
    expect((await json(await call("GET", "/v1/budget", { key: writer }))).monthly_usd).toBe(250.5);
    await expectError(await call("PUT", "/v1/budget", { key: o.adminKey, body: { monthly_usd: -1 } }), 400);
    await expectError(await call("PUT", "/v1/budget", { key: o.adminKey, body: { monthly_usd: 1, daily_usd: 1 } }), 400);
  });

  it("a lease that would pass a cap is refused 402 over_budget, and nothing is rented", async () => {
    const o = await createOrg("budget-refused");
    const machinesBefore = (await sim().getLedger()).machines.length;
    // $0.50 a month; an l40s for an hour costs more than that.
    await call("PUT", "/v1/budget", { key: o.adminKey, body: { monthly_usd: 0.5 } });
    const e = await expectError(await call("POST", "/v1/leases", { key: o.adminKey, body: { kind: "scratch", spec: { gpu: "l40s:1" }, policy: { ttl: "1h" } } }), 402, "over_budget");
    expect(e.details).toMatchObject({ cap: "monthly", limit_usd: 0.5, committed_usd: 0 });
    expect(e.details.requested_usd).toBeGreaterThan(0.5);
    // A lease with no cost ceiling cannot be admitted under a monthly cap.
    const uncapped = await expectError(
      await call("POST", "/v1/leases", { key: o.adminKey, body: { kind: "job", cmd: "hang", spec: { gpu: "l4:1" }, policy: { ttl: null, max_lifetime: null } } }),
      402,
      "over_budget",
    );
    expect(uncapped.details).toMatchObject({ cap: "monthly", requested_usd: null });
    // The hourly cap.
    await call("PUT", "/v1/budget", { key: o.adminKey, body: { monthly_usd: null, concurrent_hourly_usd: 0.1 } });
    const h = await expectError(await call("POST", "/v1/leases", { key: o.adminKey, body: { kind: "scratch", spec: { gpu: "l4:1" } } }), 402, "over_budget");
    expect(h.details).toMatchObject({ cap: "concurrent_hourly", limit_usd: 0.1, committed_usd: 0 });
    // Nothing was rented, no lease exists.
    expect((await sim().getLedger()).machines.length).toBe(machinesBefore);
    expect((await json(await call("GET", "/v1/leases", { key: o.adminKey }))).data).toEqual([]);
  });

  it("concurrent creates cannot both pass a cap; a released lease gives its place back", async () => {
    const o = await createOrg("budget-race");
    const quote = await json(await call("POST", "/v1/quotes", { key: o.adminKey, body: { spec: { gpu: "l4:1" }, policy: { ttl: "1h" } } }));
    // Room for one lease at this rate, not two.
    await call("PUT", "/v1/budget", { key: o.adminKey, body: { concurrent_hourly_usd: Math.round(quote.hourly_usd * 1.5 * 10_000) / 10_000 } });
    const machinesBefore = (await sim().getLedger()).machines.length;
    const answers = await Promise.all(Array.from({ length: 6 }, () => call("POST", "/v1/leases", { key: o.adminKey, body: { kind: "scratch", quote_id: quote.id } })));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([202, 402, 402, 402, 402, 402]);
    const admitted = await json(answers.find((r) => r.status === 202)!);
    await waitForState(o.adminKey, admitted.id, "ready");
    expect((await sim().getLedger()).machines.length).toBe(machinesBefore + 1);
    // A lease made from a quote holds its rate at the most the quote lets it be rented for (5% above).
    expect((await json(await call("GET", "/v1/budget", { key: o.adminKey }))).live_hourly_usd).toBeCloseTo(quote.hourly_usd * 1.05, 6);

    await call("POST", `/v1/leases/${admitted.id}/end`, { key: o.adminKey, body: {} });
    await waitForState(o.adminKey, admitted.id, "released");
    await waitFor("the index to show it released", async () => (await json(await call("GET", "/v1/budget", { key: o.adminKey }))).live_hourly_usd === 0);
    const again = await call("POST", "/v1/leases", { key: o.adminKey, body: { kind: "scratch", quote_id: quote.id } });
    expect(again.status).toBe(202);
    await call("POST", `/v1/leases/${(await json(again)).id}/end`, { key: o.adminKey, body: {} });
  });

  it("max_session_usd stops the lease with budget_exceeded when its accrued estimate reaches the cap, on time", async () => {
    // An 8-GPU H100 bills about $17-23 an hour: a cent is a couple of seconds.
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "h100:8" }, policy: { max_session_usd: 0.01, idle_timeout: null } });
    const ready = await waitForState(key, lease.id, "ready");
    expect(ready.guard).toMatchObject({ action: "release", reason: "budget_exceeded", due: false });
    const deadline = Date.parse(ready.guard.at);
    const released = await waitForState(key, lease.id, "released", 20_000);
    expect(released.release_reason).toBe("budget_exceeded");
    const requested = (await events(key, lease.id)).find((e) => e.type === "release_requested")!;
    expect(requested.reason).toBe("budget_exceeded");
    // The alarm acted at the deadline, not a poll later.
    expect(Date.parse(requested.at) - deadline).toBeGreaterThanOrEqual(0);
    expect(Date.parse(requested.at) - deadline).toBeLessThan(1_000);
    // At the deadline the estimate had reached the cap; the machine ran until it was destroyed.
    const est = released.billing.estimate;
    expect(est.amount_usd).toBeGreaterThanOrEqual(0.01);
    expect(est.amount_usd).toBeLessThan(0.01 + (released.hourly_usd * 1.5) / 3600);
  });
});
