/**
 * Outbound webhooks and the org's event stream against a real `wrangler dev` started through
 * `npm start`'s own script: a receiver on this machine (a Node http server, which `npm start`
 * allows as a target) verifies every delivery with the `standardwebhooks` package.
 */
import { createServer, type IncomingMessage, type Server as HttpServer } from "node:http";
import { compileErrors, validate } from "@readme/openapi-parser";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapTokenFromDevVars, freePort, removeStateDir, runningServers, startServer, stopServer, type Server } from "./server";

interface Delivery {
  headers: Record<string, string>;
  body: string;
  verified: any;
}

let server: Server;
let receiver: HttpServer;
let receiverUrl: string;
let bootstrap: string;
const deliveries: Delivery[] = [];
/** Statuses the receiver answers, in order; then 204. */
const answers: number[] = [];
let secret = "";

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (text += c));
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });

beforeAll(async () => {
  server = await startServer();
  bootstrap = bootstrapTokenFromDevVars();
  const port = await freePort();
  receiver = createServer(async (req, res) => {
    const body = await readBody(req);
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    let verified: any = null;
    try {
      // What a user's receiver does: verify, or refuse.
      verified = new Webhook(secret).verify(body, headers);
    } catch {
      res.writeHead(401).end();
      deliveries.push({ headers, body, verified: null });
      return;
    }
    deliveries.push({ headers, body, verified });
    res.writeHead(answers.shift() ?? 204).end();
  });
  await new Promise<void>((r) => receiver.listen(port, "127.0.0.1", r));
  receiverUrl = `http://127.0.0.1:${port}/hook`;
}, 120_000);

afterAll(async () => {
  await new Promise((r) => receiver?.close(r));
  for (const s of server ? [server] : runningServers()) {
    await stopServer(s);
    removeStateDir(s);
  }
});

async function api(method: string, path: string, key: string, body?: unknown): Promise<any> {
  const res = await fetch(`${server.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function waitFor<T>(what: string, probe: () => T | null | undefined | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${server.log().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("webhooks against wrangler dev", () => {
  it("describes the event and webhook routes in a valid OpenAPI document", async () => {
    const doc = (await (await fetch(`${server.base}/v1/openapi.json`)).json()) as any;
    const result = await validate(structuredClone(doc));
    expect(result.valid, result.valid ? "" : compileErrors(result)).toBe(true);
    for (const p of ["/v1/events", "/v1/webhooks", "/v1/webhooks/{id}", "/v1/webhooks/{id}/rotate-secret", "/v1/webhooks/{id}/deliveries", "/v1/webhooks/{id}/deliveries/{delivery_id}/retry"]) {
      expect(Object.keys(doc.paths)).toContain(p);
    }
  });

  it("delivers a lease's events, signed, retried with the same webhook-id, and streams them to the org", async () => {
    const org = await api("POST", "/v1/orgs", bootstrap, { name: "e2e-webhooks" });
    expect(org.status).toBe(201);
    const key = org.body.key.secret as string;
    expect((await api("PUT", "/v1/sim/faults", bootstrap, { provision_delay_ms: 50, boot_delay_ms: 200 })).status).toBe(200);

    // Loopback http is a target under `npm start`; a private address still is not.
    expect((await api("POST", "/v1/webhooks", key, { url: "http://10.0.0.1/hook", events: ["*"] })).body.error.code).toBe("invalid_webhook_url");
    const hook = await api("POST", "/v1/webhooks", key, { url: receiverUrl, events: ["*"] });
    expect(hook.status).toBe(201);
    secret = hook.body.secret;

    // The org's stream, read as a client would.
    const stream = await fetch(`${server.base}/v1/events?follow=1`, { headers: { authorization: `Bearer ${key}` } });
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = stream.body!.getReader();
    let streamed = "";
    void (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        streamed += new TextDecoder().decode(value);
      }
    })();

    answers.push(500); // the first delivery to arrive fails once
    const lease = await api("POST", "/v1/leases", key, { kind: "scratch", spec: { gpu: "l40s:1" } });
    expect(lease.status, JSON.stringify(lease.body)).toBe(202);
    const ready = await waitFor("the ready event delivered", () => deliveries.find((d) => d.verified?.type === "ready"));
    expect(ready.verified.data).toMatchObject({ lease_id: lease.body.id, type: "ready" });
    // Every delivery verified; the failed one came again with the same id about 5 s later. Which
    // event it was is not fixed: a batch's deliveries go out side by side (docs/events.md "Order").
    expect(deliveries.every((d) => d.verified !== null)).toBe(true);
    const failedId = deliveries[0]!.headers["webhook-id"]!;
    expect(failedId).toMatch(new RegExp(`^msg_${lease.body.id}_\\d+$`));
    const tries = await waitFor("the retry of the failed one", () => {
      const same = deliveries.filter((d) => d.headers["webhook-id"] === failedId);
      return same.length >= 2 && same;
    });
    const gap = Number(tries[1]!.headers["webhook-timestamp"]) - Number(tries[0]!.headers["webhook-timestamp"]);
    expect(gap).toBeGreaterThanOrEqual(4);
    expect(gap).toBeLessThanOrEqual(8);

    // The consumer settles a batch with the org's object once its sends are done: the record follows the arrival.
    let listed: any;
    for (let i = 0; i < 100; i++) {
      listed = await api("GET", `/v1/webhooks/${hook.body.id}/deliveries`, key);
      if (listed.body.data.find((d: any) => d.webhook_id === failedId)?.status !== "pending") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const first = listed.body.data.find((d: any) => d.webhook_id === failedId);
    expect(first).toMatchObject({ status: "succeeded", attempts: 2, response_status: 204 });
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    // The others were delivered once each.
    const ids = deliveries.map((d) => d.headers["webhook-id"]);
    expect(ids.filter((id) => id !== failedId).length).toBe(new Set(ids.filter((id) => id !== failedId)).size);

    await waitFor("the stream to carry the ready event", () => streamed.includes(`"type":"ready"`) && streamed.includes(lease.body.id));
    expect(streamed).toMatch(/^retry: \d+\n\n/);
    expect(streamed).toMatch(/\nid: \d+\ndata: \{/);
    await reader.cancel();

    await api("POST", `/v1/leases/${lease.body.id}/end`, key);
    await waitFor("the released event delivered", () => deliveries.find((d) => d.verified?.type === "released"));
  });
});
