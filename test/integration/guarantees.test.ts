/**
 * docs/design.md guarantees 1 to 6, each test named after its guarantee, run on every cloud lessor
 * rents from: the sim, and RunPod, Vast.ai and Lambda through their real adapters against the
 * stub clouds (test/support/stub-clouds), where every request and answer is held to that
 * provider's own published document. The test bodies are the same for all of them; they branch
 * only on capabilities, as the lease engine does.
 * (Guarantee 8 is in isolation.test.ts, 10 in leases.test.ts, 12 in fuzz.test.ts.)
 */
import { createScheduledController, env, runInDurableObject } from "cloudflare:test";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import worker from "../../functions/index";
import { database } from "../../src/db";
import { orgEventsStub } from "../../src/events/forward";
import type { OrgEventsObject } from "../../src/events/org-object";
import { ORG_POKE_GRACE_MS } from "../../src/orgs/lease-index";
import type { Provider } from "../../src/providers/contract";
import { providerCapabilities, providerWith } from "../../src/providers/registry";
import { SimProvider } from "../../src/providers/sim/adapter";
import type { SimAdmin } from "../../src/providers/sim/adapter";
import { STUB_API_KEYS, STUB_LAMBDA_SSH_KEY_NAME, stubCloudAdmin, type StubProvider } from "../support/stub-clouds-admin";
import { call, createKey, createOrg, json, refreshCatalog, type TestOrg } from "./helpers";
import { createLease, events, getLease, maxAliveAtOnce, sim, waitFor, waitForState } from "./lease-helpers";

/** A cloud the guarantees are checked on: its admin (faults, ledger) and a direct client of it. */
interface Cloud {
  name: string;
  admin: Pick<SimAdmin, "setFaults" | "reset" | "getLedger">;
  client(): Provider;
  /** The body of `PUT /v1/providers/:name`, for a provider that needs the org's key. */
  key: Record<string, unknown> | null;
  /** Requests and answers its published document refuses (stub clouds only): must stay empty. */
  violations: () => Promise<unknown[]>;
}

function stubCloud(url: string, name: StubProvider): Cloud {
  const options: Record<string, string> = name === "lambda" ? { ssh_key_name: STUB_LAMBDA_SSH_KEY_NAME } : {};
  return {
    name,
    admin: stubCloudAdmin(url, name),
    client: () => providerWith(env, name, { api_key: STUB_API_KEYS[name], options }),
    key: { api_key: STUB_API_KEYS[name], options },
    violations: async () => (await stubCloudAdmin(url, name).getViolations()).violations,
  };
}

const stubs = inject("stubClouds");
const CLOUDS: Cloud[] = [
  { name: "sim", admin: sim(), client: () => new SimProvider(env), key: null, violations: async () => [] },
  ...(stubs ? stubs.providers.map((p) => stubCloud(stubs.url, p)) : []),
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const runCron = () => worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), env);
const stubOf = (id: string) => env.LEASE.get(env.LEASE.idFromName(id));
const AUTOMATIC = new Set(["ttl_expired", "idle_timeout", "max_lifetime", "budget_exceeded", "stopped_ttl", "boot_timeout", "startup_timeout", "host_failed", "provider_lost", "provider_stopped", "stop_failed", "no_capacity", "provider_refused", "unexpected_start", "max_runtime", "inactivity", "job_exited"]);

/** Every machine a lease had on the cloud (every attempt), from the cloud's own ledger. */
async function machinesOf(cloud: Cloud, leaseId: string) {
  return (await cloud.admin.getLedger(`lessor-dev-${leaseId}-`)).machines;
}

describe.each(CLOUDS)("on $name", (cloud) => {
  const canStop = providerCapabilities(cloud.name).stop;
  /** The spec every test rents with, pinned to this cloud. */
  const specOf = (gpu: string) => ({ gpu, providers: [cloud.name] });
  const SPEC = specOf("l40s:1");
  let org: TestOrg;
  let key: string;

  beforeAll(async () => {
    org = await createOrg();
    key = (await createKey(org, "write")).secret;
    if (cloud.key) {
      const res = await call("PUT", `/v1/providers/${cloud.name}`, { key: org.adminKey, body: cloud.key });
      if (res.status !== 200) throw new Error(`PUT /v1/providers/${cloud.name}: ${res.status} ${await res.text()}`);
    }
    await refreshCatalog();
  });

  beforeEach(async () => {
    // The faults a test injects mark hosts bad for the org (docs/design.md "Placement"); each test
    // starts with every host of the cloud rentable again.
    await database(env.DB).deleteFrom("bad_hosts").where("org_id", "=", org.id).execute();
    // Fast machines and no faults, as most tests want.
    await cloud.admin.reset();
    await cloud.admin.setFaults({ provision_delay_ms: 50, boot_delay_ms: 100 });
  });

  afterAll(async () => {
    expect(await cloud.violations(), `${cloud.name}: requests or answers its document refuses`).toEqual([]);
    await cloud.admin.reset();
  });

  describe("guarantee 1: never two provider machines alive for one lease", () => {
    it("holds under every fault the sim can inject", async () => {
      await cloud.admin.setFaults({ api_error_rate: 0.15, rate_limit_rate: 0.1, retry_after_s: 0, ambiguous_create_rate: 0.4, boot_failure_rate: 0.3, vanish_rate: 0.2, vanish_min_ms: 200, vanish_max_ms: 800, seed: 7 });
      const leases = await Promise.all(
        Array.from({ length: 8 }, () => createLease(key, { kind: "scratch", spec: specOf("l4:1"), policy: { ttl: "4s", host_attempts: 3 } })),
      );
      for (const l of leases) await waitForState(key, l.id, "released", 40_000);
      const now = Date.now();
      for (const l of leases) {
        const machines = await machinesOf(cloud, l.id);
        expect(maxAliveAtOnce(machines, now), `${l.id}: ${JSON.stringify(machines.map((m) => [m.created_at, m.destroyed_at]))}`).toBeLessThanOrEqual(1);
        for (const m of machines) expect(m.status, m.id).toBe("TERMINATED");
      }
    });

    it("replacing a failed host destroys the old machine before renting the next", async () => {
      await cloud.admin.setFaults({ boot_failure_rate: 1 });
      const lease = await createLease(key, { kind: "scratch", spec: SPEC, policy: { host_attempts: 3 } });
      const released = await waitForState(key, lease.id, "released", 20_000);
      expect(released.release_reason).toBe("host_failed");
      const machines = await machinesOf(cloud, lease.id);
      expect(machines).toHaveLength(3);
      expect(new Set(machines.map((m) => m.offer_id)).size).toBe(3);
      expect(maxAliveAtOnce(machines, Date.now())).toBe(1);
      expect(released.excluded_hosts).toHaveLength(3);
      expect(machines.every((m) => m.status === "TERMINATED")).toBe(true);
    });
  });

  describe("guarantee 2: a create is never retried blindly", () => {
    it("after an ambiguous create, the lease lists by its label and adopts the machine it finds", async () => {
      await cloud.admin.setFaults({ ambiguous_create_rate: 1 });
      const lease = await createLease(key, { kind: "scratch", spec: SPEC });
      await waitFor("an ambiguous create", async () => (await events(key, lease.id)).some((e) => e.type === "create_ambiguous"), 30_000);
      await cloud.admin.setFaults({ ambiguous_create_rate: 0 });
      const ready = await waitForState(key, lease.id, "ready");
      const types = (await events(key, lease.id)).map((e) => e.type);
      expect(types).toContain("machine_adopted");
      expect(types.filter((t) => t === "machine_created")).toHaveLength(0);
      const machines = await machinesOf(cloud, lease.id);
      expect(machines).toHaveLength(1);
      expect(ready.machine.id).toBe(machines[0]!.id);
    });
  });

  describe("guarantee 3: every automatic stop or destroy records its reason", () => {
    it("idle_timeout stops, ttl_expired releases, each with its reason in the events", async () => {
      const idle = await createLease(key, { kind: "scratch", spec: SPEC, policy: { idle_timeout: "1s", heartbeat_grace: "1s" } });
      const ttl = await createLease(key, { kind: "scratch", spec: SPEC, policy: { ttl: "3s", idle_timeout: null } });
      await waitForState(key, idle.id, canStop ? "stopped" : "released", 20_000);
      await waitForState(key, ttl.id, "released", 20_000);
      // Where the provider cannot stop, the policy destroys instead, for the same reason.
      const stopEvent = (await events(key, idle.id)).find((e) => e.type === (canStop ? "stop_requested" : "release_requested"));
      expect(stopEvent).toMatchObject(canStop ? { from: "ready", to: "stopping", reason: "idle_timeout" } : { reason: "idle_timeout" });
      const releaseEvent = (await events(key, ttl.id)).find((e) => e.type === "release_requested");
      expect(releaseEvent).toMatchObject({ reason: "ttl_expired" });
      expect((await getLease(key, ttl.id)).release_reason).toBe("ttl_expired");
      await call("POST", `/v1/leases/${idle.id}/end`, { key, body: {} });
    });

    it("no transition away from a live state lacks a reason unless a user asked for it", async () => {
      const leases = await json(await call("GET", "/v1/leases?limit=200", { key }));
      for (const l of leases.data) {
        for (const e of await events(key, l.id)) {
          if (e.type === "stop_requested" || e.type === "release_requested") {
            expect(e.reason, `${l.id} ${e.type}`).toBeTruthy();
          }
          if (e.type === "released") {
            expect(e.reason === "user_end" || AUTOMATIC.has(e.reason), `${l.id} released for ${e.reason}`).toBe(true);
          }
        }
      }
    });
  });

  describe("guarantee 4: a lease in use is never idle-stopped; hard caps still apply", () => {
    it("a heartbeating lease and a locked lease stay ready past their idle timeout; the ttl still ends them", async () => {
      // The idle timeout leaves room for a slow poll between ready and the lock on a loaded machine;
      // the ttl for a slow boot and for the idle lease to be stopped first.
      const policy = { idle_timeout: "3s", heartbeat_grace: "1s", ttl: "20s" };
      const beating = await createLease(key, { kind: "scratch", spec: SPEC, policy });
      const locked = await createLease(key, { kind: "scratch", spec: SPEC, policy });
      const idle = await createLease(key, { kind: "scratch", spec: SPEC, policy });
      // Heartbeats from the moment the lease is ready until it is released.
      let beatingDone = false;
      const beats = (async () => {
        await waitForState(key, beating.id, "ready");
        while (!beatingDone) {
          await call("POST", `/v1/leases/${beating.id}/heartbeat`, { key, body: {} });
          await sleep(300);
        }
      })();
      await waitForState(key, locked.id, "ready");
      await call("POST", `/v1/leases/${locked.id}/lock`, { key, body: { for: "1h" } });
      // At least 5 s (past idle_timeout + heartbeat_grace), and until the idle lease, unused, has
      // been stopped (destroyed where the provider cannot stop).
      const from = Date.now();
      await waitFor("the idle lease to be stopped", async () => {
        const state = (await getLease(key, idle.id)).state;
        return Date.now() - from >= 5_000 && (canStop ? ["stopping", "stopped"] : ["releasing", "released"]).includes(state);
      }, 15_000);
      for (const l of [beating, locked]) {
        expect((await getLease(key, l.id)).state, JSON.stringify(await events(key, l.id))).toBe("ready");
      }
      // Still in use until the end: the hard cap, not idleness, ends it.
      const b = await waitForState(key, beating.id, "released", 40_000).finally(() => {
        beatingDone = true;
      });
      await beats;
      const l = await waitForState(key, locked.id, "released", 40_000);
      expect(b.release_reason).toBe("ttl_expired");
      expect(l.release_reason).toBe("ttl_expired");
      await call("POST", `/v1/leases/${idle.id}/end`, { key, body: {} });
    });
  });

  describe("guarantee 5: an expired lease is acted on by its alarm, or by the cron backstop when alarms are lost", () => {
    it("the alarm acts at the deadline", async () => {
      const lease = await createLease(key, { kind: "scratch", spec: SPEC, policy: { ttl: "2s" } });
      const released = await waitForState(key, lease.id, "released", 10_000);
      const requested = (await events(key, lease.id)).find((e) => e.type === "release_requested")!;
      // Acted on by its alarm: no cron runs in this test. How soon after the deadline is a speed
      // figure, measured by `npm run bench` (reap latency) on an idle machine; here, on a shared
      // and loaded one, only a bound far below the cron period is asserted (it was 1,024 ms once
      // under a load of 12 on 2 cores).
      expect(Date.parse(requested.at) - Date.parse(lease.ttl_expires_at)).toBeLessThan(5_000);
      expect(released.release_reason).toBe("ttl_expired");
    });

    it("with its alarm lost, its org's object pokes it 30 s past its indexed deadline", async () => {
      const lease = await createLease(key, { kind: "scratch", spec: SPEC, policy: { ttl: "4s", idle_timeout: null } });
      await waitForState(key, lease.id, "ready");
      await waitFor("the alarm to stay deleted", async () => {
        await runInDurableObject(stubOf(lease.id), (_instance, state) => state.storage.deleteAlarm());
        await sleep(150);
        return (await runInDurableObject(stubOf(lease.id), (_instance, state) => state.storage.getAlarm())) === null;
      }, 90_000);
      // No cron run: the org's object's alarm is 30 s past the lease's indexed deadline (src/events/org-object.ts).
      const after = await waitForState(key, lease.id, "released", Math.max(0, Date.parse(lease.ttl_expires_at) - Date.now()) + ORG_POKE_GRACE_MS + 15_000);
      expect(after.release_reason).toBe("ttl_expired");
    });

    it("with its alarm and its org's alarm lost, the next cron run acts on it", async () => {
      const lease = await createLease(key, { kind: "scratch", spec: SPEC, policy: { ttl: "4s", idle_timeout: null } });
      await waitForState(key, lease.id, "ready");
      const orgObject = orgEventsStub(env, org.id) as unknown as DurableObjectStub<OrgEventsObject>;
      // A run still finishing when the lease turned ready sets the alarm again in its `finally`, and
      // its write-through sets the org's: delete both until they stay deleted.
      await waitFor("the alarms to stay deleted", async () => {
        await runInDurableObject(stubOf(lease.id), (_instance, state) => state.storage.deleteAlarm());
        await runInDurableObject(orgObject, (_instance, state) => state.storage.deleteAlarm());
        await sleep(150);
        return (
          (await runInDurableObject(stubOf(lease.id), (_instance, state) => state.storage.getAlarm())) === null &&
          (await runInDurableObject(orgObject, (_instance, state) => state.storage.getAlarm())) === null
        );
      });
      await sleep(Math.max(0, Date.parse(lease.ttl_expires_at) - Date.now()) + 500);
      expect((await getLease(key, lease.id)).state).toBe("ready");
      await runCron();
      const after = await waitForState(key, lease.id, "released", 10_000);
      expect(after.release_reason).toBe("ttl_expired");
    });
  });

  describe("guarantee 6: orphans are reaped; machines without this installation's label are never touched", () => {
    it("stops an orphan after the grace, destroys it after its stopped ttl, and leaves others' machines alone", async () => {
      const provider = cloud.client();
      const offerId = (await provider.listOffers()).offers[0]!.provider_offer_id;
      const orphan = await provider.createMachine({ label: "lessor-dev-ls_0000000000000000000000orph-a1", offer_id: offerId });
      const otherInstallation = await provider.createMachine({ label: "lessor-prod-ls_00000000000000000000000abc-a1", offer_id: offerId });
      const unlabelled = await provider.createMachine({ label: "someone-elses-training-box", offer_id: offerId });
      const lookalike = await provider.createMachine({ label: "lessor-devx-ls_00000000000000000000000abc-a1", offer_id: offerId });
      await sleep(300);
      await runCron(); // first seen
      await sleep(1_100);
      await runCron(); // past the 1 s grace: stopped (destroyed where the provider cannot stop)
      if (canStop) {
        await waitFor("orphan stopped", async () => (await provider.getMachine(orphan.id))?.status === "stopped");
        await sleep(2_100);
        await runCron(); // past the 2 s stopped ttl: destroyed
      }
      expect(await provider.getMachine(orphan.id)).toBeNull();
      for (const m of [otherInstallation, unlabelled, lookalike]) {
        const now = await provider.getMachine(m.id);
        expect(now?.status, m.label).toBe("running");
      }
      for (const m of [otherInstallation, unlabelled, lookalike]) await provider.destroyMachine(m.id);
    });

    it("never touches a live lease's machine", async () => {
      const lease = await createLease(key, { kind: "scratch", spec: SPEC });
      await waitForState(key, lease.id, "ready");
      await runCron();
      await sleep(1_100);
      await runCron();
      expect((await getLease(key, lease.id)).state).toBe("ready");
      expect((await machinesOf(cloud, lease.id))[0]!.status).toBe("RUNNING");
      await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} });
    });

    it("a lease whose machine vanished is released with reason provider_lost", async () => {
      const lease = await createLease(key, { kind: "scratch", spec: SPEC, policy: { idle_timeout: null } });
      const ready = await waitForState(key, lease.id, "ready");
      // The provider loses the machine: nothing lessor did.
      await cloud.client().destroyMachine(ready.machine.id);
      await runCron();
      const released = await waitForState(key, lease.id, "released", 10_000);
      expect(released.release_reason).toBe("provider_lost");
    });
  });

  describe("one writer inside the object", () => {
    it("a user's end that arrives while a step awaits the provider is applied after it, never lost", async () => {
      const lease = await createLease(key, { kind: "scratch", spec: SPEC });
      await waitForState(key, lease.id, "ready");
      // Provider calls now meet a 429 (Retry-After 1 s): a poke's read of the machine sits in its
      // backoff, the user ends the lease meanwhile, then the read goes through.
      await cloud.admin.setFaults({ rate_limit_rate: 1, retry_after_s: 1 });
      const poke = stubOf(lease.id).tick();
      await sleep(200);
      const ending = call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} });
      await sleep(100);
      await cloud.admin.setFaults({ rate_limit_rate: 0 });
      const [ended] = await Promise.all([ending, poke]);
      expect(ended.status).toBe(200);
      expect((await json(ended)).release_reason).toBe("user_end");
      // The poke's late read must not have put the lease back where it was before the end.
      expect(["releasing", "released"]).toContain((await getLease(key, lease.id)).state);
      const released = await waitForState(key, lease.id, "released", 20_000);
      expect(released.release_reason).toBe("user_end");
      const types = (await events(key, lease.id)).map((e) => e.type);
      expect(types.filter((t) => t === "released")).toHaveLength(1);
      expect(types.slice(types.indexOf("release_requested"))).not.toContain("ready");
      expect((await machinesOf(cloud, lease.id)).every((m) => m.status === "TERMINATED")).toBe(true);
    });
  });

  describe("the lease index", () => {
    it("a failed index write is retried until the index matches the object", async () => {
      const lease = await createLease(key, { kind: "scratch", spec: SPEC });
      await waitForState(key, lease.id, "ready");
      // Break the index write for this lease, once, with a trigger on the real D1 table.
      await env.DB.prepare(
        `CREATE TRIGGER break_index_${lease.id} BEFORE UPDATE ON leases WHEN NEW.id = '${lease.id}' BEGIN SELECT RAISE(ABORT, 'index write broken by the test'); END`,
      ).run();
      // A transition whose index write fails: a stop, or an end where the provider cannot stop.
      const [action, target] = canStop ? ["stop", "stopped"] : ["end", "released"];
      expect((await call("POST", `/v1/leases/${lease.id}/${action}`, { key, body: {} })).status).toBe(200);
      await waitForState(key, lease.id, target);
      const stale = await env.DB.prepare("SELECT state FROM leases WHERE id = ?").bind(lease.id).first<any>();
      expect(stale.state).not.toBe(target);
      await env.DB.prepare(`DROP TRIGGER break_index_${lease.id}`).run();
      await waitFor("index repaired", async () => {
        const row = await env.DB.prepare("SELECT state FROM leases WHERE id = ?").bind(lease.id).first<any>();
        return row.state === target;
      });
      await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} });
    });
  });

});

describe("guarantee 5: the backstop reads only what is due", () => {
  it("no D1 query reads deadlines: they are in each org's object (its plan: test/integration/org-lease-index.test.ts)", async () => {
    expect(await env.DB.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'leases_due'`).first()).toBeNull();
  });
});
