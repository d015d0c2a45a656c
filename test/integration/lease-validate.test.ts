/**
 * `POST /v1/leases/validate` (warnings without renting; the same warnings on the created lease)
 * and `GET/PUT /v1/org/settings` `require_image_digest` (409 image_not_pinned before anything is
 * rented, on a create and on a validate).
 */
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { orgEventsStub } from "../../src/events/forward";
import { call, createKey, createOrg, expectError, json, refreshCatalog, type TestOrg } from "./helpers";
import { createLease, fastSim, sim } from "./lease-helpers";

const SPEC = { gpu: "l40s:1" };
const PIN = `ghcr.io/acme/app@sha256:${"a".repeat(64)}`;

async function leaseCount(key: string): Promise<number> {
  return (await json(await call("GET", "/v1/leases?limit=100", { key }))).data.length;
}

async function simMachineCount(): Promise<number> {
  return (await sim().getLedger()).machines.length;
}

/** A new org and a write key of it; the sim fast and the catalog read once per file. */
let simReady: Promise<void> | undefined;
async function writerOrg(): Promise<{ org: TestOrg; key: string }> {
  simReady ??= fastSim().then(() => refreshCatalog()).then(() => undefined);
  await simReady;
  const org = await createOrg();
  return { org, key: (await createKey(org, "write")).secret };
}

describe("POST /v1/leases/validate", () => {
  let org: TestOrg;
  let key: string;
  beforeAll(async () => ({ org, key } = await writerOrg()));

  it("answers the warnings and rents, reserves and names nothing", async () => {
    const body = {
      kind: "scratch",
      spec: SPEC,
      image: "vllm/vllm-openai:latest",
      name: "checked",
      policy: { ttl: "5m", idle_timeout: "3h", max_lifetime: "2h", stopped_ttl: null },
    };
    const machinesBefore = await simMachineCount();
    const res = await call("POST", "/v1/leases/validate", { key, body });
    expect(res.status).toBe(200);
    const { warnings } = await json(res);
    expect(warnings.map((w: any) => w.code)).toEqual(["stopped_disk_unbounded", "idle_timeout_unreachable", "mutable_image_tag", "ttl_shorter_than_boot"]);
    expect(warnings.map((w: any) => w.field)).toEqual(["policy.stopped_ttl", "policy.idle_timeout", "image", "policy.ttl"]);
    expect(await leaseCount(key)).toBe(0);
    expect(await simMachineCount()).toBe(machinesBefore);

    // The same warnings on the lease a create with this body makes; its name was never taken.
    const lease = await createLease(key, body);
    expect(lease.warnings).toEqual(warnings);
    const listed = await json(await call("GET", `/v1/leases?name=checked`, { key }));
    expect(listed.data[0].warnings).toEqual(warnings);
    await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} });
  });

  it("lists a lease indexed when warnings were messages with its warnings as objects", async () => {
    const lease = await createLease(key, { kind: "scratch", spec: SPEC, image: "ubuntu:latest" });
    await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} });
    // A released lease's row as the index kept it then: its warnings, messages alone. The org's
    // lease index holds it as it copied it from D1 (src/orgs/lease-index.ts `adopt`).
    const old = { ...lease, id: `${lease.id}0`, state: "released", warnings: lease.warnings.map((w: any) => w.message) };
    await orgEventsStub(env, org.id).sync(org.id, old.id, [], {
      row: { id: old.id, state: "released", kind: "scratch", name: null, version: 1, next_deadline: null, created_at: 0, body: JSON.stringify(old) },
      deadline: false,
    });
    const listed = await json(await call("GET", "/v1/leases?limit=100", { key }));
    expect(listed.data.find((l: any) => l.id === old.id).warnings).toEqual(lease.warnings);
    expect(lease.warnings.map((w: any) => w.code)).toEqual(["mutable_image_tag"]);
  });

  it("answers no warnings for a sound body", async () => {
    const res = await call("POST", "/v1/leases/validate", { key, body: { kind: "scratch", spec: SPEC, image: PIN } });
    expect(await json(res)).toEqual({ warnings: [] });
  });

  it("refuses what a create refuses, in the one envelope", async () => {
    await expectError(await call("POST", "/v1/leases/validate", { key, body: { kind: "job", spec: SPEC } }), 400, "cmd_required");
    await expectError(await call("POST", "/v1/leases/validate", { key, body: { kind: "scratch", spec: SPEC, policy: { ttl: "soon" } } }), 400, "invalid_duration");
    await expectError(await call("POST", "/v1/leases/validate", { key, body: { kind: "job", cmd: "x", spec: { gpu: "b200:8", max_hourly_usd: 1 } } }), 409, "no_capacity");
    await expectError(await call("POST", "/v1/leases/validate", { key, body: { kind: "scratch", spec: SPEC, quote_id: "qt_x" } }), 400);
  });

  it("needs the write scope", async () => {
    const reader = (await createKey(org, "read")).secret;
    await expectError(await call("POST", "/v1/leases/validate", { key: reader, body: { kind: "scratch", spec: SPEC } }), 403, "insufficient_scope");
  });
});

describe("org settings: machine_activity_max", () => {
  let org: TestOrg;
  let key: string;
  beforeAll(async () => ({ org, key } = await writerOrg()));

  it("is 1d by default, a duration an admin sets (the other setting kept), anything else 400", async () => {
    expect(await json(await call("GET", "/v1/org/settings", { key }))).toMatchObject({ machine_activity_max: "1d" });
    await expectError(await call("PUT", "/v1/org/settings", { key, body: { machine_activity_max: "2h" } }), 403, "insufficient_scope");
    for (const bad of ["0s", "2y", "90", 3600, null, "1000d"]) {
      await expectError(await call("PUT", "/v1/org/settings", { key: org.adminKey, body: { machine_activity_max: bad } }), 400, bad === null || typeof bad === "number" ? "invalid_request" : "invalid_duration");
    }
    const set = await call("PUT", "/v1/org/settings", { key: org.adminKey, body: { machine_activity_max: "90m" } });
    expect(await json(set)).toEqual({ require_image_digest: false, machine_activity_max: "90m", artifact_retention: "30d", volume_idle_ttl: null, volume_idle_action: "report" });
    expect(await json(await call("PUT", "/v1/org/settings", { key: org.adminKey, body: { require_image_digest: false } }))).toMatchObject({ machine_activity_max: "90m" });
  });

  it("a deployment's lease keeps the value its org had when it was created", async () => {
    await call("PUT", "/v1/org/settings", { key: org.adminKey, body: { machine_activity_max: "3h" } });
    const put = await call("PUT", "/v1/deployments/ceiling-kept", { key, body: { model: "Qwen/Qwen2.5-0.5B-Instruct", spec: SPEC } });
    const d = await json(put);
    await call("PUT", "/v1/org/settings", { key: org.adminKey, body: { machine_activity_max: "1d" } });
    const stored = await runInDurableObject(env.LEASE.get(env.LEASE.idFromName(d.lease_id)), (_o, state) =>
      JSON.parse(state.storage.sql.exec<{ record: string }>(`SELECT record FROM lease`).one().record).machine_activity_max as number,
    );
    expect(stored).toBe(3 * 3_600_000);
    await call("DELETE", "/v1/deployments/ceiling-kept", { key });
  });
});

describe("org settings: require_image_digest", () => {
  let org: TestOrg;
  let key: string;
  beforeAll(async () => ({ org, key } = await writerOrg()));

  it("is off by default, readable with read scope, and changed only by an admin", async () => {
    const reader = (await createKey(org, "read")).secret;
    expect(await json(await call("GET", "/v1/org/settings", { key: reader }))).toEqual({ require_image_digest: false, machine_activity_max: "1d", artifact_retention: "30d", volume_idle_ttl: null, volume_idle_action: "report" });
    await expectError(await call("PUT", "/v1/org/settings", { key, body: { require_image_digest: true } }), 403, "insufficient_scope");
    await expectError(await call("PUT", "/v1/org/settings", { key: org.adminKey, body: { require_image_digest: "yes" } }), 400, "invalid_request");
    await expectError(await call("PUT", "/v1/org/settings", { key: org.adminKey, body: { other: 1 } }), 400, "invalid_request");
    // An empty update changes nothing.
    expect(await json(await call("PUT", "/v1/org/settings", { key: org.adminKey, body: {} }))).toEqual({ require_image_digest: false, machine_activity_max: "1d", artifact_retention: "30d", volume_idle_ttl: null, volume_idle_action: "report" });
  });

  it("without it, a mutable tag is a warning and the lease is made", async () => {
    const lease = await createLease(key, { kind: "scratch", spec: SPEC, image: "ubuntu:latest" });
    expect(lease.warnings.map((w: any) => [w.code, w.field])).toEqual([["mutable_image_tag", "image"]]);
    await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} });
  });

  it("with it, an unpinned image is refused with 409 image_not_pinned before anything is rented; a pinned one, or none (the pinned default), is leased", async () => {
    const put = await call("PUT", "/v1/org/settings", { key: org.adminKey, body: { require_image_digest: true } });
    expect(await json(put)).toEqual({ require_image_digest: true, machine_activity_max: "1d", artifact_retention: "30d", volume_idle_ttl: null, volume_idle_action: "report" });
    expect(await json(await call("GET", "/v1/org/settings", { key }))).toEqual({ require_image_digest: true, machine_activity_max: "1d", artifact_retention: "30d", volume_idle_ttl: null, volume_idle_action: "report" });

    const leasesBefore = await leaseCount(key);
    const machinesBefore = await simMachineCount();
    for (const image of ["ubuntu:latest", `app@sha256:${"a".repeat(63)}`]) {
      const body = { kind: "scratch", spec: SPEC, image };
      const refused = await expectError(await call("POST", "/v1/leases", { key, body }), 409, "image_not_pinned");
      expect(refused.details).toEqual({ field: "image" });
      await expectError(await call("POST", "/v1/leases/validate", { key, body }), 409, "image_not_pinned");
    }
    expect(await leaseCount(key)).toBe(leasesBefore);
    expect(await simMachineCount()).toBe(machinesBefore);

    const pinned = await createLease(key, { kind: "scratch", spec: SPEC, image: PIN });
    expect(pinned.warnings).toEqual([]);
    await call("POST", `/v1/leases/${pinned.id}/end`, { key, body: {} });
    const none = await createLease(key, { kind: "scratch", spec: SPEC });
    expect(none.warnings).toEqual([]);
    await call("POST", `/v1/leases/${none.id}/end`, { key, body: {} });

    // Off again: the tag is leased, with its warning.
    await call("PUT", "/v1/org/settings", { key: org.adminKey, body: { require_image_digest: false } });
    const res = await call("POST", "/v1/leases/validate", { key, body: { kind: "scratch", spec: SPEC, image: "ubuntu:latest" } });
    expect((await json(res)).warnings.map((w: any) => w.code)).toEqual(["mutable_image_tag"]);
  });

  it("is the org's own: another org's creates are not refused", async () => {
    const other = await createOrg();
    const otherKey = (await createKey(other, "write")).secret;
    await call("PUT", "/v1/org/settings", { key: org.adminKey, body: { require_image_digest: true } });
    const lease = await createLease(otherKey, { kind: "scratch", spec: SPEC, image: "ubuntu:latest" });
    await call("POST", `/v1/leases/${lease.id}/end`, { key: otherKey, body: {} });
  });
});
