/**
 * One suite for every real provider's adapter: the same cases run against the RunPod, Vast and
 * Lambda stub clouds (test/support/stub-clouds/, the one fake of each provider), over real HTTP
 * on loopback. Every request and answer passes through the provider's ContractStub, and after
 * each test no violation may have been recorded. What only one provider does is in its own file
 * (providers-runpod.test.ts, providers-vast.test.ts, providers-lambda.test.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { installationPrefix, machineLabel } from "../../src/lease/label";
import { LAMBDA_LAUNCH_WAIT_MS } from "../../src/providers/lambda/adapter";
import { VAST_RATE_LIMIT_WAIT_MS } from "../../src/providers/vast/adapter";
import { HOUR_MS, SIM_STATUSES } from "../../src/providers/sim/machines";
import { STUB_PROVIDERS, type StubProvider } from "../support/stub-clouds-admin";
import { BOOT_MS, cheapestOffer as offerOf, PROVISION_MS, STUB_T0 as T0, leaseLabels, STUB_INSTALLATION, useStubClouds } from "../support/stub-clouds/harness";

const h = useStubClouds();
const { served, admin, adapter } = h;

const INSTALLATION = STUB_INSTALLATION;
const LEASE = "ls_01jstubclouds";
const { label, prefix: PREFIX } = leaseLabels(LEASE);

/** What a create refused with a 429 says to wait: RunPod's Retry-After (12 s here), or the adapter's own. */
const CREATE_RATE_LIMIT_WAIT_MS: Record<StubProvider, number> = { runpod: 12_000, vast: VAST_RATE_LIMIT_WAIT_MS, lambda: LAMBDA_LAUNCH_WAIT_MS };

describe.each(STUB_PROVIDERS)("the %s adapter against its stub cloud", (p) => {
  beforeEach(async (ctx) => {
    if (!served(p)) ctx.skip();
    h.clock = T0;
    await admin(p).reset();
  });

  afterEach(async () => {
    if (!served(p)) return;
    // Every request the adapter sent, and every answer the stub gave, held to the document.
    expect((await admin(p).getViolations()).violations).toEqual([]);
  });

  it("serves a catalog with l40s:1 and l4:1 on at least three hosts each, and counts what no class covers", async () => {
    const { offers, unclassified } = await adapter(p).listOffers();
    for (const gpu of ["l40s", "l4"]) {
      const ones = offers.filter((o) => o.gpu === gpu && o.gpu_count === 1);
      expect(new Set(ones.map((o) => o.host_id)).size, gpu).toBeGreaterThanOrEqual(3);
      expect(new Set(ones.map((o) => o.provider_offer_id)).size, gpu).toBeGreaterThanOrEqual(3);
    }
    expect(new Set(offers.map((o) => o.gpu)).size).toBeGreaterThanOrEqual(4);
    expect(unclassified).toBeGreaterThan(0);
  });

  it(p === "lambda" ? "create -> running -> destroy (Lambda has no stop), with state read back" : "create -> running -> stop -> start -> destroy, with state read back", async () => {
    const provider = adapter(p);
    const offer = await offerOf(provider, "l40s");
    const created = await provider.createMachine({ label: label(1), offer_id: offer.provider_offer_id, image: "ghcr.io/acme/app@sha256:abc", cmd: "serve" });
    expect(created).toMatchObject({ label: label(1), hourly_usd: offer.hourly_usd });
    // Lambda says `booting` for both PROVISIONING and STARTING.
    expect(created.status).toBe(p === "lambda" ? "starting" : "provisioning");

    h.clock += PROVISION_MS;
    expect((await provider.getMachine(created.id))?.status).toBe("starting");
    h.clock += BOOT_MS;
    expect((await provider.getMachine(created.id))?.status).toBe("running");
    expect((await provider.listMachines(PREFIX)).map((m) => [m.id, m.label, m.status])).toEqual([[created.id, label(1), "running"]]);

    const steps = ["PROVISIONING", "STARTING", "RUNNING"];
    if (p !== "lambda") {
      h.clock += 60_000;
      await provider.stopMachine(created.id);
      expect((await provider.getMachine(created.id))?.status).toBe("stopped");
      // A second stop is refused by the cloud; read back, the machine is stopped: success.
      await provider.stopMachine(created.id);
      h.clock += 60_000;
      await provider.startMachine(created.id);
      expect((await provider.getMachine(created.id))?.status).toBe("starting");
      h.clock += BOOT_MS;
      expect((await provider.getMachine(created.id))?.status).toBe("running");
      steps.push("EXITED", "STARTING", "RUNNING");
    }

    // Zero-length stretches are left out of the ledger: let the last one last a minute.
    h.clock += 60_000;
    await provider.destroyMachine(created.id);
    expect(await provider.getMachine(created.id)).toBeNull();
    // Destroying what is gone is success.
    await provider.destroyMachine(created.id);
    expect(await provider.listMachines(PREFIX)).toEqual([]);

    const ledger = await admin(p).getLedger(PREFIX);
    expect(ledger.machines).toHaveLength(1);
    const m = ledger.machines[0]!;
    expect(Object.keys(m).sort()).toEqual(["alive_ms", "created_at", "destroyed_at", "disk_price_per_hour", "id", "interrupted", "intervals", "label", "offer_id", "price_per_hour", "refusals", "status", "vanished", "volumes"]);
    expect(m).toMatchObject({ id: created.id, label: label(1), offer_id: offer.provider_offer_id, status: "TERMINATED", created_at: T0, destroyed_at: h.clock, vanished: false, interrupted: false, alive_ms: h.clock - T0, volumes: [] });
    expect(m.intervals.map((i) => i.status)).toEqual(steps);
    expect(m.intervals.at(-1)!.to).toBe(h.clock);
  });

  it("an ambiguous create (a 502, a 504 or a cut connection) leaves a machine that listing by label finds", async () => {
    const provider = adapter(p);
    const offer = await offerOf(provider, "l4");
    // Seed 1 answers the six creates 502, cut, 502, cut, cut, 504.
    await admin(p).setFaults({ ambiguous_create_rate: 1, seed: 1 });
    for (let n = 1; n <= 6; n++) {
      const err = await provider.createMachine({ label: label(n), offer_id: offer.provider_offer_id }).catch((e) => e);
      expect(err, `attempt ${n}`).toMatchObject({ kind: "ambiguous" });
    }
    const found = await provider.listMachines(PREFIX);
    expect(found.map((m) => m.label).sort()).toEqual([1, 2, 3, 4, 5, 6].map(label).sort());
    // Found as made, in the status a fresh machine has; the offer it was made from reads back
    // where the provider's machine names it (a Vast instance does not: its ask is gone once rented).
    for (const m of found) expect(m).toMatchObject({ status: p === "lambda" ? "starting" : "provisioning", ...(p === "vast" ? {} : { offer_id: offer.provider_offer_id }) });
    // Six creates, six machines: none was retried (a retry after a cut would have made a seventh).
    expect((await admin(p).getLedger(PREFIX)).machines).toHaveLength(6);
    // RunPod's `default` response describes a 502/504; Vast and Lambda list no 5xx: those are notes.
    const gateways = (await admin(p).getViolations()).notes.filter((n) => / answering 50[24]/.test(n.message));
    expect(gateways).toHaveLength(p === "runpod" ? 0 : 3);
  });

  it("verify() passes with the stub's key; a wrong key is auth, the provider's refusal, not a contract violation", async () => {
    await adapter(p).verify();
    const wrong = adapter(p, { apiKey: "not-the-key" });
    expect(await wrong.verify().catch((e) => e)).toMatchObject({ kind: "auth" });
    expect(await wrong.listMachines("lessor-").catch((e) => e)).toMatchObject({ kind: "auth" });
    expect(await wrong.listOffers().catch((e) => e)).toMatchObject({ kind: "auth" });
    const offer = await offerOf(adapter(p), "l4");
    expect(await wrong.createMachine({ label: label(1), offer_id: offer.provider_offer_id }).catch((e) => e)).toMatchObject({ kind: "auth" });
    expect((await admin(p).getLedger()).machines).toEqual([]);
  });

  it("no_capacity_rate refuses a create the way the provider refuses for capacity; nothing is made", async () => {
    const provider = adapter(p);
    const offer = await offerOf(provider, "l40s");
    await admin(p).setFaults({ no_capacity_rate: 1 });
    expect(await provider.createMachine({ label: label(1), offer_id: offer.provider_offer_id }).catch((e) => e)).toMatchObject({ kind: "no_capacity" });
    expect((await admin(p).getLedger()).machines).toEqual([]);
  });

  it("an injected 429's wait is a promise: the adapter that waits it out gets through", async () => {
    const provider = adapter(p);
    const created = await provider.createMachine({ label: label(1), offer_id: (await offerOf(provider, "l4")).provider_offer_id });
    await admin(p).setFaults({ rate_limit_rate: 1, retry_after_s: 1 });
    const before = h.clock;
    expect((await provider.getMachine(created.id))?.id).toBe(created.id);
    expect(h.clock - before).toBeGreaterThanOrEqual(1000);
    // Not waited out, the next call on it is refused again (and the adapter's retries wait again).
    await admin(p).setFaults({ retry_after_s: 3600 });
    expect(await provider.getMachine(created.id).catch((e) => e)).toMatchObject({ kind: "rate_limited" });
  });

  it("api_error_rate is a 5xx on every call: reads are retried, then unavailable", async () => {
    await admin(p).setFaults({ api_error_rate: 1 });
    expect(await adapter(p).listMachines(PREFIX).catch((e) => e)).toMatchObject({ kind: "unavailable" });
  });

  it("boot failures and vanishing machines follow the sim's clock", async () => {
    const provider = adapter(p);
    const offer = await offerOf(provider, "l40s");
    await admin(p).setFaults({ boot_failure_rate: 1 });
    const failed = await provider.createMachine({ label: label(1), offer_id: offer.provider_offer_id });
    await admin(p).setFaults({ boot_failure_rate: 0, vanish_rate: 1, vanish_min_ms: 1000, vanish_max_ms: 1000 });
    const doomed = await provider.createMachine({ label: label(2), offer_id: offer.provider_offer_id });
    h.clock += PROVISION_MS + BOOT_MS;
    expect((await provider.getMachine(failed.id))?.status).toBe("error");
    expect((await provider.getMachine(doomed.id))?.status).toBe("running");
    h.clock += 1000;
    expect(await provider.getMachine(doomed.id)).toBeNull();
    const ledger = await admin(p).getLedger(PREFIX);
    expect(ledger.machines.map((m) => [m.label, m.status, m.vanished])).toEqual([
      [label(1), "ERROR", false],
      [label(2), "TERMINATED", true],
    ]);
    expect(ledger.machines.every((m) => SIM_STATUSES.includes(m.status))).toBe(true);
  });

  it("bills closed hours as the sim does (admin billing)", async () => {
    const provider = adapter(p);
    const offer = await offerOf(provider, "l4");
    const created = await provider.createMachine({ label: label(1), offer_id: offer.provider_offer_id });
    h.clock += 2 * HOUR_MS;
    await provider.destroyMachine(created.id);
    const { records } = await admin(p).getBilling({ from: T0 });
    // 12:00 to 14:00 with 0.5 s provisioning: two closed hours; the first is 0.5 s short.
    expect(records.map((r) => [r.machine_id, r.window_start, r.running_seconds])).toEqual([
      [created.id, T0, 3600 - PROVISION_MS / 1000],
      [created.id, T0 + HOUR_MS, 3600],
    ]);
    expect(records[1]!.amount_usd).toBeCloseTo(offer.hourly_usd, 6);
  });

  it("a create is never retried, not even after a 429: rate_limited, with the wait to keep, and nothing made", async () => {
    const provider = adapter(p);
    const offer = await offerOf(provider, "l4");
    await admin(p).setFaults({ rate_limit_rate: 1, retry_after_s: 12 });
    const err = await provider.createMachine({ label: label(1), offer_id: offer.provider_offer_id }).catch((e) => e);
    expect(err).toMatchObject({ kind: "rate_limited", retryAfterMs: CREATE_RATE_LIMIT_WAIT_MS[p] });
    expect((await admin(p).getLedger()).machines).toEqual([]);
  });

  it("reads are retried at most three times with growing, jittered backoff; then unavailable", async () => {
    const waits: number[] = [];
    const provider = adapter(p, { random: () => 0.5, sleep: async (ms) => void waits.push(ms) });
    await admin(p).setFaults({ api_error_rate: 1 });
    expect(await provider.listMachines(PREFIX).catch((e) => e)).toMatchObject({ kind: "unavailable" });
    expect(waits).toEqual([188, 375, 750]);
  });

  it("a dropped connection on a read is retried", async () => {
    let drops = 1;
    const provider = adapter(p, {
      fetch: async (input, init) => {
        if (drops-- > 0) throw new TypeError("fetch failed: connection reset before the request was sent");
        return fetch(input, init);
      },
    });
    expect(await provider.listMachines(PREFIX)).toEqual([]);
    expect(drops).toBe(-1);
  });

  it("a machine that vanished is null and no longer listed; stopping it is not_found; destroying it is success", async () => {
    const provider = adapter(p);
    await admin(p).setFaults({ vanish_rate: 1, vanish_min_ms: 1000, vanish_max_ms: 1000 });
    const created = await provider.createMachine({ label: label(1), offer_id: (await offerOf(provider, "l4")).provider_offer_id });
    h.clock += PROVISION_MS + BOOT_MS + 1000;
    expect(await provider.getMachine(created.id)).toBeNull();
    expect(await provider.listMachines(PREFIX)).toEqual([]);
    if (provider.capabilities.stop) expect(await provider.stopMachine(created.id).catch((e) => e)).toMatchObject({ kind: "not_found" });
    await provider.destroyMachine(created.id);
  });

  it("lists by label prefix only, never another installation's or an unlabelled machine", async () => {
    const provider = adapter(p);
    const offer = await offerOf(provider, "l4");
    for (const lbl of [label(1), machineLabel("other", LEASE, 1), "my-notebook"]) await provider.createMachine({ label: lbl, offer_id: offer.provider_offer_id });
    expect((await provider.listMachines(installationPrefix(INSTALLATION))).map((m) => m.label)).toEqual([label(1)]);
  });
});
