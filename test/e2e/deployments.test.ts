/**
 * A deployment end to end (docs/deployments.md), with the official `openai` npm package as the
 * client, against a real `wrangler dev` started as `npm start` starts it: one PUT, then through
 * `base_url` the model list, a chat completion and a streamed one, served by the sim's model
 * server through the gateway.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiCall, bootstrapTokenFromDevVars, removeStateDir, runningServers, startServer, stopServer, type Server } from "./server";

const MODEL = "Qwen/Qwen2.5-0.5B-Instruct";

let server: Server;
let key: string;

beforeAll(async () => {
  server = await startServer();
  const org = await apiCall(server, "POST", "/v1/orgs", bootstrapTokenFromDevVars(), { name: "deployments-e2e" });
  expect(org.status, JSON.stringify(org.json)).toBe(201);
  key = org.json.key.secret;
});

afterAll(async () => {
  for (const s of server ? [server] : runningServers()) {
    await stopServer(s);
    removeStateDir(s);
  }
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

it("an OpenAI client lists the model, completes a chat and streams one through base_url", { timeout: 180_000 }, async () => {
  // Created once the cron has seeded the catalog.
  const deployment = await until("the deployment to be created", async () => {
    const res = await apiCall(server, "PUT", "/v1/deployments/chat", key, { model: MODEL, spec: { gpu: "l40s:1" } });
    return res.status === 202 || res.status === 200 ? res.json : null;
  });
  expect(deployment.base_url).toBe(`${server.base}/v1/gateway/${deployment.id}/v1`);
  await until("the deployment to be ready", async () => (await apiCall(server, "GET", "/v1/deployments/chat", key)).json.state === "ready");

  const client = new OpenAI({ baseURL: deployment.base_url, apiKey: deployment.api_key, maxRetries: 0 });
  const models = await client.models.list();
  expect(models.data.map((m) => m.id)).toContain(MODEL);

  const chat = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Say hello" }], max_tokens: 16 });
  expect(chat.choices[0]!.message.content!.length).toBeGreaterThan(0);

  const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "Say hello" }], max_tokens: 16, stream: true });
  const pieces: string[] = [];
  for await (const chunk of stream) pieces.push(chunk.choices[0]?.delta?.content ?? "");
  expect(pieces.filter((p) => p !== "").length).toBeGreaterThan(1);
  expect(pieces.join("")).toBe(chat.choices[0]!.message.content);

  // A wrong key is refused by the gateway, in lessor's envelope.
  const wrong = new OpenAI({ baseURL: deployment.base_url, apiKey: "wrong", maxRetries: 0 });
  await expect(wrong.models.list()).rejects.toMatchObject({ status: 401 });
});
