/**
 * `GET /v1/machines`: the machines lessor's label marks in an org's accounts, read as the
 * reconciler reads them; an orphan's stop and destroy times; a provider that fails to list is
 * reported, never a 500; another org's machines on the shared sim are never shown.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { installationId } from "../../src/config";
import { machineLabel } from "../../src/lease/label";
import { SimProvider } from "../../src/providers/sim/adapter";
import { call, createKey, createOrg, expectError, json, refreshCatalog, type TestOrg } from "./helpers";
import { createLease, fastSim, waitForState } from "./lease-helpers";

const SPEC = { gpu: "l40s:1" };

describe("GET /v1/machines", () => {
  let org: TestOrg;
  let other: TestOrg;
  let key: string;
  beforeAll(async () => {
    await fastSim();
    await refreshCatalog();
    org = await createOrg();
    other = await createOrg();
    key = (await createKey(org, "write")).secret;
  });

  it("needs the admin scope", async () => {
    await expectError(await call("GET", "/v1/machines", { key }), 403, "insufficient_scope");
  });

  it("shows a live lease's machine with its lease, and not to another org", async () => {
    const lease = await createLease(key, { kind: "scratch", spec: SPEC });
    const ready = await waitForState(key, lease.id, "ready");
    const res = await call("GET", "/v1/machines", { key: org.adminKey });
    expect(res.status).toBe(200);
    const body = await json(res);
    const mine = body.data.find((m: any) => m.id === ready.machine.id);
    expect(mine).toMatchObject({ provider: "sim", account: "", lease_id: lease.id, orphan: false, orphan_stop_at: null, orphan_destroy_at: null, status: "running" });
    expect(mine.hourly_usd).toBeGreaterThan(0);
    expect(body.providers).toContainEqual({ provider: "sim", account: "", ok: true, machines: expect.any(Number) });

    const theirs = await json(await call("GET", "/v1/machines", { key: other.adminKey }));
    expect(theirs.data.map((m: any) => m.id)).not.toContain(ready.machine.id);
    await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} });
  });

  it("shows a machine of a released lease as an orphan, with when the reconciler stops and destroys it", async () => {
    const lease = await createLease(key, { kind: "scratch", spec: SPEC });
    await waitForState(key, lease.id, "ready");
    await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} });
    await waitForState(key, lease.id, "released");
    // A machine that appears after its lease ended (a late ambiguous create): no live lease owns it.
    const sim = new SimProvider(env);
    const offerId = (await sim.listOffers()).offers[0]!.provider_offer_id;
    const stray = await sim.createMachine({ label: machineLabel(installationId(env), lease.id, 9), offer_id: offerId });
    const before = Date.now();
    const body = await json(await call("GET", "/v1/machines", { key: org.adminKey }));
    const after = Date.now();
    const seen = body.data.find((m: any) => m.id === stray.id);
    expect(seen).toMatchObject({ lease_id: lease.id, orphan: true });
    // Test settings: a 1 s grace, then 2 s stopped (vitest.config.ts); first seen now.
    const stopAt = Date.parse(seen.orphan_stop_at);
    expect(stopAt).toBeGreaterThanOrEqual(before + 1_000);
    expect(stopAt).toBeLessThanOrEqual(after + 1_000);
    expect(Date.parse(seen.orphan_destroy_at)).toBe(stopAt + 2_000);
    // The other org never sees it.
    const theirs = await json(await call("GET", "/v1/machines", { key: other.adminKey }));
    expect(theirs.data.map((m: any) => m.id)).not.toContain(stray.id);
    await sim.destroyMachine(stray.id);
  });

  it("reports a provider account that cannot be listed, and still answers 200", async () => {
    // A key that no longer opens (another master key's ciphertext): the account cannot be listed.
    const now = Date.now();
    await env.DB.prepare("INSERT INTO provider_keys (org_id, provider, ciphertext, created_at, updated_at) VALUES (?, 'runpod', 'not-a-ciphertext', ?, ?)")
      .bind(org.id, now, now)
      .run();
    const res = await call("GET", "/v1/machines", { key: org.adminKey });
    expect(res.status).toBe(200);
    const body = await json(res);
    const runpod = body.providers.find((p: any) => p.provider === "runpod");
    expect(runpod).toMatchObject({ ok: false });
    expect(runpod.error).toMatch(/runpod/);
    expect(body.providers.find((p: any) => p.provider === "sim")).toMatchObject({ ok: true });
    // Providers the org holds no key for are not accounts of its own: not listed at all.
    expect(body.providers.map((p: any) => p.provider)).not.toContain("vast");
  });
});
