import { describe, expect, it } from "vitest";
import { badHostKey } from "../../src/catalog/bad-hosts";
import type { Offer } from "../../src/catalog/offer";
import { BAD_HOSTS, constraintsOf, OFFER_AGE, selectOffer, staleCandidates } from "../../src/catalog/selector";
import { parseGpuToken } from "../../src/catalog/spec";
import { configProblems } from "../../src/config";
import { badHostMark, badHostTtlMs, DEFAULT_BAD_HOST_TTL_MS } from "../../src/lease/bad-host";
import { REASONS, type Reason } from "../../src/lease/state";
import { H, lease, M, offer, T0 } from "../support/lease-fixture";

const TTL = 24 * H;

describe("badHostMark: which replaced hosts the org remembers", () => {
  const counted: Reason[] = ["boot_timeout", "host_failed", "provider_lost"];
  it.each(counted)("%s: the current offer's host, for the lease's org, until now + ttl", (reason) => {
    const l = lease("booting", { offers: [offer, { ...offer, id: "runpod:o2", provider: "runpod", host_id: "h2" }], offer_index: 1 });
    expect(badHostMark(l, reason, {}, TTL, T0)).toEqual({
      org_id: "org_test", provider: "runpod", host_id: "h2", reason, lease_id: "ls_test", until: T0 + TTL,
    });
  });
  it.each(REASONS.filter((r) => !counted.includes(r)))("%s: not the host's failure, nothing remembered", (reason) => {
    expect(badHostMark(lease("booting"), reason, {}, TTL, T0)).toBeNull();
  });
  it("a machine replaced for landing outside the lease's regions does not mark its host", () => {
    expect(badHostMark(lease("booting"), "host_failed", { misplaced_in: "eu-west", allowed: ["us-east"] }, TTL, T0)).toBeNull();
    expect(badHostMark(lease("booting"), "host_failed", { other: 1 }, TTL, T0)).not.toBeNull();
  });
  it("a ttl of 0 remembers nothing; 1 ms remembers for 1 ms", () => {
    expect(badHostMark(lease("booting"), "boot_timeout", {}, 0, T0)).toBeNull();
    expect(badHostMark(lease("booting"), "boot_timeout", {}, 1, T0)?.until).toBe(T0 + 1);
  });
  it("no host named (an offer without one, or past the last offer): nothing", () => {
    expect(badHostMark(lease("booting", { offers: [{ ...offer, host_id: "" }] }), "host_failed", {}, TTL, T0)).toBeNull();
    expect(badHostMark(lease("booting", { offer_index: 1 }), "host_failed", {}, TTL, T0)).toBeNull();
  });
});

describe("badHostTtlMs: LESSOR_BAD_HOST_TTL", () => {
  it.each([
    [undefined, DEFAULT_BAD_HOST_TTL_MS],
    ["", DEFAULT_BAD_HOST_TTL_MS],
    ["24h", 24 * H],
    ["90m", 90 * M],
    ["1s", 1000],
    ["0", 0],
    ["366d", 366 * 24 * H],
    ["367d", null],
    ["24", null],
    ["-1h", null],
    ["0h", null],
    ["1 day", null],
  ] as const)("%j -> %j", (value, ms) => {
    expect(badHostTtlMs(value)).toBe(ms);
  });
  it("a value that is not a duration is a configuration problem naming the setting, not its value", () => {
    expect(configProblems({ LESSOR_BAD_HOST_TTL: "24" })).toEqual([expect.stringMatching(/^LESSOR_BAD_HOST_TTL must be a duration/)]);
    expect(configProblems({ LESSOR_BAD_HOST_TTL: "24h" })).toEqual([]);
    expect(configProblems({ LESSOR_BAD_HOST_TTL: "0" })).toEqual([]);
  });
});

describe("the bad_hosts constraint", () => {
  const now = T0;
  const at = (p: Partial<Offer>): Offer => ({ ...offer, refreshed_at: now, ...p });
  const token = parseGpuToken("l40s:1");
  const bad = new Map([[badHostKey("sim", "h1"), { reason: "boot_timeout" as const, until: now + H }]]);
  const constraints = constraintsOf({ gpu: "l40s:1" }, token, ["sim", "runpod"], { now, badHosts: bad });

  it("leaves out the bad host's offers only: the same host id at another provider, and other hosts, stay", () => {
    const onBad = at({ id: "sim:o1", hourly_usd: 1 });
    const sameIdElsewhere = at({ id: "runpod:o1", provider: "runpod", hourly_usd: 2 });
    const otherHost = at({ id: "sim:o3", host_id: "h3", hourly_usd: 3 });
    const r = selectOffer([onBad, sameIdElsewhere, otherHost], constraints);
    expect(r.ok && r.chosen.id).toBe("runpod:o1");
    expect(r.ok && r.fallbacks.map((o) => o.id)).toEqual(["sim:o3"]);
    expect(r.ok && r.candidates).toBe(2);
  });
  it("is last: it is named only when fresh offers met the whole spec and every one was on a bad host", () => {
    const onBad = [at({ id: "sim:o1" }), at({ id: "sim:o2" })];
    expect(constraints.at(-1)!.name).toBe(BAD_HOSTS);
    expect(selectOffer(onBad, constraints)).toEqual({ ok: false, constraint: BAD_HOSTS, candidates_before: 2 });
    // A stale offer on a bad host is reported stale, and its provider named as such.
    const stale = at({ refreshed_at: now - 11 * M });
    expect(selectOffer([stale], constraints)).toEqual({ ok: false, constraint: OFFER_AGE, candidates_before: 1 });
    expect(staleCandidates([stale], constraints)).toEqual([{ provider: "sim", refreshed_at: now - 11 * M }]);
    // An offer on a bad host that misses the spec is reported by the spec's constraint.
    expect(selectOffer([at({ gpu_count: 2 })], constraints)).toMatchObject({ ok: false, constraint: "gpu" });
  });
  it("no bad hosts: no constraint at all", () => {
    expect(constraintsOf({ gpu: "l40s:1" }, token, ["sim"], { now, badHosts: new Map() }).map((c) => c.name)).not.toContain(BAD_HOSTS);
    expect(selectOffer([at({})], constraintsOf({ gpu: "l40s:1" }, token, ["sim"], { now })).ok).toBe(true);
  });
});
