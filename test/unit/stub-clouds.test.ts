/**
 * The stub clouds (test/support/stub-clouds/) themselves, over real HTTP on loopback: what the
 * server says and refuses, and the providers' billing reads, through the real adapters. Every
 * request and answer passes through the provider's ContractStub, and after each test no violation
 * may have been recorded. What every adapter does against its cloud is providers-adapters.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { installationPrefix, machineLabel } from "../../src/lease/label";
import type { BillingRecord, Provider } from "../../src/providers/contract";
import { RUNPOD_BILLING_LAG_MS, runpodStoppedHourlyUsd } from "../../src/providers/runpod/adapter";
import { VAST_BILLING_LAG_MS } from "../../src/providers/vast/adapter";
import { HOUR_MS } from "../../src/providers/sim/machines";
import { STUB_API_KEYS, stubCloudsHealth, stubCloudsViolations } from "../support/stub-clouds-admin";
import { SIM_DEFAULT_FAULTS } from "../../src/providers/sim/faults";
import { rfc3339 } from "../../src/time";
import { cheapestOffer as offerOf, PROVISION_MS, STUB_T0 as T0, leaseLabels, STUB_INSTALLATION, useStubClouds } from "../support/stub-clouds/harness";
import { ledgerCost } from "../support/ledger-cost";

const h = useStubClouds();
const { served, admin, adapter } = h;

const INSTALLATION = STUB_INSTALLATION;
const LEASE = "ls_01jstubclouds";
const { label, prefix: PREFIX } = leaseLabels(LEASE);

describe("the stub clouds server", () => {
  it("says what it serves", async () => {
    const health = await stubCloudsHealth(h.clouds.url);
    expect(health.ok).toBe(true);
    expect(health.providers.length + Object.keys(health.missing).length).toBe(3);
  });

  it("records a request the document refuses as a violation, and answers it 400 (so the check can fail)", async ({ skip }) => {
    if (!served("runpod")) skip();
    // `GET /v2/pods` takes no `name` filter in RunPod's document.
    const res = await fetch(`${h.clouds.baseUrl("runpod")}/v2/pods?name=lessor-`, { headers: { authorization: `Bearer ${STUB_API_KEYS.runpod}` } });
    expect(res.status).toBe(400);
    const { violations } = await stubCloudsViolations(h.clouds.url);
    expect(violations.runpod?.map((v) => v.message).join("\n")).toMatch(/listPods .*query parameter "name" is not in the document/);
    await admin("runpod").clearViolations();
    expect((await admin("runpod").getViolations()).violations).toEqual([]);
  });

  it("records an operation the document has but the stub does not serve as a violation (a gap is loud)", async ({ skip }) => {
    if (!served("runpod")) skip();
    const res = await fetch(`${h.clouds.baseUrl("runpod")}/v2/templates`, { headers: { authorization: `Bearer ${STUB_API_KEYS.runpod}` } });
    expect(res.status).toBe(500);
    expect((await admin("runpod").getViolations()).violations.map((v) => v.message).join()).toMatch(/does not serve listTemplates/);
    await admin("runpod").clearViolations();
  });

  it("refuses faults the sim's schema refuses, and merges the rest", async ({ skip }) => {
    if (!served("vast")) skip();
    await expect(admin("vast").setFaults({ api_error_rate: 2 })).rejects.toThrow(/400/);
    await expect(admin("vast").setFaults({ nonsense: 1 } as never)).rejects.toThrow(/400/);
    expect(await admin("vast").setFaults({ boot_delay_ms: 10 })).toEqual({ ...SIM_DEFAULT_FAULTS, boot_delay_ms: 10 });
    await admin("vast").reset();
    expect(await admin("vast").getFaults()).toEqual(SIM_DEFAULT_FAULTS);
  });

  it("Vast: listing by an installation's prefix pages through more than one page of 25", async ({ skip }) => {
    if (!served("vast")) skip();
    h.clock = T0;
    await admin("vast").reset();
    const provider = adapter("vast");
    const offer = await offerOf(provider, "l4");
    // One machine each for 30 leases (a lease's own listing is filtered on the server instead).
    for (let n = 1; n <= 30; n++) await provider.createMachine({ label: machineLabel(INSTALLATION, `${LEASE}${n}`, 1), offer_id: offer.provider_offer_id });
    await provider.createMachine({ label: machineLabel("other", LEASE, 1), offer_id: offer.provider_offer_id });
    expect(await provider.listMachines(installationPrefix(INSTALLATION))).toHaveLength(30);
    expect((await admin("vast").getViolations()).violations).toEqual([]);
  });

  it("RunPod: GET /v2/billing/pods answers hourly buckets from the same records", async ({ skip }) => {
    if (!served("runpod")) skip();
    h.clock = T0;
    await admin("runpod").reset();
    const provider = adapter("runpod");
    const created = await provider.createMachine({ label: label(1), offer_id: (await offerOf(provider, "l40s")).provider_offer_id });
    h.clock += 30 * 60_000;
    await provider.stopMachine(created.id);
    h.clock += 2 * HOUR_MS;
    const qs = new URLSearchParams({ bucketSize: "hour", startTime: new Date(T0).toISOString(), endTime: new Date(T0 + 2 * HOUR_MS).toISOString(), podId: created.id });
    const res = await fetch(`${h.clouds.baseUrl("runpod")}/v2/billing/pods?${qs}`, { headers: { authorization: `Bearer ${STUB_API_KEYS.runpod}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    const { records } = await admin("runpod").getBilling({ from: T0 });
    expect(body.records.map((r: any) => [r.startTime, r.podId, r.totalAmount])).toEqual(records.map((r) => [new Date(r.window_start).toISOString().replace(".000", ""), r.machine_id, r.amount_usd]));
    // 12:00-13:00 ran half an hour then stopped; 13:00-14:00 was stopped: the kept 50 GB container
    // disk bills while stopped (a stop keeps the pod's disk), half an hour then a whole one.
    const diskHourly = runpodStoppedHourlyUsd(50, 0);
    expect(body.records.map((r: any) => r.diskAmount)).toEqual([diskHourly / 2, diskHourly].map((x) => Math.round(x * 1e6) / 1e6));
    expect(body.metadata).toMatchObject({ recordCount: 2, uniquePodCount: 1, query: { bucketSize: "hour", podId: created.id } });
    expect((await admin("runpod").getViolations()).violations).toEqual([]);
  });

  it("RunPod: the sim's billing knobs hold (a shortened window is RunPod's hour; markup; publishing delay)", async ({ skip }) => {
    if (!served("runpod")) skip();
    h.clock = T0;
    await admin("runpod").reset();
    await admin("runpod").setFaults({ billing_window_ms: 60_000, billing_markup: 0.1, billing_delay_ms: 60_000 });
    const provider = adapter("runpod");
    const offer = await offerOf(provider, "l40s");
    const created = await provider.createMachine({ label: label(1), offer_id: offer.provider_offer_id });
    h.clock += 4 * 60_000;
    const sim = await admin("runpod").getBilling({ from: T0 });
    // Four one-minute windows closed; the last is not published yet (a minute's delay).
    expect(sim).toMatchObject({ window_ms: 60_000, complete_through: T0 + 3 * 60_000 });
    expect(sim.records.map((r) => r.window_start)).toEqual([T0, T0 + 60_000, T0 + 120_000]);
    expect(sim.records[1]!.amount_usd).toBeCloseTo((offer.hourly_usd / 60) * 1.1, 6);
    const qs = new URLSearchParams({ bucketSize: "hour", startTime: new Date(T0).toISOString(), podId: created.id });
    const body = (await (await fetch(`${h.clouds.baseUrl("runpod")}/v2/billing/pods?${qs}`, { headers: { authorization: `Bearer ${STUB_API_KEYS.runpod}` } })).json()) as any;
    expect(body.records.map((r: any) => [Date.parse(r.startTime), Date.parse(r.endTime) - Date.parse(r.startTime), r.totalAmount])).toEqual(
      sim.records.map((r) => [r.window_start, 60_000, r.amount_usd]),
    );
    expect(body.records[1].gpuAmount).toBeCloseTo(body.records[1].totalAmount, 6);
    expect((await admin("runpod").getViolations()).violations).toEqual([]);
  });

  it("Vast: GET /api/v0/charges answers per-instance charges for a day range", async ({ skip }) => {
    if (!served("vast")) skip();
    h.clock = T0;
    await admin("vast").reset();
    const provider = adapter("vast");
    const created = await provider.createMachine({ label: label(1), offer_id: (await offerOf(provider, "l4")).provider_offer_id });
    h.clock += 3 * HOUR_MS;
    const day = Date.UTC(2026, 5, 1) / 1000;
    const qs = new URLSearchParams({ select_filters: JSON.stringify({ day: { gte: day, lte: day + 86_399 } }) });
    const res = await fetch(`${h.clouds.baseUrl("vast")}/api/v0/charges?${qs}`, { headers: { authorization: `Bearer ${STUB_API_KEYS.vast}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    const { records } = await admin("vast").getBilling({ from: T0 });
    const total = records.reduce((s, r) => s + r.amount_usd, 0);
    expect(body.results).toHaveLength(1);
    expect(body.results[0]).toMatchObject({ source: `instance-${created.id}`, metadata: { label: label(1) } });
    expect(body.results[0].amount).toBeCloseTo(total, 3);
    expect((await admin("vast").getViolations()).violations).toEqual([]);
  });
});

const DAY_MS = 24 * HOUR_MS;
const sum = (records: readonly BillingRecord[]) => records.reduce((s, r) => s + r.amount_usd, 0);
const byId = (records: readonly BillingRecord[]) => new Map(records.map((r) => [r.record_id, r]));

/** The stub's own answer, in the provider's words, read straight from it (the ContractStub checks this call too). */
async function raw(p: "runpod" | "vast", query: Record<string, string>): Promise<any> {
  const path = p === "runpod" ? "/v2/billing/pods" : "/api/v0/charges";
  const res = await fetch(`${h.clouds.baseUrl(p)}${path}?${new URLSearchParams(query)}`, { headers: { authorization: `Bearer ${STUB_API_KEYS[p]}` } });
  expect(res.status).toBe(200);
  return res.json();
}

/** Vast's charges for one UTC day, as the stub answers them. */
const vastDay = (day: number) => raw("vast", { select_filters: JSON.stringify({ day: { gte: day / 1000, lte: (day + DAY_MS) / 1000 - 1 } }), limit: "500" });

describe("billing records through the real adapters (listBillingRecords)", () => {
  beforeEach(async (ctx) => {
    const p = ctx.task.name.startsWith("RunPod") ? "runpod" : "vast";
    if (!served(p)) ctx.skip();
    h.clock = T0;
    await admin(p).reset();
  });

  afterEach(async (ctx) => {
    const p = ctx.task.name.startsWith("RunPod") ? "runpod" : "vast";
    if (served(p)) expect((await admin(p).getViolations()).violations).toEqual([]);
  });

  /** One machine that runs, stops, starts and is destroyed; one destroyed while provisioning (never billed). */
  async function lifeOf(provider: Provider, gpu: string, at: { stop: number; start: number; destroy: number }) {
    const offer = await offerOf(provider, gpu);
    const m = await provider.createMachine({ label: label(1), offer_id: offer.provider_offer_id });
    const unbilled = await provider.createMachine({ label: label(2), offer_id: offer.provider_offer_id });
    h.clock += PROVISION_MS / 2;
    await provider.destroyMachine(unbilled.id);
    h.clock = at.stop;
    await provider.stopMachine(m.id);
    h.clock = at.start;
    await provider.startMachine(m.id);
    h.clock = at.destroy;
    await provider.destroyMachine(m.id);
    return { machine: m, unbilled };
  }

  it("RunPod: one record per pod per closed hour, id <pod>:<hour>, the same across two fetches and overlapping windows; amounts are RunPod's own and add up to the ledger", async () => {
    const provider = adapter("runpod");
    const { machine, unbilled } = await lifeOf(provider, "l4", { stop: T0 + 90 * 60_000, start: T0 + 120 * 60_000, destroy: T0 + 150 * 60_000 });
    h.clock = T0 + 5 * HOUR_MS;
    const first = await provider.listBillingRecords!({ from: T0 - 2 * HOUR_MS, to: h.clock });
    // 17:00 less the hour's lag: every bucket ending by 16:00 is final.
    expect(first.complete_through).toBe(T0 + 4 * HOUR_MS);
    expect(first.records.map((r) => [r.record_id, r.machine_id, r.window_start, r.window_end])).toEqual(
      [0, 1, 2].map((h) => [`${machine.id}:${new Date(T0 + h * HOUR_MS).toISOString()}`, machine.id, T0 + h * HOUR_MS, T0 + (h + 1) * HOUR_MS]),
    );
    // Never a record for the pod that billed nothing.
    expect(first.records.some((r) => r.machine_id === unbilled.id)).toBe(false);

    // Each is RunPod's record as it answers it: totalAmount, and its parts.
    const words = await raw("runpod", { bucketSize: "hour", startTime: rfc3339(T0), endTime: rfc3339(T0 + 4 * HOUR_MS) });
    expect(first.records.map((r) => [r.amount_usd, r.components])).toEqual(
      words.records.map((w: any) => [w.totalAmount, { gpu_usd: w.gpuAmount, cpu_usd: w.cpuAmount, disk_usd: w.diskAmount }]),
    );
    // And the cloud's own ledger: each bucket is one sim window, rounded to a millionth.
    const sim = await admin("runpod").getBilling({ from: T0 });
    expect(first.records.map((r) => r.amount_usd)).toEqual(sim.records.map((r) => r.amount_usd));
    const ledger = ledgerCost((await admin("runpod").getLedger(PREFIX)).machines);
    expect(Math.abs(sum(first.records) - ledger)).toBeLessThanOrEqual(first.records.length * 1e-6);
    expect(Math.round(sum(first.records) * 100)).toBe(Math.round(ledger * 100));

    // A later fetch over an overlapping window answers the same records, with the same ids and amounts.
    h.clock += 30 * 60_000;
    const second = await provider.listBillingRecords!({ from: T0 + HOUR_MS + 1, to: h.clock });
    expect(second.records.map((r) => r.window_start)).toEqual([T0 + HOUR_MS, T0 + 2 * HOUR_MS]);
    for (const r of second.records) expect(byId(first.records).get(r.record_id)).toEqual(r);
    // Again, unchanged.
    expect(await provider.listBillingRecords!({ from: T0 - 2 * HOUR_MS, to: T0 + 5 * HOUR_MS })).toEqual(first);
  });

  it("RunPod: a bucket not yet final is not reported, nor complete_through past it, until the lag has passed", async () => {
    // RunPod publishes half an hour late here: within lessor's lag, so nothing is ever missed.
    await admin("runpod").setFaults({ billing_delay_ms: 30 * 60_000 });
    const provider = adapter("runpod");
    const offer = await offerOf(provider, "l40s");
    const m = await provider.createMachine({ label: label(1), offer_id: offer.provider_offer_id });
    h.clock = T0 + 90 * 60_000;
    await provider.destroyMachine(m.id);

    // 13:40: the 12:00 bucket closed 40 minutes ago, the 13:00 one is still open.
    h.clock = T0 + 100 * 60_000;
    expect(await provider.listBillingRecords!({ from: T0, to: h.clock })).toEqual({ records: [], complete_through: T0 });
    // 14:30: 12:00 is final; 13:00 closed only 30 minutes ago (and RunPod has just published it).
    h.clock = T0 + 150 * 60_000;
    const half = await provider.listBillingRecords!({ from: T0, to: h.clock });
    expect(half.complete_through).toBe(T0 + HOUR_MS);
    expect(half.records.map((r) => r.window_start)).toEqual([T0]);
    // Released at 13:30, the pod's lease cannot settle on this: its last bucket ends after complete_through.
    expect(half.complete_through).toBeLessThan(T0 + 90 * 60_000);
    // 15:00: both are final, and everything RunPod says of them is there.
    h.clock = T0 + 3 * HOUR_MS;
    const all = await provider.listBillingRecords!({ from: T0, to: h.clock });
    expect(all.complete_through).toBe(T0 + 2 * HOUR_MS);
    expect(all.records.map((r) => r.window_start)).toEqual([T0, T0 + HOUR_MS]);
    expect(all.records[0]).toEqual(half.records[0]);
    const sim = await admin("runpod").getBilling({ from: T0 });
    expect(sim.complete_through).toBeGreaterThanOrEqual(all.complete_through);
    expect(all.records.map((r) => r.amount_usd)).toEqual(sim.records.map((r) => r.amount_usd));
    expect(Math.round(sum(all.records) * 100)).toBe(Math.round(ledgerCost((await admin("runpod").getLedger(PREFIX)).machines) * 100));
    // The lag is the adapter's documented constant.
    expect(RUNPOD_BILLING_LAG_MS).toBe(HOUR_MS);
  });

  it("RunPod: a shortened billing hour (billing_window_ms) is followed record by record; ids stay unique and stable", async () => {
    await admin("runpod").setFaults({ billing_window_ms: 60_000 });
    const provider = adapter("runpod");
    const m = await provider.createMachine({ label: label(1), offer_id: (await offerOf(provider, "l4")).provider_offer_id });
    h.clock = T0 + 5 * 60_000 + 30_000;
    await provider.destroyMachine(m.id);
    h.clock = T0 + 3 * HOUR_MS;
    const listing = await provider.listBillingRecords!({ from: T0, to: h.clock });
    expect(listing.records.map((r) => r.window_end - r.window_start)).toEqual([60_000, 60_000, 60_000, 60_000, 60_000, 60_000]);
    expect(new Set(listing.records.map((r) => r.record_id)).size).toBe(6);
    expect(listing.records.map((r) => r.amount_usd)).toEqual((await admin("runpod").getBilling({ from: T0 })).records.map((r) => r.amount_usd));
    expect(await provider.listBillingRecords!({ from: T0 + 2 * 60_000, to: h.clock })).toEqual(listing);
  });

  it("Vast: one record per instance per closed UTC day, id instance-<id>:<day>, the same across two fetches and overlapping windows; amounts are Vast's own", async () => {
    const provider = adapter("vast");
    const { machine, unbilled } = await lifeOf(provider, "l4", { stop: T0 + 90 * 60_000, start: T0 + 120 * 60_000, destroy: T0 + 150 * 60_000 });
    // A second instance runs across midnight: 23:00 on June 1 to 01:00 on June 2.
    h.clock = T0 + 11 * HOUR_MS;
    const night = await provider.createMachine({ label: label(3), offer_id: (await offerOf(provider, "l40s")).provider_offer_id });
    h.clock = T0 + 13 * HOUR_MS;
    await provider.destroyMachine(night.id);

    const june1 = Date.UTC(2026, 5, 1);
    const june2 = june1 + DAY_MS;
    h.clock = june2 + DAY_MS + 3 * HOUR_MS;
    const first = await provider.listBillingRecords!({ from: T0 - 2 * HOUR_MS, to: h.clock });
    // June 3, 03:00 less the two hours' lag: every day ending by June 3, 00:00 is final.
    expect(first.complete_through).toBe(june2 + DAY_MS);
    expect(first.records.map((r) => [r.record_id, r.machine_id, r.window_start, r.window_end]).sort()).toEqual(
      [
        [`instance-${machine.id}:2026-06-01`, machine.id, june1, june2],
        [`instance-${night.id}:2026-06-01`, night.id, june1, june2],
        [`instance-${night.id}:2026-06-02`, night.id, june2, june2 + DAY_MS],
      ].sort(),
    );
    expect(first.records.some((r) => r.machine_id === unbilled.id)).toBe(false);

    // Each amount is Vast's day row, as the difference of two of its cumulative charges (exact
    // under either reading of a row's amount): to Vast's $0.001, with its items as parts.
    for (const day of [june1, june2]) {
      const words = await vastDay(day);
      for (const row of words.results) {
        const r = byId(first.records).get(`${row.source}:${new Date(day).toISOString().slice(0, 10)}`)!;
        expect(Math.abs(r.amount_usd - row.amount)).toBeLessThanOrEqual(0.0011);
        expect(Object.keys(r.components).sort()).toEqual(row.items.map((i: any) => `${i.type}_usd`).sort());
        for (const i of row.items) expect(Math.abs(r.components[`${i.type}_usd`]! - i.amount)).toBeLessThanOrEqual(0.0011);
      }
    }
    // Each instance's records add up to its ledger, within Vast's rounding of each row to $0.001.
    const ledger = (await admin("vast").getLedger(PREFIX)).machines;
    for (const m of [machine, night]) {
      const mine = first.records.filter((r) => r.machine_id === m.id);
      expect(Math.abs(sum(mine) - ledgerCost(ledger.filter((l) => l.id === m.id)))).toBeLessThanOrEqual(mine.length * 0.0005 + 1e-9);
    }
    // The stopped half hour billed the disk.
    expect(byId(first.records).get(`instance-${machine.id}:2026-06-01`)!.components.disk_usd).toBeGreaterThan(0);

    // A later fetch from inside June 2 asks June 2 again: the same record, the same amount.
    const second = await provider.listBillingRecords!({ from: june2 + 5 * HOUR_MS, to: h.clock + HOUR_MS });
    expect(second.records.map((r) => r.record_id)).toEqual([`instance-${night.id}:2026-06-02`]);
    expect(second.records[0]).toEqual(byId(first.records).get(second.records[0]!.record_id));
    expect(await provider.listBillingRecords!({ from: T0 - 2 * HOUR_MS, to: h.clock })).toEqual(first);
  });

  it("Vast: a day not yet final is not reported, nor complete_through past it, until the lag has passed", async () => {
    await admin("vast").setFaults({ billing_delay_ms: HOUR_MS });
    const provider = adapter("vast");
    const m = await provider.createMachine({ label: label(1), offer_id: (await offerOf(provider, "l4")).provider_offer_id });
    h.clock = T0 + 2 * HOUR_MS;
    await provider.destroyMachine(m.id);
    const june1 = Date.UTC(2026, 5, 1);
    const june2 = june1 + DAY_MS;
    for (const at of [T0 + 3 * HOUR_MS, june2 + 90 * 60_000]) {
      h.clock = at;
      expect(await provider.listBillingRecords!({ from: T0, to: h.clock }), new Date(at).toISOString()).toEqual({ records: [], complete_through: june1 });
    }
    h.clock = june2 + VAST_BILLING_LAG_MS;
    const listing = await provider.listBillingRecords!({ from: T0, to: h.clock });
    expect(listing.complete_through).toBe(june2);
    expect(listing.records.map((r) => r.record_id)).toEqual([`instance-${m.id}:2026-06-01`]);
    expect(listing.records[0]!.amount_usd).toBe((await vastDay(june1)).results[0].amount);
    expect(Math.abs(listing.records[0]!.amount_usd - ledgerCost((await admin("vast").getLedger(PREFIX)).machines))).toBeLessThanOrEqual(0.0005);
  });
});
