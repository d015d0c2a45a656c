/**
 * Open streams and long polls are capped (src/auth/stream-slots.ts; docs/api.md "Rate limits"): at most
 * 20 event streams and log follows per credential and 100 per org, at most 2 agent long polls per
 * lease token and 1,000 per org; past a cap the answer is 429 `rate_limited` with
 * `details.budget` naming the pool, and a stream that ends, or whose client goes away, gives its
 * slot back.
 *
 * vitest.config.ts raises the stream limits for every other file (lease-logs.test.ts follows one
 * lease 100 times), so these requests go through the Worker's own fetch handler with the settings
 * overridden (unset: the defaults), as auth-limits.test.ts does.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../functions/index";
import { AGENT_POLLS_PER_LEASE, DEFAULT_STREAMS_PER_CREDENTIAL, DEFAULT_STREAMS_PER_ORG, SLOTS_RETRY_AFTER_S } from "../../src/auth/stream-slots";
import { BASE, BOOTSTRAP, call, checkAnswer, createKey, createOrg, json, refreshCatalog, type TestOrg } from "./helpers";
import { createLease, leaseSuite, waitFor, waitForState } from "./lease-helpers";

type Settings = Partial<Record<keyof typeof env, string | undefined>>;

/** The stream limits as a deployment without these settings has them. */
const DEFAULTS: Settings = { LESSOR_STREAMS_PER_CREDENTIAL: undefined, LESSOR_STREAMS_PER_ORG: undefined };

async function direct(path: string, key: string, settings: Settings = DEFAULTS, headers: Record<string, string> = {}): Promise<Response> {
  const req = new Request(`${BASE}${path}`, { headers: { authorization: `Bearer ${key}`, ...headers } });
  return await worker.fetch(req, { ...env, ...settings } as typeof env, createExecutionContext());
}

/** Opens a stream that must be admitted. */
async function open(path: string, key: string, settings?: Settings): Promise<Response> {
  const res = await direct(path, key, settings);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  return res;
}

/** A refused stream or poll: 429 rate_limited in the envelope, as the document describes it. */
async function expectRefused(res: Response, method: string, path: string, details: Record<string, unknown>) {
  await checkAnswer(method, path, res);
  expect(res.status).toBe(429);
  expect(res.headers.get("retry-after")).toBe(String(SLOTS_RETRY_AFTER_S));
  const body = await json(res);
  expect(body.error.code).toBe("rate_limited");
  expect(body.error.details).toEqual({ ...details, retry_after_s: SLOTS_RETRY_AFTER_S });
}

/** Tries to open `path` until it is admitted: a slot given back reaches its counter a moment after the stream ends. */
async function admittedAgain(path: string, key: string, settings?: Settings): Promise<Response> {
  return await waitFor(`${path} to be admitted again`, async () => {
    const res = await direct(path, key, settings);
    if (res.status === 200) return res;
    expect(res.status).toBe(429);
    await res.body?.cancel();
    return null;
  });
}

const cancelAll = async (streams: Response[]) => {
  for (const s of streams) await s.body?.cancel().catch(() => undefined);
};

let org: TestOrg;
let key: string;
leaseSuite((o, k) => {
  org = o;
  key = k;
});

describe("event streams and log follows", () => {
  it(`at most ${DEFAULT_STREAMS_PER_CREDENTIAL} open per credential, events and logs together: 429 past it; another key of the org is served; a client that goes away gives its slot back`, async () => {
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1" } });
    const reader = (await createKey(org, "read")).secret;
    const paths = [`/v1/events?follow=1`, `/v1/leases/${lease.id}/events?follow=1`, `/v1/leases/${lease.id}/logs?follow=1`];
    const streams: Response[] = [];
    for (let i = 0; i < DEFAULT_STREAMS_PER_CREDENTIAL; i++) streams.push(await open(paths[i % paths.length]!, reader));
    for (const path of paths) {
      await expectRefused(await direct(path, reader), "GET", path.split("?")[0]!, { budget: "streams", per: "credential", max: DEFAULT_STREAMS_PER_CREDENTIAL });
    }
    // Another credential of the same org has its own.
    const others = [await open(paths[0]!, key)];
    // A reader that goes away without reading to the end.
    await streams.shift()!.body!.cancel();
    streams.push(await admittedAgain(paths[2]!, reader));
    await cancelAll([...streams, ...others]);
  });

  it(`at most ${DEFAULT_STREAMS_PER_ORG} open per org, all its credentials together`, async () => {
    const o = await createOrg();
    const keys = await Promise.all(Array.from({ length: DEFAULT_STREAMS_PER_ORG / DEFAULT_STREAMS_PER_CREDENTIAL + 1 }, () => createKey(o, "read")));
    const streams: Response[] = [];
    for (const k of keys.slice(0, -1)) for (let i = 0; i < DEFAULT_STREAMS_PER_CREDENTIAL; i++) streams.push(await open("/v1/events?follow=1", k.secret));
    const last = keys.at(-1)!.secret;
    await expectRefused(await direct("/v1/events?follow=1", last), "GET", "/v1/events", { budget: "streams", per: "org", max: DEFAULT_STREAMS_PER_ORG });
    // Another org is not counted with this one.
    const elsewhere = await open("/v1/events?follow=1", org.adminKey);
    await streams.pop()!.body!.cancel();
    streams.push(await admittedAgain("/v1/events?follow=1", last));
    await cancelAll([...streams, elsewhere]);
  });

  it("a stream that ends (its lease released) gives its slot back; limits are settings", async () => {
    const settings = { LESSOR_STREAMS_PER_CREDENTIAL: "2", LESSOR_STREAMS_PER_ORG: undefined };
    const reader = (await createKey(org, "read")).secret;
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1" } });
    const path = `/v1/leases/${lease.id}/events?follow=1`;
    const streams = [await open(path, reader, settings), await open(path, reader, settings)];
    await expectRefused(await direct("/v1/events?follow=1", reader, settings), "GET", "/v1/events", { budget: "streams", per: "credential", max: 2 });
    expect((await call("POST", `/v1/leases/${lease.id}/end`, { key, body: {} })).status).toBe(200);
    await waitForState(key, lease.id, "released");
    // Both streams end on their own with the lease's end...
    for (const s of streams) expect(await s.text()).toContain("event: end");
    // ...and two long-lived streams are admitted in their place.
    const again = [await admittedAgain("/v1/events?follow=1", reader, settings)];
    again.push(await admittedAgain("/v1/events?follow=1", reader, settings));
    await cancelAll(again);
  });
});

describe("agent long polls", () => {
  async function leaseWithToken(o: { key: string }): Promise<{ id: string; token: string }> {
    const lease = await createLease(o.key, { kind: "scratch", spec: { gpu: "l40s:1" } });
    // Provisioning gives the machine its own enrollment (the token before stops working).
    await waitForState(o.key, lease.id, "ready");
    const minted = await call("POST", `/v1/sim/leases/${lease.id}/agent-token`, { key: BOOTSTRAP });
    expect(minted.status).toBe(201);
    return { id: lease.id, token: (await json(minted)).token };
  }

  const poll = (lease: { id: string; token: string }, wait: number, settings: Settings = {}) =>
    direct(`/v1/agent/commands?wait=${wait}`, lease.token, settings, { "lessor-lease-id": lease.id });

  it(`at most ${AGENT_POLLS_PER_LEASE} waiting at once per lease token; a poll that ends gives its slot back`, async () => {
    const lease = await leaseWithToken({ key });
    const answers = await Promise.all(Array.from({ length: AGENT_POLLS_PER_LEASE + 1 }, () => poll(lease, 2)));
    const refused = answers.filter((r) => r.status === 429);
    expect(answers.filter((r) => r.status === 200)).toHaveLength(AGENT_POLLS_PER_LEASE);
    expect(refused).toHaveLength(1);
    await expectRefused(refused[0]!, "GET", "/v1/agent/commands", { budget: "agent_polls", per: "credential", max: AGENT_POLLS_PER_LEASE });
    // Polls without a wait hold no slot; the ended ones gave theirs back.
    expect((await poll(lease, 0)).status).toBe(200);
    await waitFor("the slots to be given back", async () => {
      const again = await Promise.all(Array.from({ length: AGENT_POLLS_PER_LEASE }, () => poll(lease, 1)));
      return again.every((r) => r.status === 200);
    });
  });

  it("at most LESSOR_AGENT_POLLS_PER_ORG waiting at once in one org, all its leases together (1,000 by default)", async () => {
    const o = await createOrg();
    const writer = (await createKey(o, "write")).secret;
    await refreshCatalog();
    const [a, b] = [await leaseWithToken({ key: writer }), await leaseWithToken({ key: writer })];
    const settings = { LESSOR_AGENT_POLLS_PER_ORG: "3" };
    const answers = await Promise.all([poll(a, 2, settings), poll(a, 2, settings), poll(b, 2, settings), poll(b, 2, settings)]);
    const refused = answers.filter((r) => r.status === 429);
    expect(refused).toHaveLength(1);
    await expectRefused(refused[0]!, "GET", "/v1/agent/commands", { budget: "agent_polls", per: "org", max: 3 });
    // Another org's leases are not counted with these.
    const mine = await leaseWithToken({ key });
    expect((await Promise.all([poll(mine, 1, settings), poll(mine, 1, settings)])).map((r) => r.status)).toEqual([200, 200]);
  });
});
