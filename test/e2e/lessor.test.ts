/**
 * End to end: `npm start`'s own script (scripts/start.mjs) started once for this file, spoken to
 * over real HTTP: health and the seeded catalog, the shell lines of README.md and of docs/*.md run
 * as written (the README's walkthrough first; docs/tests.md "The documentation's shell lines"),
 * the OpenAPI document checked by an independent parser, and the error envelope on bad input.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { compileErrors, validate } from "@readme/openapi-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { documentedFiles, runnableShellBlocks } from "../support/doc-blocks";
import { ResponseChecker } from "../support/response-check";
import { bootstrapTokenFromDevVars, removeStateDir, repoRoot, runningServers, startServer, stopServer, type Server } from "./server";

let server: Server;
let bootstrapToken: string;
/** Every answer below is checked against the document the server serves (test/support/response-check.ts). */
let checker: ResponseChecker;

/** What a file's shell lines print that its text says they print, beyond exiting 0. */
const PRINTS: Record<string, Array<string | RegExp>> = {
  "README.md": [
    "lsr_",
    // the job, its output followed to its end
    "data: hello from the GPU",
    /event: end\ndata: \{"reason":"exited","exit":\{"code":0/,
    // the scratch session: ready, an exec, ended by the user
    /"state": "ready"/,
    '"output": "hi from the box\\n"',
    /"release_reason": "user_end"/,
    '"type":"released"',
    // the deployment's gateway, reached by the `env` lines; then the CLI's
    /"base_url": "http:\/\/127\.0\.0\.1:\d+\/v1\/gateway\/dp_[0-9a-z]+\/v1"/,
    "hello from the GPU\ndone\n",
    "hi from the box\n",
    '["Qwen/Qwen2.5-0.5B-Instruct"]',
  ],
  "docs/api.md": ['"l40s"', /"sim:[^"]+"/, /"qt_[0-9a-z]+"/, '"no_capacity"'],
  "docs/billing.md": ['"status": "accruing"', '"over_budget"', '"gpus": 8'],
  "docs/sim.md": ['{"type":"stop_requested","to":"stopping","reason":"unexpected_start"}'],
  "docs/volumes.md": [/^epoch-3$/m, '{"name":"ckpt","state":"ready","monthly_usd":5,"mounted_by":[]}', '"volume_idle_ttl": "7d"'],
};

beforeAll(async () => {
  const t0 = Date.now();
  server = await startServer();
  bootstrapToken = bootstrapTokenFromDevVars();
  checker = new ResponseChecker(await (await fetch(`${server.base}/v1/openapi.json`)).json());
  console.log(`e2e: lessor serving on ${server.base} after ${Date.now() - t0} ms (start.mjs pid ${server.pid}, wrangler pgid ${server.wranglerPgid})`);
});

afterAll(async () => {
  if (!server) {
    // beforeAll failed or timed out: stop whatever it left starting.
    for (const s of runningServers()) {
      await stopServer(s);
      removeStateDir(s);
    }
    return;
  }
  const t0 = Date.now();
  const { exit, leftovers } = await stopServer(server);
  console.log(`e2e: lessor stopped in ${Date.now() - t0} ms`);
  try {
    if (existsSync("/proc")) expect(server.wranglerPgid, "could not find the wrangler dev process start.mjs started").not.toBeNull();
    // start.mjs exits 0 on SIGTERM (not after the fallback SIGKILL)...
    expect(exit, `node scripts/start.mjs did not exit cleanly on SIGTERM:\n${server.log()}`).toEqual({ code: 0, signal: null });
    // ...having stopped wrangler dev and workerd with it...
    expect(leftovers, `processes of wrangler dev's group still alive after SIGTERM:\n${server.log()}`).toEqual([]);
    // ...and nothing answers on the port any more.
    const answered = await fetch(`${server.base}/v1/healthz`, { signal: AbortSignal.timeout(2_000) }).then(
      () => true,
      () => false,
    );
    expect(answered, `${server.base} still answers after SIGTERM`).toBe(false);
  } finally {
    removeStateDir(server);
  }
});

/** Dumps start.mjs's output when an assertion in `fn` fails. */
async function withLog<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    console.error(`--- output of node scripts/start.mjs (${server.logFile}) ---\n${server.log()}`);
    throw e;
  }
}

/** Fails unless the answer is one the OpenAPI document describes for its route and status. */
function expectDocumented(method: string, route: string, status: number, body: unknown) {
  expect(checker.problems(method, route, status, body), `${method} ${route} answered ${status}: ${JSON.stringify(body).slice(0, 2000)}`).toEqual([]);
}

/** `unchecked`: why this answer is not checked against the document (a raw-protocol test). */
async function api(method: string, route: string, key: string, body?: unknown, opts: { unchecked?: string } = {}) {
  const res = await fetch(`${server.base}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${method} ${route} answered ${res.status} with a body that is not JSON: ${text.slice(0, 500)}`);
  }
  if (opts.unchecked === undefined) expectDocumented(method, route, res.status, json);
  return { status: res.status, headers: res.headers, json };
}

async function createOrg(name: string): Promise<string> {
  const res = await api("POST", "/v1/orgs", bootstrapToken, { name });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  expect(res.json.key.secret).toMatch(/^lsr_[0-9A-Za-z]{43}$/);
  return res.json.key.secret as string;
}

interface Offer {
  id: string;
  gpu: string;
  region: string;
}

async function allOffers(key: string): Promise<Offer[]> {
  const offers: Offer[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const q = new URLSearchParams({ limit: "200" });
    if (cursor) q.set("cursor", cursor);
    const res = await api("GET", `/v1/catalog/offers?${q}`, key);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data.length).toBeLessThanOrEqual(200);
    offers.push(...res.json.data);
    cursor = res.json.next_cursor;
    if (!cursor) return offers;
  }
  throw new Error("more than 100 pages of offers: the cursor does not advance");
}

describe("lessor started by `node scripts/start.mjs`", () => {
  it("answers /v1/healthz and serves the offers the cron ticker seeded", () =>
    withLog(async () => {
      const health = await fetch(`${server.base}/v1/healthz`);
      expect(health.status).toBe(200);
      const healthBody = await health.json();
      expect(healthBody).toMatchObject({ ok: true });
      expectDocumented("GET", "/v1/healthz", health.status, healthBody);

      const key = await createOrg("e2e-catalog");

      // The first tick runs when the server starts; its refresh may still be finishing.
      let offers: Offer[] = [];
      const deadline = Date.now() + 30_000;
      while ((offers = await allOffers(key)).length < 200 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 500));
      }
      expect(offers.length).toBeGreaterThanOrEqual(200);
      expect(new Set(offers.map((o) => o.id)).size, "paging returned an offer twice").toBe(offers.length);
      expect(new Set(offers.map((o) => o.region)).size).toBeGreaterThanOrEqual(5);

      const gpus = await api("GET", "/v1/catalog/gpus", key);
      expect(gpus.status).toBe(200);
      const classes = gpus.json.data as Array<{ name: string; vram_gb: number; offers: number }>;
      expect(classes.length).toBeGreaterThan(0);
      for (const c of classes) {
        expect(c.name).toMatch(/^[a-z0-9-]+$/);
        expect(c.vram_gb, c.name).toBeGreaterThan(0);
        // The simulated cloud serves every class.
        expect(c.offers, `${c.name} has no offers`).toBeGreaterThan(0);
      }
      // Every offer's GPU is a listed class (or a CPU machine).
      const names = new Set(classes.map((c) => c.name));
      expect(offers.filter((o) => o.gpu !== "cpu" && !names.has(o.gpu))).toEqual([]);
    }));

  describe("the shell lines of the README and of docs/, run as written (docs/tests.md)", () => {
    const files = documentedFiles(repoRoot).filter((file) => runnableShellBlocks(repoRoot, file).length > 0);
    /** Where `lessor login` writes, so that the docs' CLI lines write nothing of the user's. */
    const configHome = mkdtempSync(path.join(tmpdir(), "lessor-docs-"));
    afterAll(() => rmSync(configHome, { recursive: true, force: true }));

    it("has the README's walkthrough first, and more files after it", () => {
      expect(files[0]).toBe("README.md");
      expect(files.length).toBeGreaterThan(1);
    });

    it.for(files)("%s", { timeout: 240_000 }, async (file, ctx) => {
      const missing = ["bash", "curl", "jq"].filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0);
      if (missing.length > 0) {
        console.warn(`e2e: skipping the shell lines of ${file}: ${missing.join(", ")} not installed`);
        ctx.skip();
      }
      const written = runnableShellBlocks(repoRoot, file)
        .map((block) => block.code)
        .join("\n");
      const script = `set -euo pipefail\n${written.replaceAll("http://127.0.0.1:8787", server.base)}`;

      // Nothing of the runner's own LESSOR_* settings: the README starts from .dev.vars alone, as a
      // new user does; a page of docs/ starts where the walkthrough leaves a user, in an org of its own.
      const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("LESSOR_")));
      env.XDG_CONFIG_HOME = configHome;
      if (file !== "README.md") {
        const key = await createOrg(`docs-${path.basename(file, ".md")}`);
        Object.assign(env, { LESSOR: server.base, LESSOR_BOOTSTRAP_TOKEN: bootstrapToken, LESSOR_KEY: key, LESSOR_URL: server.base, LESSOR_API_KEY: key });
      }
      const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const bash = spawn("bash", ["-c", script], { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"] });
        let stdout = "";
        let stderr = "";
        bash.stdout.on("data", (d) => (stdout += d));
        bash.stderr.on("data", (d) => (stderr += d));
        bash.on("error", reject);
        bash.on("close", (code) => resolve({ code, stdout, stderr }));
      });
      const context = `${file}, script:\n${script}\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}`;
      expect(result.code, context).toBe(0);
      for (const want of PRINTS[file] ?? []) {
        if (typeof want === "string") expect(result.stdout, context).toContain(want);
        else expect(result.stdout, context).toMatch(want);
      }
    });
  });

  it("describes itself with a valid OpenAPI 3.1 document", () =>
    withLog(async () => {
      const res = await fetch(`${server.base}/v1/openapi.json`);
      expect(res.status).toBe(200);
      const doc = (await res.json()) as any;
      expect(doc.openapi).toMatch(/^3\.1\./);

      // The parser may rewrite what it is given; hand it a copy.
      const result = await validate(structuredClone(doc));
      expect(result.valid, result.valid ? "" : compileErrors(result)).toBe(true);

      const paths = Object.keys(doc.paths ?? {});
      for (const p of [
        "/v1/healthz",
        "/v1/orgs",
        "/v1/org",
        "/v1/keys",
        "/v1/keys/{id}",
        "/v1/auth/issuers",
        "/v1/auth/issuers/{id}",
        "/v1/catalog/gpus",
        "/v1/catalog/offers",
        "/v1/quotes",
        "/v1/quotes/{id}",
        "/v1/leases",
        "/v1/leases/{id}",
        "/v1/leases/{id}/events",
        "/v1/leases/{id}/end",
        "/v1/leases/{id}/heartbeat",
      ]) {
        expect(paths, `the document does not describe ${p}`).toContain(p);
      }

      const schemes = Object.entries((doc.components?.securitySchemes ?? {}) as Record<string, any>);
      const bearer = schemes.filter(([, s]) => s.type === "http" && String(s.scheme).toLowerCase() === "bearer");
      expect(bearer.length, "no http bearer security scheme").toBeGreaterThan(0);
      const bearerNames = new Set(bearer.map(([name]) => name));

      // Every operation but the public ones (liveness, this document, and the agent script, which
      // holds no secret) says it takes a bearer credential: an API key or JWT, or on /v1/agent/* a
      // lease token. Providers' webhooks prove themselves by the token in their path and their own
      // signature (docs/ingress.md), which OpenAPI has no security scheme for.
      const methods = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];
      const unsecured: string[] = [];
      for (const [p, item] of Object.entries(doc.paths as Record<string, any>)) {
        if (p === "/v1/healthz" || p === "/v1/openapi.json" || p === "/v1/agent/agent.sh" || p === "/v1/ingress/{provider}/{token}") continue;
        for (const m of methods) {
          const op = item[m];
          if (!op) continue;
          const security = (op.security ?? doc.security ?? []) as Array<Record<string, unknown>>;
          if (!security.some((req) => Object.keys(req).some((name) => bearerNames.has(name)))) unsecured.push(`${m.toUpperCase()} ${p}`);
        }
      }
      expect(unsecured, "operations without the bearer security requirement").toEqual([]);
    }));

  it("keeps the error envelope for malformed JSON and oversized bodies", () =>
    withLog(async () => {
      const key = await createOrg("e2e-errors");
      // `code: null`: any non-empty code.
      const expectEnvelope = async (res: Response, status: number, code: string | null) => {
        const text = await res.text();
        expect(res.status, text).toBe(status);
        expect(res.headers.get("content-type") ?? "").toMatch(/^application\/json/);
        const body = JSON.parse(text);
        expect(body).toEqual({
          error: { code: code ?? expect.stringMatching(/^[a-z_]+$/), message: expect.any(String), details: expect.anything() },
          request_id: expect.stringMatching(/^req_/),
        });
        expect(typeof body.error.details).toBe("object");
        expect(body.error.message.length).toBeGreaterThan(0);
        expect(res.headers.get("x-request-id")).toBe(body.request_id);
        // Every use below posts to /v1/quotes.
        expectDocumented("POST", "/v1/quotes", res.status, body);
        return body;
      };

      const malformed = await fetch(`${server.base}/v1/quotes`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: '{"spec": {"gpu": "l40s:1"',
      });
      await expectEnvelope(malformed, 400, null);

      // 2 MiB of otherwise valid JSON, with a Content-Length...
      const big = JSON.stringify({ spec: { gpu: "l40s:1" }, pad: "x".repeat(2 * 1024 * 1024) });
      const sized = await fetch(`${server.base}/v1/quotes`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: big,
      });
      await expectEnvelope(sized, 413, "payload_too_large");

      // ...and streamed without one (chunked).
      const bytes = new TextEncoder().encode(big);
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 64 * 1024) controller.enqueue(bytes.subarray(i, i + 64 * 1024));
          controller.close();
        },
      });
      const chunked = await fetch(`${server.base}/v1/quotes`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: stream,
        duplex: "half",
      } as RequestInit);
      await expectEnvelope(chunked, 413, "payload_too_large");
    }));
});
