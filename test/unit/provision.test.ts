/**
 * provision.ts: which machine found by label is kept and which are destroyed, which offer is
 * rented next or why the lease is released, what a create's failure makes of the record, where a
 * machine may land, and when the key in use may be believed. Each boundary on both sides.
 */
import { describe, expect, it } from "vitest";
import type { Offer } from "../../src/catalog/offer";
import {
  accountMismatch,
  adoption,
  aliveOf,
  budgetRefused,
  created,
  createFailed,
  destroyFirst,
  hostReplaced,
  isAlive,
  isSameAccount,
  misplacement,
  observationOf,
  rentPlan,
  writeAhead,
} from "../../src/lease/provision";
import { failureOf } from "../../src/lease/retry";
import type { LeaseRecord } from "../../src/lease/state";
import { ProviderError, type Machine } from "../../src/providers/contract";
import { H, lease, machine, offer, T0 } from "../support/lease-fixture";

const INSTALLATION = "dev";
const canStop = () => true;
const found = (id: string, attempt: number, patch: Partial<Machine> = {}): Machine => ({
  ...machine("running"), id, label: `lessor-dev-ls_test-a${attempt}`, ...patch,
});
const offer2: Offer = { ...offer, id: "sim:o2", provider_offer_id: "o2", host_id: "h2", hourly_usd: 3 };
const provisioning = (patch = {}) =>
  lease("provisioning", { machine_id: null, machine_status: null, label: "lessor-dev-ls_test-a2", attempt: 2, machine_ids: [], offers: [offer, offer2], ...patch });

describe("aliveOf / isAlive: terminated machines are never acted on", () => {
  it("keeps every status but terminated, and drops the handled ones", () => {
    const ms = [found("a", 1), found("b", 1, { status: "terminated" }), found("c", 1, { status: "stopped" })];
    expect(aliveOf(ms).map((m) => m.id)).toEqual(["a", "c"]);
    expect(aliveOf(ms, new Set(["a"])).map((m) => m.id)).toEqual(["c"]);
    expect(isAlive(null)).toBe(false);
    expect(isAlive(found("b", 1, { status: "terminated" }))).toBe(false);
    expect(isAlive(found("a", 1, { status: "error" }))).toBe(true);
  });
});

describe("adoption: the machines found by label at provision", () => {
  it("none found: null, a machine is rented", () => {
    expect(adoption(provisioning(), [], INSTALLATION, "acct", T0)).toBeNull();
  });
  it("one found: kept and booted, nothing destroyed, it bills the lease", () => {
    const plan = adoption(provisioning(), [found("m9", 2)], INSTALLATION, "acct", T0)!;
    expect(plan.destroy).toEqual([]);
    expect(plan.step.next).toMatchObject({ state: "booting", machine_id: "m9", machine_account: "acct", machine_ids: ["m9"] });
    expect(plan.step.effect).toEqual({ event: "machine_adopted", detail: { machine_id: "m9", label: "lessor-dev-ls_test-a2", extra_destroyed: 0 } });
  });
  it("the one with the lease's current label is kept, even when an older attempt's is newer", () => {
    const plan = adoption(provisioning(), [found("old", 3, { created_at: T0 + 1 }), found("cur", 2)], INSTALLATION, "acct", T0)!;
    expect(plan.step.next.machine_id).toBe("cur");
    expect(plan.destroy).toEqual(["old"]);
  });
  it("without the current label, the latest attempt is kept; every other one is destroyed and all bill", () => {
    const plan = adoption(provisioning({ label: null, machine_ids: ["a1"] }), [found("a1", 1), found("a3", 3), found("a2", 2)], INSTALLATION, "acct", T0)!;
    expect(plan.step.next.machine_id).toBe("a3");
    expect(plan.destroy).toEqual(["a1", "a2"]);
    expect(plan.step.next.machine_ids).toEqual(["a1", "a3", "a2"]);
    expect(plan.step.effect.detail).toMatchObject({ extra_destroyed: 2 });
  });
});

describe("rentPlan: which offer next, or why the lease is released", () => {
  it("attempts left on the current offer: rent it", () => {
    expect(rentPlan(provisioning({ policy: { ...lease("ready").policy, host_attempts: 3 } }), T0)).toMatchObject({ offer: { id: offer.id } });
  });
  it("attempts used up (attempt == host_attempts): released, host_failed", () => {
    const plan = rentPlan(provisioning({ attempt: 3 }), T0);
    expect(plan).toMatchObject({ release: { next: { state: "releasing", release_reason: "host_failed" }, effect: { detail: { attempts: 3 } } } });
  });
  it("no offer left, never a machine: released, no_capacity", () => {
    expect(rentPlan(provisioning({ attempt: 0, offer_index: 2 }), T0)).toMatchObject({ release: { next: { release_reason: "no_capacity" } } });
  });
  it("a dearer fallback than what the lease holds asks for a reservation; the same offer does not", () => {
    // Four hours at $2, and the 5 minutes a ttl release may wait for the outputs.
    const reserved = { hourly_micro_usd: 2_000_000, unbounded: false, months: { "2026-11": 8_000_000 + 166_667 } };
    const on = (i: number) => rentPlan(provisioning({ offer_index: i, reserved }), T0);
    expect("offer" in on(0) && on(0)).toMatchObject({ reserve: null });
    const dearer = on(1);
    expect("offer" in dearer && dearer.reserve).not.toBeNull();
  });
});

describe("budgetRefused: the org's caps refused the rent", () => {
  it("releases as budget_exceeded, with the offer and the refusal's details", () => {
    const step = budgetRefused(provisioning(), offer2, { cap: "monthly" }, T0);
    expect(step.next).toMatchObject({ state: "releasing", release_reason: "budget_exceeded" });
    expect(step.effect.detail).toEqual({ offer: "sim:o2", provider: "sim", hourly_usd: 3, cap: "monthly" });
  });
});

describe("writeAhead: the record written before the create", () => {
  const reserve = { hourly_micro_usd: 3_000_000, unbounded: false, months: { "2026-11": 5_000_000 } };
  it("from pending: provisioning now, the next attempt's label, an event", () => {
    const w = writeAhead(lease("pending", { machine_id: null, attempt: 0, state_since: T0 - H }), offer, null, INSTALLATION, T0);
    expect(w.next).toMatchObject({ state: "provisioning", state_since: T0, attempt: 1, label: "lessor-dev-ls_test-a1", reconcile_required: true });
    expect(w.effect).toEqual({ event: "provisioning", detail: { offer: offer.id, provider: "sim", label: "lessor-dev-ls_test-a1" } });
  });
  it("already provisioning, nothing reserved: no event, state_since kept", () => {
    const w = writeAhead(provisioning({ state_since: T0 - H }), offer, null, INSTALLATION, T0);
    expect(w.effect).toBeNull();
    expect(w.next).toMatchObject({ state_since: T0 - H, attempt: 3, label: "lessor-dev-ls_test-a3" });
  });
  it("already provisioning, more reserved: budget_reserved, and the lease holds it", () => {
    const w = writeAhead(provisioning(), offer2, reserve, INSTALLATION, T0);
    expect(w.effect).toEqual({ event: "budget_reserved", detail: { offer: "sim:o2", provider: "sim", reserved_usd: 5 } });
    expect(w.next.reserved).toBe(reserve);
  });
});

describe("created / createFailed: what a create's outcome makes of the record", () => {
  const before = provisioning({ reconcile_required: true, attempt: 3, label: "lessor-dev-ls_test-a3" });
  it("created: booting on the machine, the host it actually landed on", () => {
    const step = created(before, found("m7", 3, { host_id: "" }), offer, "sim", "acct", T0);
    expect(step.next).toMatchObject({ state: "booting", machine_id: "m7", reconcile_required: false });
    expect(step.effect.detail).toMatchObject({ machine_id: "m7", label: "lessor-dev-ls_test-a3", host: "h1" });
  });
  it("no capacity: the attempt does not count, the next offer on another host", () => {
    const o = createFailed(before, offer, failureOf(new ProviderError("sim", "no_capacity", "full")), canStop, T0);
    expect(o.rethrow).toBe(false);
    expect(o.next).toMatchObject({ state: "provisioning", attempt: 2, offer_index: 1, excluded_hosts: ["h1"], reconcile_required: false });
    expect(o.effect).toMatchObject({ event: "host_excluded", reason: "no_capacity" });
  });
  it("refused for good: released, the provider's words kept only for `refused`", () => {
    const refused = createFailed(before, offer, failureOf(new ProviderError("sim", "refused", "bad image")), canStop, T0);
    expect(refused).toMatchObject({ rethrow: false, next: { state: "releasing", release_reason: "provider_refused", attempt: 2 } });
    expect(refused.effect?.detail).toEqual({ error: "refused", message: "sim refused: bad image" });
    const auth = createFailed(before, offer, failureOf(new ProviderError("sim", "auth", "no key")), canStop, T0);
    expect(auth.effect?.detail).toEqual({ error: "auth" });
  });
  it("rate limited: the attempt undone, no event, retried", () => {
    const o = createFailed(before, offer, failureOf(new ProviderError("sim", "rate_limited", "slow", 1_000)), canStop, T0);
    expect(o).toEqual({ next: { ...before, reconcile_required: false, attempt: 2 }, effect: null, rethrow: true });
  });
  it("unknown outcome: kept for the listing by label, recorded, retried", () => {
    const o = createFailed(before, offer, failureOf(new Error("timeout")), canStop, T0);
    expect(o).toEqual({ next: before, effect: { event: "create_ambiguous", detail: { label: before.label, error: "timeout" } }, rethrow: true });
  });
});

describe("misplacement: where a new machine may land", () => {
  const inRegions = provisioning({ spec: { regions: ["us-east"] } as LeaseRecord["spec"] });
  it("inside the lease's regions, or with none: allowed", () => {
    expect(misplacement(inRegions, { region: "us-east" })).toBeNull();
    expect(misplacement(provisioning(), { region: "eu-west" })).toBeNull();
  });
  it("outside: why it is replaced", () => {
    expect(misplacement(inRegions, { region: "eu-west" })).toEqual({ misplaced_in: "eu-west", allowed: ["us-east"] });
  });
});

describe("destroyFirst / hostReplaced: a failed host", () => {
  it("a named machine not seen gone is destroyed first; one seen gone, or none, is not", () => {
    expect(destroyFirst(lease("booting"), { machine: undefined })).toBe(true);
    expect(destroyFirst(lease("booting"), { machine: machine("error") })).toBe(true);
    expect(destroyFirst(lease("booting"), { machine: null })).toBe(false);
    expect(destroyFirst(provisioning(), { machine: undefined })).toBe(false);
  });
  it("records the destroyed machine and its host, then moves on from that host", () => {
    const l = lease("booting", { offers: [offer, offer2] });
    const r = hostReplaced(l, "boot_timeout", { extra: 1 }, canStop, T0);
    expect(r.destroyed).toEqual({ event: "machine_destroyed", reason: "boot_timeout", detail: { machine_id: "m1", host: "h1", extra: 1 } });
    expect(r.then(l).next).toMatchObject({ state: "provisioning", offer_index: 1, excluded_hosts: ["h1"] });
  });
});

describe("isSameAccount / accountMismatch: when the key in use may be believed", () => {
  it("the account that created the machine, or a lease stored before it was kept: believed", () => {
    expect(isSameAccount(lease("ready", { machine_account: "a" }), "a")).toBe(true);
    expect(isSameAccount(lease("ready", { machine_account: null }), "b")).toBe(true);
    expect(accountMismatch(lease("ready", { machine_account: "a" }), "a")).toBeNull();
  });
  it("another account: not believed, and the message says what to do", () => {
    expect(isSameAccount(lease("ready", { machine_account: "a" }), "b")).toBe(false);
    expect(accountMismatch(lease("ready", { machine_account: "a" }), "b")).toMatch(/another sim key .*store that key again/);
  });
});

describe("observationOf: what a read-back tells the policy", () => {
  it("running: the machine, app ready; another live status: not ready", () => {
    expect(observationOf(machine("running"))).toEqual({ machine: machine("running"), app_ready: true });
    expect(observationOf(machine("starting"))).toEqual({ machine: machine("starting"), app_ready: false });
  });
  it("gone (null or terminated): null", () => {
    expect(observationOf(null)).toEqual({ machine: null, app_ready: false });
    expect(observationOf(machine("terminated"))).toEqual({ machine: null, app_ready: false });
  });
});
