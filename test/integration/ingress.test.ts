/**
 * Provider webhook ingress, `POST /v1/ingress/:provider/:token` (docs/ingress.md; guarantee 11):
 * the token and each provider's proof, the 5-minute window, de-duplication by event id, events
 * for machines lessor does not hold, RunPod's unsigned hint, and the whole path from a machine
 * vanishing on the sim to its lease, with no cron and no alarm of the lease's own in between.
 * Vast's and RunPod's deliveries come under each org's account's own token (issue 28 item 8):
 * one org's never reach another's leases, and the installation-wide URL is retired for them.
 * Signatures are made here from the providers' published formats (the `standardwebhooks` package
 * for the sim), not with lessor's own signer, so a verifier that drifted from them fails.
 */
import { createExecutionContext, env, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import worker from "../../functions/index";
import type { Env } from "../../src/env";
import { INGRESS_DEDUP_WINDOW_MS } from "../../src/ingress/dedup";
import { simSigningSecret } from "../../src/ingress/sim-key";
import { sha256Hex } from "../../src/ids";
import { providerWith } from "../../src/providers/registry";
import { STUB_API_KEYS } from "../support/stub-clouds-admin";
import { BASE, call, checkAnswer, createKey, createOrg, expectError, json, orgOnStubCloud, refreshCatalog, type TestOrg } from "./helpers";
import { forwardIngress, takeIngressDeliveries } from "./ingress-sink";
import { createLease, events, fastSim, getLease, waitFor, waitForState } from "./lease-helpers";

const TOKEN = env.LESSOR_INGRESS_TOKEN!;
const VAST_SECRET = env.LESSOR_VAST_WEBHOOK_SECRET!;
const at = (provider: string, token = TOKEN) => `/v1/ingress/${provider}/${token}`;
const nowS = () => Math.floor(Date.now() / 1000);
let serial = 0;
const eventId = (p: string) => `${p}_${Date.now()}_${++serial}`;

/** A sim delivery signed as Standard Webhooks says, with the key derived from the ingress token. */
async function simDelivery(payload: unknown, opts: { id?: string; ts?: number; secret?: string } = {}) {
  const raw = JSON.stringify(payload);
  const id = opts.id ?? eventId("msg");
  const ts = opts.ts ?? nowS();
  const signature = new Webhook(opts.secret ?? (await simSigningSecret(TOKEN))).sign(id, new Date(ts * 1000), raw);
  return { raw, headers: { "webhook-id": id, "webhook-timestamp": String(ts), "webhook-signature": signature } };
}

/** A Vast delivery: `sha256=<hex HMAC-SHA256(secret, "<ts>.<raw body>")>`, from the contract's words. */
async function vastDelivery(payload: unknown, opts: { id?: string; ts?: string; secret?: string } = {}) {
  const raw = JSON.stringify(payload);
  const ts = opts.ts ?? String(nowS());
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(opts.secret ?? VAST_SECRET), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${ts}.${raw}`)));
  const hex = [...mac].map((b) => b.toString(16).padStart(2, "0")).join("");
  return { raw, headers: { "x-vast-timestamp": ts, "x-vast-signature-256": `sha256=${hex}`, "x-vast-event-id": opts.id ?? eventId("vast") } };
}

/** A new ingress token for the org's account at `provider`, its key stored first when it holds none. */
async function accountToken(org: TestOrg, provider: "vast" | "runpod"): Promise<string> {
  const listed = (await json(await call("GET", "/v1/providers", { key: org.adminKey }))).data.find((p: any) => p.name === provider);
  if (!listed.configured) {
    const put = await call("PUT", `/v1/providers/${provider}`, { key: org.adminKey, body: { api_key: STUB_API_KEYS[provider] } });
    expect(put.status, await put.clone().text()).toBe(200);
  }
  const res = await call("POST", `/v1/providers/${provider}/ingress-token`, { key: org.adminKey });
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body.token;
}

/** Each provider's token for the tests that need one account: the sim's is the installation's. */
const tokens: Record<string, string> = { sim: TOKEN };
const tokenOf = (provider: string) => tokens[provider] ?? TOKEN;

beforeAll(async () => {
  const org = await createOrg();
  tokens.vast = await accountToken(org, "vast");
  tokens.runpod = await accountToken(org, "runpod");
});

const post = (provider: string, d: { raw: string; headers: Record<string, string> }, token = tokenOf(provider)) =>
  call("POST", at(provider, token), { raw: d.raw, headers: d.headers });

async function expectAnswer(res: Response, status: number, result: string, reason: string | null = null) {
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(body).toMatchObject({ result, reason });
  return body;
}

/** When the lease's object must act next by itself (its alarm), as the D1 index says; null: never. */
/**
 * The lease's next deadline as the index holds it once the index has caught up with `ready` (the
 * index is written after the object's own change, so read too early it still holds the booting
 * read-back's deadline, which a vanishing seconds later is always past).
 */
/**
 * When the lease's own alarm would next act, once the index has it ready (or past it): the
 * object's alarm, not the index's deadline, which may be earlier than it (docs/design.md "Shape").
 */
async function nextDeadline(leaseId: string): Promise<number | null> {
  await waitFor("the index to record the lease ready (or past it)", async () => {
    const row = await env.DB.prepare("SELECT state FROM leases WHERE id = ?").bind(leaseId).first<{ state: string }>();
    return row !== null && !["pending", "provisioning", "booting"].includes(row.state);
  });
  return runInDurableObject(env.LEASE.get(env.LEASE.idFromName(leaseId)), (_instance, state) => state.storage.getAlarm());
}

/** The Worker's own handler with settings changed, as a deploy with them would run it. */
async function withSettings(overrides: Partial<Env>, path: string, init: RequestInit) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${BASE}${path}`, init), { ...(env as Env), ...overrides } as Env, ctx);
  await waitOnExecutionContext(ctx);
  await checkAnswer("POST", path, res);
  return res;
}

describe("who may send", () => {
  it("is off, 404 not_found, without LESSOR_INGRESS_TOKEN; on with it", async () => {
    const d = await simDelivery({ machine_id: "sim-m-none" });
    for (const off of [undefined, ""]) {
      const res = await withSettings({ LESSOR_INGRESS_TOKEN: off }, at("sim"), { method: "POST", body: d.raw, headers: d.headers });
      await expectError(res, 404, "not_found");
    }
    await expectAnswer(await post("sim", d), 202, "ignored", "unknown_machine");
  });

  it("takes only providers it knows and the installation rents from: others are 404, whatever the token", async () => {
    const d = await simDelivery({ machine_id: "sim-m-none" });
    for (const provider of ["lambda", "nope", "__proto__", "constructor"]) {
      await expectError(await post(provider, d), 404, "not_found");
      await expectError(await post(provider, d, "x".repeat(40)), 404, "not_found");
    }
    const res = await withSettings({ LESSOR_PROVIDERS: "runpod" }, at("sim"), { method: "POST", body: d.raw, headers: d.headers });
    await expectError(res, 404, "not_found");
  });

  it("answers a wrong token 401, whatever the provider's proof, and never echoes it", async () => {
    const d = await simDelivery({ machine_id: "sim-m-none" });
    for (const token of [TOKEN.slice(0, -1), `${TOKEN}x`, "x", TOKEN.toUpperCase()]) {
      const res = await post("sim", d, token);
      const error = await expectError(res, 401, "unauthenticated");
      expect(JSON.stringify(error)).not.toContain(TOKEN.slice(10));
    }
    await expectError(await call("POST", at("runpod", "nope"), { body: { podId: "p" } }), 401, "unauthenticated");
    // An account token's shape, but no account's; and another provider's account's token.
    await expectError(await call("POST", at("runpod", `lsi_${"A".repeat(43)}`), { body: { podId: "p" } }), 401, "unauthenticated");
    await expectError(await call("POST", at("runpod", tokens.vast!), { body: { podId: "p" } }), 401, "unauthenticated");
  });

  it("refuses the installation's token on vast and runpod, 410 ingress_url_retired: their webhooks come per org account", async () => {
    const vast = await vastDelivery({ instance_id: 1 });
    const retired = await expectError(await post("vast", vast, TOKEN), 410, "ingress_url_retired");
    expect(retired.message).toContain("POST /v1/providers/vast/ingress-token");
    await expectError(await call("POST", at("runpod", TOKEN), { body: { podId: "p" } }), 410, "ingress_url_retired");
    // Nothing was recorded under it.
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM ingress_events WHERE event_id = ?").bind(vast.headers["x-vast-event-id"]).first("n")).toBe(0);
  });

  it("refuses a misconfigured token: too short, or not a plain path segment", async () => {
    for (const bad of ["short", `${"a".repeat(40)}/x`]) {
      const res = await worker.fetch(new Request(`${BASE}/v1/healthz`), { ...(env as Env), LESSOR_INGRESS_TOKEN: bad } as Env, createExecutionContext());
      expect(res.status).toBe(503);
      expect(JSON.stringify(await res.json())).toContain("LESSOR_INGRESS_TOKEN must be at least 32 characters");
    }
  });
});

describe("the sim's signature (Standard Webhooks)", () => {
  it("accepts a good signature; refuses a bad or missing one, 401", async () => {
    await expectAnswer(await post("sim", await simDelivery({ machine_id: "sim-m-none" })), 202, "ignored", "unknown_machine");
    const good = await simDelivery({ machine_id: "sim-m-none" });
    // Another key; the body changed after signing; the id changed after signing.
    const otherKey = await simDelivery({ machine_id: "sim-m-none" }, { secret: `whsec_${btoa("another key, 24 bytes!!!")}` });
    await expectError(await post("sim", otherKey), 401, "unauthenticated");
    await expectError(await post("sim", { ...good, raw: good.raw.replace("none", "nonf") }), 401, "unauthenticated");
    await expectError(await post("sim", { ...good, headers: { ...good.headers, "webhook-id": "msg_other" } }), 401, "unauthenticated");
    for (const missing of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
      const headers = { ...good.headers };
      delete headers[missing as keyof typeof headers];
      const error = await expectError(await post("sim", { ...good, headers }), 401, "unauthenticated");
      expect(error.message).toContain(missing);
    }
  });

  it("takes any one good signature of several (a key rotation)", async () => {
    const d = await simDelivery({ machine_id: "sim-m-none" });
    const headers = { ...d.headers, "webhook-signature": `v1,${btoa("not it")} ${d.headers["webhook-signature"]}` };
    await expectAnswer(await post("sim", { ...d, headers }), 202, "ignored", "unknown_machine");
  });

  it("refuses a timestamp more than 5 minutes old or ahead; takes one just within", async () => {
    for (const ts of [nowS() - 301, nowS() + 301, 0]) {
      const error = await expectError(await post("sim", await simDelivery({ machine_id: "sim-m-none" }, { ts })), 401, "unauthenticated");
      expect(error.message).toMatch(/5 minutes/);
    }
    for (const ts of [nowS() - 295, nowS() + 295]) {
      await expectAnswer(await post("sim", await simDelivery({ machine_id: "sim-m-none" }, { ts })), 202, "ignored", "unknown_machine");
    }
  });

  it("a replayed event id is 200 duplicate and does nothing; the id is kept in D1", async () => {
    const d = await simDelivery({ machine_id: "sim-m-none" });
    await expectAnswer(await post("sim", d), 202, "ignored", "unknown_machine");
    const again = await expectAnswer(await post("sim", d), 200, "duplicate");
    expect(again.event_id).toBe(d.headers["webhook-id"]);
    const rows = await env.DB.prepare("SELECT account, provider, event_id FROM ingress_events WHERE event_id = ?").bind(d.headers["webhook-id"]).all();
    // The installation's own account, the sim's, is ''.
    expect(rows.results).toEqual([{ account: "", provider: "sim", event_id: d.headers["webhook-id"] }]);
    // Past its 24 h window, the same id is a new event again.
    await env.DB.prepare("UPDATE ingress_events SET received_at = ? WHERE event_id = ?").bind(Date.now() - INGRESS_DEDUP_WINDOW_MS - 1, d.headers["webhook-id"]).run();
    await expectAnswer(await post("sim", d), 202, "ignored", "unknown_machine");
    await expectAnswer(await post("sim", d), 200, "duplicate");
    // The same id from another provider is another event.
    const vast = await vastDelivery({ instance_id: 1 }, { id: d.headers["webhook-id"] });
    await expectAnswer(await post("vast", vast), 202, "ignored", "unknown_machine");
  });

  it("a verified body that is not JSON is 400; one that names no machine is 202 ignored", async () => {
    const notJson = await simDeliveryRaw("{not json");
    await expectError(await post("sim", notJson), 400, "invalid_request");
    // Its id was taken in all the same: a redelivery is a duplicate, whatever it carries.
    await expectAnswer(await post("sim", notJson), 200, "duplicate");
    await expectAnswer(await post("sim", await simDelivery({ type: "ping" })), 202, "ignored", "no_machine");
    await expectAnswer(await post("sim", await simDelivery([1, 2])), 202, "ignored", "no_machine");
  });
});

describe("what a delivery costs", () => {
  /** `d1` that notes each round trip: a batch, or one statement run alone. */
  function countingD1(d1: D1Database, trips: string[]): D1Database {
    const statement = (s: D1PreparedStatement): D1PreparedStatement =>
      new Proxy(s, {
        get(target, prop) {
          if (prop === "bind") return (...args: unknown[]) => statement(target.bind(...args));
          if (prop === "first" || prop === "all" || prop === "run" || prop === "raw") {
            return (...args: unknown[]) => {
              trips.push(String(prop));
              return (target[prop] as (...a: unknown[]) => unknown).apply(target, args);
            };
          }
          return Reflect.get(target, prop, target);
        },
      });
    return new Proxy(d1, {
      get(target, prop) {
        if (prop === "prepare") return (sql: string) => statement(target.prepare(sql));
        if (prop === "batch") {
          return (statements: D1PreparedStatement[]) => {
            trips.push(`batch of ${statements.length}`);
            return target.batch(statements);
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }

  const deliver = async (provider: string, d: { raw: string; headers: Record<string, string> }, token = tokenOf(provider)) => {
    const trips: string[] = [];
    const res = await withSettings({ DB: countingD1(env.DB, trips) }, at(provider, token), { method: "POST", body: d.raw, headers: { ...d.headers, "content-type": "application/json" } });
    return { body: await json(res), status: res.status, trips };
  };

  it("one round trip to D1: the account read, the event id recorded and the machine looked up in one batch", async () => {
    const d = await simDelivery({ machine_id: "sim-m-none" });
    expect(await deliver("sim", d)).toMatchObject({ status: 202, body: { result: "ignored", reason: "unknown_machine" }, trips: ["batch of 3"] });
    expect(await deliver("sim", d)).toMatchObject({ status: 200, body: { result: "duplicate" }, trips: ["batch of 3"] });
    // Nothing to look up: the account and the record.
    expect(await deliver("sim", await simDelivery({ type: "ping" }))).toMatchObject({ status: 202, body: { reason: "no_machine" }, trips: ["batch of 2"] });
    // No event id (RunPod): the account and the lookup.
    const hint = { raw: JSON.stringify({ podId: "pod-nobody-holds" }), headers: {} };
    expect(await deliver("runpod", hint)).toMatchObject({ status: 202, body: { reason: "unknown_machine" }, trips: ["batch of 2"] });
    // A token of no account's shape is refused before D1 is read.
    expect(await deliver("runpod", hint, "not-a-token")).toMatchObject({ status: 401, trips: [] });
  });
});

/** A sim delivery of a raw body as is (not JSON). */
async function simDeliveryRaw(raw: string) {
  const id = eventId("msg");
  const ts = nowS();
  const signature = new Webhook(await simSigningSecret(TOKEN)).sign(id, new Date(ts * 1000), raw);
  return { raw, headers: { "webhook-id": id, "webhook-timestamp": String(ts), "webhook-signature": signature } };
}

describe("Vast's signature", () => {
  it("accepts a good one; refuses another secret, a changed body, a malformed or missing header, a stale timestamp", async () => {
    await expectAnswer(await post("vast", await vastDelivery({ instance_id: 424242 })), 202, "ignored", "unknown_machine");
    await expectError(await post("vast", await vastDelivery({ instance_id: 1 }, { secret: "another-secret" })), 401, "unauthenticated");
    const good = await vastDelivery({ instance_id: 1 });
    await expectError(await post("vast", { ...good, raw: good.raw.replace("1", "2") }), 401, "unauthenticated");
    await expectError(await post("vast", { ...good, headers: { ...good.headers, "x-vast-signature-256": good.headers["x-vast-signature-256"].slice(7) } }), 401, "unauthenticated");
    for (const missing of ["x-vast-timestamp", "x-vast-signature-256"]) {
      const headers: Record<string, string> = { ...good.headers };
      delete headers[missing];
      await expectError(await post("vast", { ...good, headers }), 401, "unauthenticated");
    }
    await expectError(await post("vast", await vastDelivery({ instance_id: 1 }, { ts: String(nowS() - 301) })), 401, "unauthenticated");
    await expectAnswer(await post("vast", await vastDelivery({ instance_id: 1 }, { ts: `${nowS() - 5}.25` })), 202, "ignored", "unknown_machine");
  });

  it("is refused without LESSOR_VAST_WEBHOOK_SECRET; takes any one of several secrets", async () => {
    const d = await vastDelivery({ instance_id: 1 });
    const path = at("vast", tokens.vast);
    await expectError(await withSettings({ LESSOR_VAST_WEBHOOK_SECRET: undefined }, path, { method: "POST", body: d.raw, headers: d.headers }), 401, "unauthenticated");
    const both = await withSettings({ LESSOR_VAST_WEBHOOK_SECRET: ` old-secret , ${VAST_SECRET}` }, path, { method: "POST", body: d.raw, headers: d.headers });
    await expectAnswer(both, 202, "ignored", "unknown_machine");
  });

  it("de-duplicates by X-Vast-Event-Id", async () => {
    const d = await vastDelivery({ data: { instance_id: "77" } });
    await expectAnswer(await post("vast", d), 202, "ignored", "unknown_machine");
    await expectAnswer(await post("vast", d), 200, "duplicate");
  });
});

describe("a lease's machine", () => {
  let key: string;

  beforeAll(async () => {
    const org = await createOrg();
    key = (await createKey(org, "write")).secret;
    await refreshCatalog();
  });

  beforeEach(() => {
    takeIngressDeliveries();
  });

  afterEach(() => {
    forwardIngress(false);
  });

  /** Long enough after the machine first runs for its lease to be ready, and done reading it back. */
  const VANISH_MS = 3_000;

  /** A ready lease whose sim machine vanishes `vanishMs` after it first runs. */
  async function leaseThatVanishes(vanishMs: number) {
    await fastSim({ vanish_rate: 1, vanish_min_ms: vanishMs, vanish_max_ms: vanishMs });
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1", providers: ["sim"] }, policy: { idle_timeout: null } });
    const ready = await waitForState(key, lease.id, "ready");
    return { id: lease.id as string, machineId: ready.machine.id as string, nextDeadline: await nextDeadline(lease.id) };
  }

  it("an accepted event pokes the lease: a sim machine that vanishes reaches its lease through ingress, no cron, before its own alarm", async () => {
    forwardIngress(true);
    const { id, machineId, nextDeadline } = await leaseThatVanishes(VANISH_MS);
    const released = await waitForState(key, id, "released", 15_000);
    expect(released.release_reason).toBe("provider_lost");
    const lost = (await events(key, id)).find((e) => e.reason === "provider_lost");
    // The lease's own alarm was not what found it: it was due later.
    expect(nextDeadline === null || Date.parse(lost.at) < nextDeadline).toBe(true);
    // The sim told ingress, signed, and ingress accepted it for this lease.
    const told = takeIngressDeliveries().filter((d) => JSON.parse(d.body).machine_id === machineId);
    expect(told.map((d) => JSON.parse(d.body).status)).toEqual(expect.arrayContaining(["PROVISIONING", "RUNNING", "TERMINATED"]));
    const terminated = told.find((d) => JSON.parse(d.body).status === "TERMINATED")!;
    expect(terminated.status).toBe(202);
    expect(terminated.url).toBe(`${BASE}${at("sim")}`);
  });

  it("without ingress reaching the Worker, the same vanishing leaves the lease ready for a while: the test above can fail", async () => {
    const { id, machineId } = await leaseThatVanishes(VANISH_MS);
    await waitFor("the sim to tell of the vanishing", async () => takeIngressDeliveries().some((d) => JSON.parse(d.body).machine_id === machineId && JSON.parse(d.body).status === "TERMINATED"));
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await getLease(key, id)).state).toBe("ready");
    await call("POST", `/v1/leases/${id}/end`, { key, body: {} });
  });

  it("an event of a machine with a live lease is 202 accepted, and a replay of it 200", async () => {
    await fastSim();
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1", providers: ["sim"] } });
    const ready = await waitForState(key, lease.id, "ready");
    const d = await simDelivery({ machine_id: ready.machine.id, status: "TERMINATED" });
    await expectAnswer(await post("sim", d), 202, "accepted");
    await expectAnswer(await post("sim", d), 200, "duplicate");
    // A hint only: the machine still runs, and the lease read it back so.
    await new Promise((r) => setTimeout(r, 500));
    expect((await getLease(key, lease.id)).state).toBe("ready");
    await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} });
  });
});

describe("RunPod (unsigned: the token is the only proof)", () => {
  const stubs = inject("stubClouds");
  const served = stubs?.providers.includes("runpod") ?? false;

  it("takes a payload without any signature as a hint; one naming no pod lessor holds is ignored", async () => {
    const url = at("runpod", tokens.runpod);
    await expectAnswer(await call("POST", url, { body: { podId: "pod-nobody-holds" } }), 202, "ignored", "unknown_machine");
    await expectAnswer(await call("POST", url, { body: { event: "ping" } }), 202, "ignored", "no_machine");
    // No id to de-duplicate by: the same hint again is taken again (a read-back is idempotent).
    await expectAnswer(await call("POST", url, { body: { podId: "pod-nobody-holds" } }), 202, "ignored", "unknown_machine");
  });

  it.skipIf(!served)("a pod terminated behind lessor's back reaches its lease through an unsigned hint", async () => {
    const { org, key } = await orgOnStubCloud("runpod");
    const url = at("runpod", await accountToken(org, "runpod"));
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "l40s-runpod:1" }, policy: { idle_timeout: null } });
    const ready = await waitForState(key, lease.id, "ready", 30_000);
    const due = await nextDeadline(lease.id);
    await providerWith(env, "runpod", { api_key: STUB_API_KEYS.runpod, options: {} }).destroyMachine(ready.machine.id);
    // What the payload says is not believed: "RUNNING" here, but the lease reads the pod back.
    await expectAnswer(await call("POST", url, { body: { podId: ready.machine.id, desiredStatus: "RUNNING" } }), 202, "accepted");
    const released = await waitForState(key, lease.id, "released", 15_000);
    expect(released.release_reason).toBe("provider_lost");
    const lost = (await events(key, lease.id)).find((e) => e.reason === "provider_lost");
    expect(due === null || Date.parse(lost.at) < due).toBe(true);
  });
});

describe("provider accounts (issue 28 item 8): each org's account takes webhooks under its own token", () => {
  const stubs = inject("stubClouds");
  const served = stubs?.providers.includes("runpod") ?? false;

  it("a token is shown once and stored as its SHA-256; asking again replaces it; deleting the key forgets it", async () => {
    const org = await createOrg();
    // No key yet: nothing to give a token to.
    await expectError(await call("POST", "/v1/providers/vast/ingress-token", { key: org.adminKey }), 404, "not_found");
    const first = await accountToken(org, "vast");
    expect(first).toMatch(/^lsi_[0-9A-Za-z]{43}$/);
    const row = await env.DB.prepare("SELECT ingress_token_hash AS h FROM provider_keys WHERE org_id = ? AND provider = 'vast'").bind(org.id).first<{ h: string }>();
    expect(row!.h).toBe(await sha256Hex(first));
    const listed = (await json(await call("GET", "/v1/providers", { key: org.adminKey }))).data;
    expect(JSON.stringify(listed)).not.toContain(first);
    expect(listed.find((p: any) => p.name === "vast").ingress_token_created_at).toEqual(expect.any(String));
    expect(listed.find((p: any) => p.name === "runpod").ingress_token_created_at).toBeNull();
    const d = await vastDelivery({ instance_id: 1 });
    await expectAnswer(await post("vast", d, first), 202, "ignored", "unknown_machine");

    const second = await accountToken(org, "vast");
    expect(second).not.toBe(first);
    await expectError(await post("vast", await vastDelivery({ instance_id: 1 }), first), 401, "unauthenticated");
    await expectAnswer(await post("vast", await vastDelivery({ instance_id: 1 }), second), 202, "ignored", "unknown_machine");
    // A new key for the account keeps its token: the provider keeps the URL it was given.
    expect((await call("PUT", "/v1/providers/vast", { key: org.adminKey, body: { api_key: STUB_API_KEYS.vast } })).status).toBe(200);
    await expectAnswer(await post("vast", await vastDelivery({ instance_id: 1 }), second), 202, "ignored", "unknown_machine");
    expect((await call("DELETE", "/v1/providers/vast", { key: org.adminKey })).status).toBe(200);
    await expectError(await post("vast", await vastDelivery({ instance_id: 1 }), second), 401, "unauthenticated");
  });

  it("is minted only for providers whose webhooks come per org account, by an admin", async () => {
    const org = await createOrg();
    for (const provider of ["sim", "lambda"]) {
      const error = await expectError(await call("POST", `/v1/providers/${provider}/ingress-token`, { key: org.adminKey }), 400, "ingress_not_per_account");
      expect(error.details.provider).toBe(provider);
    }
    const write = (await createKey(org, "write")).secret;
    await expectError(await call("POST", "/v1/providers/vast/ingress-token", { key: write }), 403, "insufficient_scope");
  });

  it("de-duplicates per account: one account's event id never makes another's delivery a duplicate", async () => {
    const other = await accountToken(await createOrg(), "vast");
    const d = await vastDelivery({ instance_id: 5 });
    await expectAnswer(await post("vast", d), 202, "ignored", "unknown_machine");
    await expectAnswer(await post("vast", d), 200, "duplicate");
    await expectAnswer(await post("vast", d, other), 202, "ignored", "unknown_machine");
    await expectAnswer(await post("vast", d, other), 200, "duplicate");
  });

  it("an account at its cap of event ids gets 429 for a new one, with Retry-After; a duplicate is still 200; other accounts are untouched", async () => {
    const [full, other] = await Promise.all([createOrg().then((o) => accountToken(o, "vast")), createOrg().then((o) => accountToken(o, "vast"))]);
    const capped = (token: string, d: { raw: string; headers: Record<string, string> }) =>
      withSettings({ LESSOR_INGRESS_EVENTS_PER_DAY: "3" }, at("vast", token), { method: "POST", body: d.raw, headers: d.headers });
    const taken = [];
    for (let i = 0; i < 3; i++) {
      const d = await vastDelivery({ instance_id: 9 });
      await expectAnswer(await capped(full, d), 202, "ignored", "unknown_machine");
      taken.push(d);
    }
    const refused = await capped(full, await vastDelivery({ instance_id: 9 }));
    const error = await expectError(refused, 429, "rate_limited");
    expect(error.details).toMatchObject({ budget: "ingress_events", max: 3, window_s: 86_400 });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(86_000);
    await expectAnswer(await capped(full, taken[0]!), 200, "duplicate");
    await expectAnswer(await capped(other, await vastDelivery({ instance_id: 9 })), 202, "ignored", "unknown_machine");
  });

  it.skipIf(!served)("one org's delivery never reaches another org's lease, so never makes lessor read with that org's key; the owner's does", async () => {
    const owner = await orgOnStubCloud("runpod");
    const stranger = await orgOnStubCloud("runpod");
    const [ownerUrl, strangerUrl] = [at("runpod", await accountToken(owner.org, "runpod")), at("runpod", await accountToken(stranger.org, "runpod"))];
    const lease = await createLease(owner.key, { kind: "scratch", spec: { gpu: "l40s-runpod:1" }, policy: { idle_timeout: null } });
    const ready = await waitForState(owner.key, lease.id, "ready", 30_000);
    await providerWith(env, "runpod", { api_key: STUB_API_KEYS.runpod, options: {} }).destroyMachine(ready.machine.id);
    // The stranger's account names the owner's pod: no lease of its org holds it.
    await expectAnswer(await call("POST", strangerUrl, { body: { podId: ready.machine.id } }), 202, "ignored", "unknown_machine");
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await getLease(owner.key, lease.id)).state).toBe("ready");
    // The owner's own account's delivery is read back, and the lease learns its pod is gone.
    await expectAnswer(await call("POST", ownerUrl, { body: { podId: ready.machine.id } }), 202, "accepted");
    expect((await waitForState(owner.key, lease.id, "released", 15_000)).release_reason).toBe("provider_lost");
  });

  it.skipIf(!served)("an unsigned RunPod hint only causes a read-back: a payload saying the pod is gone changes nothing while it runs", async () => {
    const { org, key } = await orgOnStubCloud("runpod");
    const url = at("runpod", await accountToken(org, "runpod"));
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "l40s-runpod:1" }, policy: { idle_timeout: null } });
    await waitForState(key, lease.id, "ready", 30_000);
    const machineId = (await getLease(key, lease.id)).machine.id;
    const before = (await events(key, lease.id)).length;
    // As the lease shows it: a read-back that changes nothing else is held in the object's memory, not written (docs/cost.md).
    const observedAt = async () => Date.parse((await getLease(key, lease.id)).machine.observed_at);
    const read = await observedAt();
    for (const claim of [{ desiredStatus: "TERMINATED" }, { desiredStatus: "EXITED", status: "STOPPED" }, { event: "pod.deleted" }]) {
      await expectAnswer(await call("POST", url, { body: { podId: machineId, ...claim } }), 202, "accepted");
    }
    await waitFor("the hints' read-back", async () => ((await observedAt()) ?? 0) > (read ?? 0));
    const after = await getLease(key, lease.id);
    expect(after.state).toBe("ready");
    expect((await events(key, lease.id)).length).toBe(before);
    await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} });
  });
});
