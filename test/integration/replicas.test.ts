/**
 * A deployment's replicas in the Workers pool (docs/deployments.md "Replicas", issue 32): the
 * scaler makes them through a create's admission; the gateway sends each request to the ready
 * replica with the fewest in flight; a scale-up the quota refuses refuses the replica, never the
 * traffic; the GET shows the replicas and what the scaler will do next; a DELETE ends them all.
 */
import { SELF } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { generate } from "../../src/providers/sim/model-server";
import { endEverything } from "./deployment-helpers";
import { call, expectError, json, type TestOrg } from "./helpers";
import { getLease, leaseSuite, sim, waitForState } from "./lease-helpers";

const MODEL = "Qwen/Qwen2.5-0.5B-Instruct";
const SPEC = { gpu: "l40s:1" };

let org: TestOrg;
let key: string;
leaseSuite((o, k) => {
  org = o;
  key = k;
});

afterEach(async () => {
  await call("PUT", "/v1/quota", { key: org.adminKey, body: { gpus: null } });
  await endEverything(org, key);
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
let n = 0;

async function deploy(replicas: Record<string, unknown>) {
  const name = `rp-${Date.now().toString(36)}-${n++}`;
  const res = await call("PUT", `/v1/deployments/${name}`, { key, body: { model: MODEL, spec: SPEC, replicas } });
  const d = await json(res);
  expect(res.status, JSON.stringify(d)).toBe(202);
  await waitForState(key, d.lease_id, "ready");
  return d;
}

const get = async (name: string) => json(await call("GET", `/v1/deployments/${name}`, { key }));

async function until<T>(what: string, probe: () => Promise<T | null | false | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(250);
  }
}

function chat(d: { base_url: string; api_key: string }, stream = false) {
  return SELF.fetch(`${d.base_url}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${d.api_key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hello there" }], max_tokens: 32, stream }),
  });
}

describe("replicas", () => {
  it("min 2: the scaler makes the second replica; requests go to the one with the fewest in flight; DELETE ends both", async () => {
    const d = await deploy({ min: 2, max: 2 });
    expect(d.replicas).toMatchObject({ min: 2, max: 2, target_inflight: 8, sleep: "stop" });
    const ready = await until("two ready replicas", async () => {
      const g = await get(d.name);
      const r = g.scaler?.replicas.filter((x: any) => x.state === "ready") ?? [];
      return r.length === 2 ? g : null;
    });
    const added = ready.scaler.events.find((e: any) => e.action === "add");
    expect(added).toMatchObject({ reason: "load_above_target" });
    const extra = ready.scaler.replicas.find((x: any) => !x.primary).lease_id;
    expect((await getLease(key, extra)).kind).toBe("deployment");

    // A slow stream holds one replica; the next requests go to the other.
    await sim().setFaults({ model_tokens_per_s: 4 });
    const held = await chat(d, true);
    expect(held.status).toBe(200);
    const busy = held.headers.get("lessor-replica");
    expect([d.lease_id, extra]).toContain(busy);
    await sim().setFaults({ model_tokens_per_s: 1_000_000 });
    const others = [];
    for (let i = 0; i < 4; i++) {
      const res = await chat(d);
      expect(res.status).toBe(200);
      others.push(res.headers.get("lessor-replica"));
      await res.arrayBuffer();
    }
    expect(others.every((r) => r !== busy)).toBe(true);
    const during = await get(d.name);
    expect(during.scaler.replicas.find((x: any) => x.lease_id === busy).in_flight).toBe(1);
    await held.body!.cancel();

    expect((await call("DELETE", `/v1/deployments/${d.name}`, { key })).status).toBe(200);
    await waitForState(key, extra, "released");
    await waitForState(key, d.lease_id, "released");
  });

  it("a replica the GPU quota refuses is recorded, and the traffic the primary serves goes on", async () => {
    expect((await call("PUT", "/v1/quota", { key: org.adminKey, body: { gpus: 1 } })).status).toBe(200);
    const d = await deploy({ min: 2, max: 3 });
    const refused = await until("a refused scale-up", async () => {
      const g = await get(d.name);
      return g.scaler?.events.find((e: any) => e.action === "refused") ?? null;
    });
    expect(refused.reason).toBe("quota_exceeded");
    const g = await get(d.name);
    expect(g.scaler.replicas.map((x: any) => x.lease_id)).toEqual([d.lease_id]);
    expect(g.scaler.next.action).toBe("add");
    const res = await chat(d);
    expect(res.status).toBe(200);
    expect(res.headers.get("lessor-replica")).toBe(d.lease_id);
  });

  it("min 0 with sleep: release: the idle deployment's lease is released, and a request makes it a new one and is answered", async () => {
    const d = await deploy({ min: 0, max: 1, idle_timeout: "2s", sleep: "release" });
    const first = await chat(d);
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    await waitForState(key, d.lease_id, "released", 20_000);
    const asleep = await get(d.name);
    expect(asleep.scaler.events.map((e: any) => `${e.action}:${e.reason}`)).toContain("sleep:idle_timeout");
    expect(asleep.scaler.desired).toBe(0);
    // The wake makes a new lease (the gateway holds a request LESSOR_GATEWAY_WAKE_WAIT, 5 s here; asked again until answered).
    const woken = await until("a request answered after the wake", async () => {
      const res = await chat(d);
      if (res.status === 200) return res;
      expect([503]).toContain(res.status);
      await res.arrayBuffer();
      return null;
    });
    const again = await get(d.name);
    expect(again.lease_id).not.toBe(d.lease_id);
    expect(woken.headers.get("lessor-replica")).toBe(again.lease_id);
    await woken.arrayBuffer();
    expect(again.scaler.events.map((e: any) => `${e.action}:${e.reason}`)).toContain("wake:request_waiting");
  });

  it("a scale-down drains a replica with a stream open: the stream ends whole, then the replica is released", async () => {
    const d = await deploy({ min: 1, max: 2, target_inflight: 1, scale_down_delay: "1s", drain_timeout: "1m" });
    // A prompt whose answer is long (the sim's answer is a pure function of the prompt): 60 tokens or more.
    let content = "";
    for (let i = 0; !content; i++) if (generate(MODEL, `user: story ${i}`, 1_000).tokens.length >= 60) content = `story ${i}`;
    await sim().setFaults({ model_tokens_per_s: 5 });
    const streamed = (maxTokens: number) =>
      SELF.fetch(`${d.base_url}/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${d.api_key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content }], max_tokens: maxTokens, stream: true }),
      });
    // Two streams on the one replica are over the target of 1 a replica: the scaler makes a second.
    const first = await Promise.all([streamed(20), streamed(20)]);
    expect(first.map((r) => r.headers.get("lessor-replica"))).toEqual([d.lease_id, d.lease_id]);
    const extra = await until("the second replica ready", async () => {
      const g = await get(d.name);
      return g.scaler?.replicas.find((x: any) => !x.primary && x.state === "ready")?.lease_id as string | undefined;
    });
    // The next goes to it (no request in flight there), and outlasts the first two.
    const long = await streamed(60);
    expect(long.headers.get("lessor-replica")).toBe(extra);
    await Promise.all(first.map((r) => r.text()));
    // One in flight wants one replica: the second drains, its stream still open.
    const draining = await until("the second replica draining", async () => {
      const g = await get(d.name);
      return g.scaler.replicas.find((x: any) => x.lease_id === extra)?.state === "draining" ? g : null;
    });
    expect(draining.scaler.replicas.find((x: any) => x.lease_id === extra).in_flight).toBe(1);
    expect((await getLease(key, extra)).state).toBe("ready");
    const text = await long.text();
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    const pieces = text.split("\n").filter((l) => l.startsWith("data: {")).map((l) => JSON.parse(l.slice(6)).choices[0]?.delta?.content ?? "");
    expect(pieces.join("")).toBe(generate(MODEL, `user: ${content}`, 60).tokens.join(""));
    await waitForState(key, extra, "released", 20_000);
    const after = await get(d.name);
    expect(after.scaler.events.find((e: any) => e.action === "release" && e.lease_id === extra)?.reason).toBe("drained");
  });

  it("bad replicas are 400 in the envelope; a PUT with other replicas stores them without a conflict", async () => {
    await expectError(await call("PUT", "/v1/deployments/rp-bad", { key, body: { model: MODEL, spec: SPEC, replicas: { min: 3, max: 2 } } }), 400, "invalid_request");
    await expectError(await call("PUT", "/v1/deployments/rp-bad", { key, body: { model: MODEL, spec: SPEC, replicas: { max: 0 } } }), 400);
    await expectError(await call("PUT", "/v1/deployments/rp-bad", { key, body: { model: MODEL, spec: SPEC, replicas: { idle_timeout: "soon" } } }), 400);
    const d = await deploy({ min: 1, max: 1 });
    const again = await call("PUT", `/v1/deployments/${d.name}`, { key, body: { model: MODEL, spec: SPEC, replicas: { min: 1, max: 4, target_inflight: 2 } } });
    expect(again.status).toBe(200);
    expect((await json(again)).replicas).toMatchObject({ min: 1, max: 4, target_inflight: 2 });
    expect((await get(d.name)).replicas.max).toBe(4);
  });
});
