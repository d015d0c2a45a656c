/**
 * Webhook deliveries through the queue (docs/events.md "Outbound webhooks", "Order", "Once"): the
 * org's object hands each delivery to the queue; the consumer sends a batch's side by side, asks
 * and tells each org's object once per batch, retries on the schedule, acknowledges each message on
 * its own; the dead-letter queue records what the queue gave up on. The queue itself runs in the
 * pool (wrangler.toml); to hold a batch in hand, a test swaps the object's queue binding for one
 * that keeps what it is given, and hands those messages to the Worker's `queue` handler itself.
 */
import { createExecutionContext, createMessageBatch, env, getQueueResult, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import worker from "../../functions/index";
import type { Env } from "../../src/env";
import { orgEventsStub } from "../../src/events/forward";
import type { LeaseEvent } from "../../src/lease/object";
import { HANDOVER_RETRY_MS, type WebhookMessage } from "../../src/webhooks/deliveries";
import { SEND_CONCURRENCY, WEBHOOK_DLQ, WEBHOOK_QUEUE } from "../../src/webhooks/consumer";
import { MAX_ATTEMPTS, RETRY_SCHEDULE_MS } from "../../src/webhooks/schedule";
import { call, createKey, createOrg, json, type TestOrg } from "./helpers";
import { waitFor } from "./lease-helpers";
import { RECEIVER, Receiver, verify } from "./webhook-receiver";

const receiver = new Receiver();
const LEASE = "ls_0000000000000000000000queu";
let seq = 0;
let org: TestOrg;
let readKey: string;

beforeAll(() => void receiver.install());
afterAll(() => receiver.uninstall());
beforeEach(async () => {
  org = await createOrg();
  readKey = (await createKey(org, "read")).secret;
  Object.assign(receiver, { received: [], answers: [], fallback: 200, delayMs: 0, inFlight: 0, maxInFlight: 0 });
});

async function addWebhook(o: TestOrg, path: string, events: string[] = ["*"]) {
  const res = await call("POST", "/v1/webhooks", { key: o.adminKey, body: { url: `${RECEIVER}${path}`, events } });
  const body = await json(res);
  if (res.status !== 201) throw new Error(`create webhook: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

async function emit(o: TestOrg = org, type = "ready"): Promise<LeaseEvent> {
  const e: LeaseEvent = { seq: ++seq, at: new Date().toISOString(), type, from: "booting", to: "ready", reason: null, detail: {} };
  await orgEventsStub(env, o.id).append(o.id, LEASE, [e]);
  return e;
}

const deliveries = async (o: TestOrg, id: string) => (await json(await call("GET", `/v1/webhooks/${id}/deliveries`, { key: o.adminKey }))).data;
const sql = <T,>(o: TestOrg, q: string, ...args: unknown[]) =>
  runInDurableObject(orgEventsStub(env, o.id), (_obj, state) => state.storage.sql.exec(q, ...(args as SqlStorageValue[])).toArray() as T[]);

/**
 * Swaps the org object's queue binding for one that keeps each `sendBatch` it is given (or throws,
 * with `fail`); answers the batches it kept. Undone by `release`.
 */
async function holdQueue(o: TestOrg, fail = false) {
  const batches: WebhookMessage[][] = [];
  await runInDurableObject(orgEventsStub(env, o.id), (obj) => {
    const inst = obj as unknown as { env: Env; realEnv?: Env };
    inst.realEnv = inst.env;
    const fake = {
      async sendBatch(msgs: { body: WebhookMessage }[]) {
        if (fail) throw new Error("the queue is down");
        batches.push(msgs.map((m) => m.body));
      },
    };
    inst.env = { ...inst.env, WEBHOOKS: fake as unknown as Env["WEBHOOKS"] };
  });
  return batches;
}
async function release(o: TestOrg) {
  await runInDurableObject(orgEventsStub(env, o.id), (obj) => {
    const inst = obj as unknown as { env: Env; realEnv?: Env };
    if (inst.realEnv) inst.env = inst.realEnv;
  });
}

let msgNo = 0;
const asMessages = (bodies: WebhookMessage[], attempts = 1) => bodies.map((body) => ({ id: `m${++msgNo}`, timestamp: new Date(), attempts, body }));

/**
 * Hands `messages` to the Worker's `queue` handler as one batch of `queue`; answers what it
 * acknowledged and what it retried, with the delay each retry asked for (which the pool's
 * `getQueueResult` does not answer: each message's `retry` is watched).
 */
async function consume(queue: string, messages: { id: string; timestamp: Date; attempts: number; body: WebhookMessage }[], e: Env = env) {
  const batch = createMessageBatch<WebhookMessage>(queue, messages);
  const delays = new Map<string, number | undefined>();
  for (const m of batch.messages) {
    const retry = m.retry.bind(m);
    Object.defineProperty(m, "retry", { value: (options?: QueueRetryOptions) => (delays.set(m.id, options?.delaySeconds), retry(options)) });
  }
  const ctx = createExecutionContext();
  await worker.queue(batch as MessageBatch<unknown>, e);
  const result = await getQueueResult(batch, ctx);
  const ids = messages.map((m) => m.id);
  const retried: { msgId: string; delaySeconds: number | undefined }[] = result.retryMessages.map((r: { msgId: string }) => ({ msgId: r.msgId, delaySeconds: delays.get(r.msgId) }));
  return { ackAll: result.ackAll as boolean, acked: ids.filter((id) => result.explicitAcks.includes(id)), retried };
}

/** `env` with every call to an org object's method counted by method name, and `fail` methods throwing. */
function countingEnv(fail: string[] = []) {
  const calls: Record<string, number> = {};
  const ns = env.ORG_EVENTS;
  const ORG_EVENTS = new Proxy(ns, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop !== "get") return typeof value === "function" ? value.bind(target) : value;
      return (id: DurableObjectId) => {
        const stub = target.get(id);
        return new Proxy(stub, {
          get(s, name) {
            const fn = Reflect.get(s, name, s);
            if (typeof name !== "string" || typeof fn !== "function") return fn;
            return (...args: unknown[]) => {
              calls[name] = (calls[name] ?? 0) + 1;
              if (fail.includes(name)) return Promise.reject(new Error(`${name} refused by the test`));
              return Reflect.apply(fn, s, args);
            };
          },
        });
      };
    },
  });
  return { env: { ...env, ORG_EVENTS } as Env, calls };
}

describe("the object hands deliveries to the queue", () => {
  it("one message per delivery, naming it and its hand-over, never its body or secret; sent by the real queue", async () => {
    const a = await addWebhook(org, "/q-a");
    const b = await addWebhook(org, "/q-b", ["released"]);
    const held = await holdQueue(org);
    const e = await emit();
    await emit(org, "released");
    // One sendBatch per append: the first event is wanted by one endpoint, the second by two.
    expect(held.map((batch) => batch.length)).toEqual([1, 2]);
    const rows = await sql<{ id: string; endpoint_id: string; queued_at: number }>(org, `SELECT id, endpoint_id, queued_at FROM deliveries ORDER BY id`);
    expect(rows).toHaveLength(3);
    for (const m of held.flat()) {
      expect(Object.keys(m).sort()).toEqual(["id", "kind", "org", "token"]);
      expect(m).toMatchObject({ kind: "delivery", org: org.id });
      const row = rows.find((r) => r.id === (m as { id: string }).id)!;
      expect((m as { token: number }).token).toBe(row.queued_at);
    }
    expect(JSON.stringify(held)).not.toContain(a.secret.slice(6));
    // The real queue: the same object, its binding given back, sends what comes next.
    await release(org);
    await emit();
    await waitFor("the real queue's delivery", async () => receiver.at("/q-a").length === 1);
    expect(verify(a.secret, receiver.at("/q-a")[0]!)).toMatchObject({ type: "ready" });
    expect(receiver.at("/q-b")).toHaveLength(0);
    expect(e.seq).toBeGreaterThan(0);
    expect(b.id).toMatch(/^wh_/);
  });

  it("a hand-over the queue refuses loses nothing: the delivery stays pending and is handed over again", async () => {
    const hook = await addWebhook(org, "/refused");
    await holdQueue(org, true);
    const before = Date.now();
    await emit();
    const [row] = await sql<{ status: string; queued_at: number | null; next_at: number }>(org, `SELECT status, queued_at, next_at FROM deliveries`);
    expect(row).toMatchObject({ status: "pending", queued_at: null });
    expect(row!.next_at).toBeGreaterThanOrEqual(before + HANDOVER_RETRY_MS);
    const alarm = await runInDurableObject(orgEventsStub(env, org.id), (_o, state) => state.storage.getAlarm());
    expect(alarm).toBe(row!.next_at);
    // The budget it did not spend is given back.
    const [budget] = await sql<{ value: string }>(org, `SELECT value FROM meta WHERE key = 'delivery_budget'`);
    expect(JSON.parse(budget!.value).tokens).toBeGreaterThan(599);
    expect(receiver.at("/refused")).toHaveLength(0);
    // The queue is back: the alarm hands it over when due, and it is delivered once.
    await release(org);
    await waitFor("the delivery after the refusal", async () => receiver.at("/refused").length === 1, 20_000);
    const [d] = await waitFor("it is recorded", async () => {
      const list = await deliveries(org, hook.id);
      return list[0]?.status === "succeeded" && list;
    });
    expect(d.attempts).toBe(1);
    expect(receiver.at("/refused")).toHaveLength(1);
  });

  it("keeps the deliveries of an object made before the queue (schema version 1) and hands them over", async () => {
    const hook = await addWebhook(org, "/old-object");
    const held = await holdQueue(org);
    await emit();
    expect(held.flat()).toHaveLength(1);
    // The layout of schema version 1: no `queued_at`, one index of pending rows by time.
    await sql(
      org,
      `DROP INDEX deliveries_waiting; DROP INDEX deliveries_queued;
       ALTER TABLE deliveries DROP COLUMN queued_at;
       CREATE INDEX deliveries_due ON deliveries (next_at) WHERE status = 'pending';
       UPDATE meta SET value = '1' WHERE key = 'schema_version'`,
    );
    await runInDurableObject(orgEventsStub(env, org.id), (_o, state) => state.abort("the test restarts the org's object")).catch(() => undefined);
    const indexes = await sql<{ name: string }>(org, `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'deliveries' AND name LIKE 'deliveries_%' ORDER BY name`);
    expect(indexes.map((i) => i.name)).toEqual(["deliveries_endpoint", "deliveries_queued", "deliveries_waiting"]);
    expect(await sql(org, `SELECT value FROM meta WHERE key = 'schema_version'`)).toEqual([{ value: "2" }]);
    expect(await sql(org, `SELECT status, queued_at FROM deliveries`)).toEqual([{ status: "pending", queued_at: null }]);
    // The restarted object has the real queue; its alarm hands the delivery over.
    expect(await runDurableObjectAlarm(orgEventsStub(env, org.id))).toBe(true);
    await waitFor("the old delivery sent", async () => receiver.at("/old-object").length === 1);
    await waitFor("and recorded", async () => (await deliveries(org, hook.id))[0]?.status === "succeeded");
  });
});

describe("the consumer", () => {
  it("sends a batch's deliveries side by side, across endpoints and orgs, asking and telling each org's object once", async () => {
    const other = await createOrg();
    const hooks = [await addWebhook(org, "/p0"), await addWebhook(org, "/p1"), await addWebhook(other, "/p2")];
    const held = [await holdQueue(org), await holdQueue(other)];
    for (let i = 0; i < 3; i++) await emit(org);
    for (let i = 0; i < 2; i++) await emit(other);
    const bodies = held.flatMap((h) => h.flat());
    expect(bodies).toHaveLength(8);
    receiver.delayMs = 300;
    const { env: counted, calls } = countingEnv();
    const started = Date.now();
    const result = await consume(WEBHOOK_QUEUE, asMessages(bodies), counted);
    // Eight answers of 300 ms each, SEND_CONCURRENCY at once (a Worker invocation's open
    // connections): two rounds, where one after another would take 2.4 s.
    expect(receiver.maxInFlight).toBe(SEND_CONCURRENCY);
    expect(Date.now() - started).toBeLessThan(1_800);
    expect(calls).toEqual({ claim: 2, settle: 2 });
    expect(result.acked).toHaveLength(8);
    expect(result.retried).toEqual([]);
    expect(result.ackAll).toBe(false);
    for (const [o, h, n] of [[org, hooks[0], 3], [org, hooks[1], 3], [other, hooks[2], 2]] as const) {
      const list = await deliveries(o, h.id);
      expect(list.map((d: any) => [d.status, d.attempts, d.response_status])).toEqual(Array(n).fill(["succeeded", 1, 200]));
    }
    for (const r of receiver.received) verify(hooks.find((h) => r.path === new URL(h.url).pathname)!.secret, r);
  });

  it("retries a failure with the schedule's delay; the next delivery of the message sends it again, and a settled one is never sent twice", async () => {
    const hook = await addWebhook(org, "/flaky");
    const held = await holdQueue(org);
    await emit();
    const [message] = asMessages(held.flat());
    receiver.answers = [503];
    const first = await consume(WEBHOOK_QUEUE, [message!]);
    expect(first.acked).toEqual([]);
    expect(first.retried).toEqual([{ msgId: message!.id, delaySeconds: RETRY_SCHEDULE_MS[1] / 1000 }]);
    const [pending] = await deliveries(org, hook.id);
    expect(pending).toMatchObject({ status: "pending", attempts: 1, response_status: 503 });
    expect(Date.parse(pending.next_attempt_at) - Date.parse(pending.attempted_at)).toBe(RETRY_SCHEDULE_MS[1]);
    // The queue delivers it again: sent with the same webhook-id, delivered, acknowledged.
    const second = await consume(WEBHOOK_QUEUE, [{ ...message!, attempts: 2 }]);
    expect(second.acked).toEqual([message!.id]);
    expect(receiver.at("/flaky").map((r) => r.headers["webhook-id"])).toEqual(Array(2).fill(receiver.at("/flaky")[0]!.headers["webhook-id"]));
    expect((await deliveries(org, hook.id))[0]).toMatchObject({ status: "succeeded", attempts: 2, response_status: 200 });
    // A consumer that died after sending is given the message once more: the record says it is
    // delivered, so it is acknowledged unsent.
    const again = await consume(WEBHOOK_QUEUE, [{ ...message!, attempts: 3 }]);
    expect(again.acked).toEqual([message!.id]);
    expect(receiver.at("/flaky")).toHaveLength(2);
    expect((await deliveries(org, hook.id))[0].attempts).toBe(2);
  });

  it(`fails a delivery for good at its ${MAX_ATTEMPTS}th attempt, or at the queue's last delivery of its message`, async () => {
    const hook = await addWebhook(org, "/spent", ["ready"]);
    const held = await holdQueue(org);
    await emit();
    await emit();
    const [spent, last] = asMessages(held.flat());
    // The first has had every attempt but one.
    await sql(org, `UPDATE deliveries SET attempts = ? WHERE id = ?`, MAX_ATTEMPTS - 1, (spent!.body as { id: string }).id);
    receiver.fallback = 500;
    const result = await consume(WEBHOOK_QUEUE, [spent!, { ...last!, attempts: MAX_ATTEMPTS }]);
    // Neither is retried: a retry of the queue's last delivery would only reach the dead-letter queue.
    expect(result.acked.sort()).toEqual([spent!.id, last!.id].sort());
    expect(result.retried).toEqual([]);
    const list = await deliveries(org, hook.id);
    expect(list.map((d: any) => [d.status, d.next_attempt_at, d.response_status]).sort()).toEqual([
      ["failed", null, 500],
      ["failed", null, 500],
    ]);
  });

  it("a retry by hand hands the delivery over again; the message of the earlier hand-over is dropped unsent", async () => {
    const hook = await addWebhook(org, "/by-hand");
    const held = await holdQueue(org);
    await emit();
    const [old] = asMessages(held.flat());
    receiver.answers = [500];
    await consume(WEBHOOK_QUEUE, [old!]);
    const [d] = await deliveries(org, hook.id);
    expect((await call("POST", `/v1/webhooks/${hook.id}/deliveries/${d.id}/retry`, { key: org.adminKey })).status).toBe(202);
    expect(held.flat()).toHaveLength(2);
    const renewed = held.flat()[1]! as { token: number };
    expect(renewed.token).toBeGreaterThan((old!.body as { token: number }).token);
    // The earlier message comes back from its retry delay: it is dropped, not sent.
    const stale = await consume(WEBHOOK_QUEUE, [{ ...old!, attempts: 2 }]);
    expect(stale.acked).toEqual([old!.id]);
    expect(receiver.at("/by-hand")).toHaveLength(1);
    const fresh = await consume(WEBHOOK_QUEUE, asMessages([held.flat()[1]!]));
    expect(fresh.acked).toHaveLength(1);
    expect(receiver.at("/by-hand")).toHaveLength(2);
    expect((await deliveries(org, hook.id))[0]).toMatchObject({ status: "succeeded", attempts: 2 });
  });

  it("a 410 disables the endpoint with one webhook_disabled event; what it had pending is never sent", async () => {
    const gone = await addWebhook(org, "/gone-q");
    const held = await holdQueue(org);
    await emit();
    await emit();
    await emit();
    const [m1, m2, later] = asMessages(held.flat());
    receiver.answers = [410];
    const { env: counted, calls } = countingEnv();
    const result = await consume(WEBHOOK_QUEUE, [m1!, m2!], counted);
    expect(calls).toEqual({ claim: 1, settle: 1 });
    expect(result.acked).toHaveLength(2);
    expect(result.retried).toEqual([]);
    const ep = await json(await call("GET", `/v1/webhooks/${gone.id}`, { key: readKey }));
    expect(ep).toMatchObject({ enabled: false, disabled_reason: "gone", consecutive_failures: 1 });
    const events = (await json(await call("GET", "/v1/events", { key: readKey }))).data.filter((e: any) => e.type === "webhook_disabled");
    expect(events.map((e: any) => e.detail)).toEqual([{ webhook_id: gone.id, url: `${RECEIVER}/gone-q`, reason: "gone", consecutive_failures: 1 }]);
    // Both were in flight together; the third's message comes after the 410 and is not sent.
    expect(receiver.at("/gone-q")).toHaveLength(2);
    const after = await consume(WEBHOOK_QUEUE, [later!]);
    expect(after.acked).toEqual([later!.id]);
    expect(receiver.at("/gone-q")).toHaveLength(2);
    const list = await deliveries(org, gone.id);
    expect(list.map((d: any) => [d.status, d.response_status, d.error]).sort()).toEqual([
      ["failed", null, "endpoint disabled"],
      ["failed", 410, null],
      ["succeeded", 200, null],
    ]);
  });

  it("counts an endpoint's failures across a batch, and a delivery in it clears them", async () => {
    const hook = await addWebhook(org, "/counted", ["ready"]);
    const held = await holdQueue(org);
    for (let i = 0; i < 3; i++) await emit();
    receiver.fallback = 500;
    await consume(WEBHOOK_QUEUE, asMessages(held.flat()));
    const failing = await json(await call("GET", `/v1/webhooks/${hook.id}`, { key: readKey }));
    expect(failing.consecutive_failures).toBe(3);
    expect(failing.failing_since).not.toBeNull();
    receiver.fallback = 200;
    await emit();
    await consume(WEBHOOK_QUEUE, asMessages(held.flat().slice(3)));
    expect(await json(await call("GET", `/v1/webhooks/${hook.id}`, { key: readKey }))).toMatchObject({ consecutive_failures: 0, failing_since: null });
  });

  it("keeps the report in the queue when the object cannot take it, and records it from there", async () => {
    const hook = await addWebhook(org, "/report-later");
    const held = await holdQueue(org);
    await emit();
    const reports: WebhookMessage[] = [];
    const { env: refusing } = countingEnv(["settle"]);
    const queueKeeping = { ...refusing, WEBHOOKS: { send: async (body: WebhookMessage) => void reports.push(body) } as unknown as Env["WEBHOOKS"] };
    const result = await consume(WEBHOOK_QUEUE, asMessages(held.flat()), queueKeeping);
    // Sent and acknowledged once: the report waits in the queue, not the delivery.
    expect(result.acked).toHaveLength(1);
    expect(receiver.at("/report-later")).toHaveLength(1);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ kind: "report", org: org.id, disabled: [], settled: [{ status: "succeeded" }] });
    expect((await deliveries(org, hook.id))[0].status).toBe("pending");
    const told = await consume(WEBHOOK_QUEUE, asMessages(reports));
    expect(told.acked).toHaveLength(1);
    expect((await deliveries(org, hook.id))[0]).toMatchObject({ status: "succeeded", attempts: 1, response_status: 200 });
    expect(receiver.at("/report-later")).toHaveLength(1);
  });

  it("retries every message, sending nothing, while the org's object cannot be asked", async () => {
    await addWebhook(org, "/no-object");
    const held = await holdQueue(org);
    await emit();
    const { env: refusing } = countingEnv(["claim"]);
    const result = await consume(WEBHOOK_QUEUE, asMessages(held.flat()), refusing);
    expect(result.acked).toEqual([]);
    expect(result.retried.map((r) => r.delaySeconds)).toEqual([RETRY_SCHEDULE_MS[1] / 1000]);
    expect(receiver.at("/no-object")).toHaveLength(0);
  });
});

describe("the dead-letter queue", () => {
  it("records as failed a delivery the queue gave up on, and leaves a settled one as it is", async () => {
    const hook = await addWebhook(org, "/dead");
    const held = await holdQueue(org);
    await emit();
    await emit();
    const [dead, done] = asMessages(held.flat());
    await consume(WEBHOOK_QUEUE, [done!]);
    const { env: counted, calls } = countingEnv();
    const result = await consume(WEBHOOK_DLQ, [dead!, done!], counted);
    expect(calls).toEqual({ settle: 1 });
    expect(result.acked).toHaveLength(2);
    const list = await deliveries(org, hook.id);
    expect(list.map((d: any) => [d.status, d.attempts, d.error]).sort()).toEqual([
      ["failed", 0, `the queue gave up on it after ${MAX_ATTEMPTS} deliveries of its message`],
      ["succeeded", 1, null],
    ]);
    expect(receiver.at("/dead")).toHaveLength(1);
  });
});
