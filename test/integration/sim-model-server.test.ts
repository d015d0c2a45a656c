/**
 * The sim's model server (docs/sim.md "The model server") through SimProvider.endpoint, against
 * the real SimCloud object: open only while the run serves, OpenAI's shapes, the key, the metrics.
 */
import { env } from "cloudflare:test";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MODEL_PORT, type Machine, type MachineEndpoint, type MachineStatus } from "../../src/providers/contract";
import { SimProvider, simAdmin } from "../../src/providers/sim/adapter";
import { generate } from "../../src/providers/sim/model-server";
import { BOOTSTRAP, call } from "./helpers";

const admin = simAdmin(env);
const MODEL = "meta-llama/Llama-3.1-8B-Instruct";
const SERVE = `echo downloading weights; serve ${MODEL}`;
const KEY = "sk-model-key-1";
const p = new SimProvider(env);
let offerId: string;

beforeAll(async () => {
  const { offers } = await p.listOffers();
  offerId = offers.find((o) => o.gpu !== "cpu")!.provider_offer_id;
});

beforeEach(async () => {
  await admin.reset();
  await admin.setFaults({ provision_delay_ms: 20, boot_delay_ms: 20, model_tokens_per_s: 100_000 });
});

let n = 0;
async function machine(opts: { cmd?: string; env?: Record<string, string>; ports?: number[] } = {}): Promise<Machine> {
  const m = await p.createMachine({ label: `model-${++n}`, offer_id: offerId, cmd: opts.cmd ?? SERVE, env: opts.env ?? { LESSOR_MODEL_KEY: KEY }, ports: opts.ports ?? [MODEL_PORT] });
  return waitForStatus(m.id, "running");
}

async function waitForStatus(id: string, status: MachineStatus): Promise<Machine> {
  const deadline = Date.now() + 3000;
  for (;;) {
    const m = await p.getMachine(id);
    if (m?.status === status) return m;
    if (Date.now() > deadline) throw new Error(`machine ${id} is ${m?.status ?? "gone"}, not ${status}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function endpointOf(m: Machine): Promise<MachineEndpoint> {
  const e = await p.endpoint(m, MODEL_PORT);
  if (!e) throw new Error(`no endpoint for ${m.id}`);
  return e;
}

const auth = (key = KEY) => ({ authorization: `Bearer ${key}`, "content-type": "application/json" });
const post = (e: MachineEndpoint, path: string, body: unknown, key = KEY) => e.fetch(path, { method: "POST", headers: auth(key), body: JSON.stringify(body) });

async function refused(promise: Promise<Response>): Promise<TypeError> {
  try {
    const res = await promise;
    throw new Error(`expected a refused connection, got ${res.status}`);
  } catch (e) {
    if (e instanceof TypeError) return e;
    throw e;
  }
}

async function metric(e: MachineEndpoint, name: string): Promise<number> {
  const res = await e.fetch("/metrics", { headers: auth() });
  expect(res.status).toBe(200);
  const line = (await res.text()).split("\n").find((l) => l.startsWith(`${name}{model_name="${MODEL}"} `));
  if (!line) throw new Error(`no ${name}`);
  return Number(line.split(" ")[1]);
}

describe("the sim's model server", () => {
  it("lists its model", async () => {
    const m = await machine();
    const e = await endpointOf(m);
    expect(e.url).toBe(`sim://${m.id}:${MODEL_PORT}`);
    const res = await e.fetch("/v1/models", { headers: auth() });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ object: "list", data: [{ id: MODEL, object: "model", created: expect.any(Number), owned_by: "lessor-sim" }] });
  });

  it("answers a chat completion, its text a function of the prompt, with usage", async () => {
    const e = await endpointOf(await machine());
    const body = { model: MODEL, messages: [{ role: "user", content: "Say hello" }], max_tokens: 5 };
    const res = await post(e, "/v1/chat/completions", body);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { object: string; choices: { message: { content: string }; finish_reason: string }[]; usage: { completion_tokens: number } };
    expect(answer.object).toBe("chat.completion");
    expect(answer.choices[0]!.message.content).toBe(generate(MODEL, "user: Say hello", 5).tokens.join(""));
    expect(answer.usage.completion_tokens).toBe(5);
    const again = (await (await post(e, "/v1/chat/completions", body)).json()) as typeof answer;
    expect(again.choices[0]!.message.content).toBe(answer.choices[0]!.message.content);
  });

  it("streams a chat completion chunk by chunk, at the token rate, ending with [DONE]", async () => {
    await admin.setFaults({ model_tokens_per_s: 50 });
    const e = await endpointOf(await machine());
    const started = Date.now();
    const res = await post(e, "/v1/chat/completions", { model: MODEL, messages: [{ role: "user", content: "Count" }], max_tokens: 6, stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const arrivals: { at: number; text: string }[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      arrivals.push({ at: Date.now() - started, text: decoder.decode(value) });
    }
    const text = arrivals.map((a) => a.text).join("");
    const events = text.split("\n\n").filter((x) => x !== "");
    expect(events.at(-1)).toBe("data: [DONE]");
    const chunks = events.slice(0, -1).map((x) => JSON.parse(x.slice("data: ".length)) as { object: string; choices: { delta: { content?: string }; finish_reason: string | null }[] });
    expect(chunks.every((c) => c.object === "chat.completion.chunk")).toBe(true);
    expect(chunks.map((c) => c.choices[0]!.delta.content ?? "").join("")).toBe(generate(MODEL, "user: Count", 6).tokens.join(""));
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe("length");
    // Six tokens at 50 a second take 120 ms, and arrive as they are made, not all at the end.
    expect(arrivals.length).toBeGreaterThan(3);
    expect(arrivals.at(-1)!.at).toBeGreaterThanOrEqual(110);
    expect(arrivals[1]!.at).toBeLessThan(arrivals.at(-1)!.at - 40);
  });

  it("answers a text completion, streamed or not", async () => {
    const e = await endpointOf(await machine());
    const res = await post(e, "/v1/completions", { model: MODEL, prompt: "Once upon a time", max_tokens: 3 });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { object: string; choices: { text: string }[]; usage: { prompt_tokens: number; completion_tokens: number } };
    expect(answer.object).toBe("text_completion");
    expect(answer.choices[0]!.text).toBe(generate(MODEL, "Once upon a time", 3).tokens.join(""));
    expect(answer.usage).toMatchObject({ prompt_tokens: 4, completion_tokens: 3 });
    const stream = await post(e, "/v1/completions", { model: MODEL, prompt: "Once upon a time", max_tokens: 3, stream: true, stream_options: { include_usage: true } });
    const text = await stream.text();
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(text).toContain('"usage":{"prompt_tokens":4,"completion_tokens":3,"total_tokens":7}');
  });

  it("refuses a missing or wrong key with 401 in OpenAI's shape, metrics included", async () => {
    const e = await endpointOf(await machine());
    for (const headers of [{}, { authorization: "Bearer sk-wrong" }, { authorization: KEY }] as Record<string, string>[]) {
      const res = await e.fetch("/v1/models", { headers });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: { message: expect.any(String), type: "authentication_error", param: null, code: "invalid_api_key" } });
    }
    expect((await post(e, "/v1/chat/completions", { model: MODEL, messages: [{ role: "user", content: "x" }] }, "sk-wrong")).status).toBe(401);
    expect((await e.fetch("/metrics")).status).toBe(401);
  });

  it("answers anyone when the machine has no LESSOR_MODEL_KEY", async () => {
    const e = await endpointOf(await machine({ env: {} }));
    expect((await e.fetch("/v1/models")).status).toBe(200);
    expect((await e.fetch("/metrics")).status).toBe(200);
  });

  it("is closed until the run reaches serve, then open", async () => {
    const m = await machine({ cmd: `echo downloading weights; sleep 0.4; serve ${MODEL}` });
    const e = await endpointOf(m);
    const error = await refused(e.fetch("/v1/models", { headers: auth() }));
    expect(error.message).toContain("refused");
    await refused(post(e, "/v1/chat/completions", { model: MODEL, messages: [{ role: "user", content: "x" }] }));
    await new Promise((r) => setTimeout(r, 450));
    expect((await e.fetch("/v1/models", { headers: auth() })).status).toBe(200);
  });

  it("is closed after a stop, and the endpoint is null then; a machine started again counts from 0", async () => {
    const m = await machine();
    const e = await endpointOf(m);
    expect((await post(e, "/v1/completions", { model: MODEL, prompt: "x", max_tokens: 2 })).status).toBe(200);
    expect(await metric(e, "vllm:request_success_total")).toBe(1);
    await p.stopMachine(m.id);
    await refused(e.fetch("/v1/models", { headers: auth() }));
    expect(await p.endpoint(m, MODEL_PORT)).toBeNull();
    await p.startMachine(m.id);
    const again = await endpointOf(await waitForStatus(m.id, "running"));
    expect(await metric(again, "vllm:request_success_total")).toBe(0);
  });

  it("breaks a stream when the machine stops under it", async () => {
    await admin.setFaults({ model_tokens_per_s: 20 });
    const m = await machine({ env: {} });
    const e = await endpointOf(m);
    const res = await post(e, "/v1/completions", { model: MODEL, prompt: "x", max_tokens: 40, stream: true });
    const reader = res.body!.getReader();
    await reader.read();
    await p.stopMachine(m.id);
    const broken = await (async () => {
      try {
        while (!(await reader.read()).done);
        return null;
      } catch (err) {
        return err;
      }
    })();
    expect(broken).toBeInstanceOf(Error);
  });

  it("is closed for a run that ended or never serves, and null without the port", async () => {
    const ended = await endpointOf(await machine({ cmd: "echo done" }));
    await refused(ended.fetch("/v1/models"));
    const hangs = await endpointOf(await machine({ cmd: "hang" }));
    await refused(hangs.fetch("/v1/models"));
    const m = await machine({ ports: [] });
    expect(await p.endpoint(m, MODEL_PORT)).toBeNull();
    expect(await p.endpoint(await machine(), 9000)).toBeNull();
  });

  it("counts requests and tokens in /metrics, a stream as running while it lasts", async () => {
    const e = await endpointOf(await machine());
    expect(await metric(e, "vllm:request_success_total")).toBe(0);
    expect(await metric(e, "vllm:num_requests_waiting")).toBe(0);
    await post(e, "/v1/completions", { model: MODEL, prompt: "one two three", max_tokens: 4 }).then((r) => r.text());
    expect(await metric(e, "vllm:request_success_total")).toBe(1);
    expect(await metric(e, "vllm:prompt_tokens_total")).toBe(3);
    expect(await metric(e, "vllm:generation_tokens_total")).toBe(4);

    await admin.setFaults({ model_tokens_per_s: 20 });
    const res = await post(e, "/v1/chat/completions", { model: MODEL, messages: [{ role: "user", content: "x" }], max_tokens: 10, stream: true });
    const reader = res.body!.getReader();
    await reader.read();
    expect(await metric(e, "vllm:num_requests_running")).toBe(1);
    while (!(await reader.read()).done);
    expect(await metric(e, "vllm:num_requests_running")).toBe(0);
    expect(await metric(e, "vllm:request_success_total")).toBe(2);
    expect(await metric(e, "vllm:generation_tokens_total")).toBe(4 + generate(MODEL, "user: x", 10).tokens.length);
  });

  it("answers bad input with 4xx in OpenAI's shape, never 500", async () => {
    const e = await endpointOf(await machine());
    const bad = await e.fetch("/v1/chat/completions", { method: "POST", headers: auth(), body: "{not json" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { type: "invalid_request_error", code: "invalid_json" } });
    const wrong = await post(e, "/v1/chat/completions", { model: "gpt-4", messages: [{ role: "user", content: "x" }] });
    expect(wrong.status).toBe(404);
    expect(await wrong.json()).toMatchObject({ error: { code: "model_not_found", param: "model" } });
    const invalid = await post(e, "/v1/completions", { model: MODEL, prompt: 7 });
    expect(invalid.status).toBe(400);
    expect((await post(e, "/v1/completions", { model: MODEL, prompt: "x", max_tokens: -1 })).status).toBe(400);
    expect((await e.fetch("/v1/nothing", { headers: auth() })).status).toBe(404);
    expect((await e.fetch("/v1/chat/completions", { headers: auth() })).status).toBe(405);
    const huge = await e.fetch("/v1/completions", { method: "POST", headers: auth(), body: JSON.stringify({ model: MODEL, prompt: "x".repeat(1 << 20) }) });
    expect(huge.status).toBe(413);
  });

  it("answers while the sim's API fails: injected faults are the API's, not the machine's network", async () => {
    const e = await endpointOf(await machine());
    await admin.setFaults({ api_error_rate: 1, rate_limit_rate: 1 });
    expect((await e.fetch("/v1/models", { headers: auth() })).status).toBe(200);
  });

  it("refuses a create with ports that are not TCP ports", async () => {
    for (const ports of [[0], [65_536], [8000, 8000], ["8000"], 8000]) {
      const res = await env.SIM.get(env.SIM.idFromName("sim")).fetch("https://sim.internal/v1/machines", {
        method: "POST",
        body: JSON.stringify({ label: "ports-bad", offer_id: offerId, ports }),
      });
      expect(res.status, JSON.stringify(ports)).toBe(400);
    }
  });

  // Like the gateway, the route answers what the model server answers: it is not in the document.
  const NOT_DOCUMENTED = "the machine's own answer";
  it("is reached directly through /v1/sim/machines/:id/ports/:port/... by the operator, without the model key", async () => {
    const m = await machine();
    const direct = (path: string, init: { method?: string; key?: string; body?: unknown } = {}) =>
      call(init.method ?? "GET", `/v1/sim/machines/${m.id}/ports/${MODEL_PORT}${path}`, { key: init.key ?? BOOTSTRAP, body: init.body, unchecked: NOT_DOCUMENTED });
    const models = await direct("/v1/models");
    expect(models.status).toBe(200);
    expect(((await models.json()) as { data: Array<{ id: string }> }).data.map((x) => x.id)).toEqual([MODEL]);
    const chat = await direct("/v1/chat/completions", { method: "POST", body: { model: MODEL, messages: [{ role: "user", content: "hi" }], max_tokens: 4 } });
    expect(chat.status).toBe(200);
    expect(((await chat.json()) as { object: string }).object).toBe("chat.completion");
    // Only the installation's operator: the machine's own key is not lessor's credential.
    expect((await direct("/v1/models", { key: KEY })).status).toBe(401);
    // A port nothing listens on, and one that is no port.
    const closed = await call("GET", `/v1/sim/machines/${m.id}/ports/9000/v1/models`, { key: BOOTSTRAP, unchecked: NOT_DOCUMENTED });
    expect(closed.status).toBe(409);
    expect(((await closed.json()) as { error: { code: string } }).error.code).toBe("port_closed");
    expect((await call("GET", `/v1/sim/machines/sim-m-none/ports/${MODEL_PORT}/v1/models`, { key: BOOTSTRAP, unchecked: NOT_DOCUMENTED })).status).toBe(409);
    expect((await call("GET", `/v1/sim/machines/${m.id}/ports/70000/v1/models`, { key: BOOTSTRAP, unchecked: NOT_DOCUMENTED })).status).toBe(400);
  });
});
