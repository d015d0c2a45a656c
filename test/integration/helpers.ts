/** Shared steps for integration tests: they call the Worker exactly as a client would. */
import { env, SELF } from "cloudflare:test";
import { refreshOffers } from "../../src/catalog/refresh";
import { ResponseChecker } from "../support/response-check";
import { STUB_API_KEYS, STUB_LAMBDA_SSH_KEY_NAME, type StubProvider } from "../support/stub-clouds-admin";

export const BASE = "https://lessor.test";
export const BOOTSTRAP = "test-bootstrap-token-0123456789abcdef";

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  /** A raw body, sent as is. */
  raw?: string;
  headers?: Record<string, string>;
  /**
   * Why this answer is not checked against the OpenAPI document, for a test of the raw protocol
   * that expects an answer the document does not describe. Every other answer is checked.
   */
  unchecked?: string;
}

let checker: Promise<ResponseChecker> | undefined;

/** The document, read once per test file from the Worker itself. */
function documentChecker(): Promise<ResponseChecker> {
  checker ??= SELF.fetch(`${BASE}/v1/openapi.json`).then(async (res) => new ResponseChecker(await res.json()));
  return checker;
}

/** Fails unless the answer is one the OpenAPI document describes for its route and status. */
export async function checkAnswer(method: string, path: string, res: Response): Promise<void> {
  const type = res.headers.get("content-type") ?? "";
  // A live stream does not end: its type is checked, never its body (its frames are the test's).
  if (type.startsWith("text/event-stream")) {
    const problems = (await documentChecker()).problems(method, path, res.status, undefined, type);
    if (problems.length > 0) throw new Error(`the answer to ${method} ${path} is not the one the OpenAPI document describes:\n${problems.join("\n")}`);
    return;
  }
  const text = await res.clone().text();
  let body: unknown = undefined;
  if (text !== "") {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  const problems = (await documentChecker()).problems(method, path, res.status, body);
  if (problems.length > 0) {
    throw new Error(`the answer to ${method} ${path} is not the one the OpenAPI document describes:\n${problems.join("\n")}\nbody: ${text.slice(0, 2000)}`);
  }
}

/** Calls the Worker as a client would; the answer is checked against the document (see `unchecked`). */
export async function call(method: string, path: string, opts: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) {
    headers["content-type"] = "application/json";
  }
  const res = await SELF.fetch(`${BASE}${path}`, { method, headers, body });
  if (opts.unchecked === undefined) await checkAnswer(method, path, res);
  return res;
}

export async function json<T = any>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

export interface TestOrg {
  id: string;
  adminKey: string;
}

let counter = 0;
export async function createOrg(name = `org-${++counter}`): Promise<TestOrg> {
  const res = await call("POST", "/v1/orgs", { key: BOOTSTRAP, body: { name } });
  if (res.status !== 201) throw new Error(`createOrg: ${res.status} ${await res.text()}`);
  const body = await json(res);
  return { id: body.org.id, adminKey: body.key.secret };
}

export async function createKey(org: TestOrg, scope: "read" | "write" | "admin"): Promise<{ id: string; secret: string }> {
  const res = await call("POST", "/v1/keys", { key: org.adminKey, body: { name: `${scope} key`, scope } });
  if (res.status !== 201) throw new Error(`createKey: ${res.status} ${await res.text()}`);
  const body = await json(res);
  return { id: body.id, secret: body.secret };
}

/**
 * A new org with a write key that rents on the stub cloud of `provider` with the stub's own key
 * (and, on Lambda, its one SSH key), and the catalog refreshed so that its offers are there.
 */
export async function orgOnStubCloud(provider: StubProvider): Promise<{ org: TestOrg; key: string }> {
  const org = await createOrg();
  const key = (await createKey(org, "write")).secret;
  const options: Record<string, string> = provider === "lambda" ? { ssh_key_name: STUB_LAMBDA_SSH_KEY_NAME } : {};
  const res = await call("PUT", `/v1/providers/${provider}`, { key: org.adminKey, body: { api_key: STUB_API_KEYS[provider], options } });
  if (res.status !== 200) throw new Error(`PUT /v1/providers/${provider}: ${res.status} ${await res.text()}`);
  await refreshCatalog();
  return { org, key };
}

/** Fills the offer cache from the sim, as the cron trigger does. */
export async function refreshCatalog(now = Date.now()) {
  return refreshOffers(env, now);
}

/** Asserts the one error envelope and returns it. */
export async function expectError(res: Response, status: number, code?: string) {
  const body = await json(res);
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(body)}`);
  if (!body?.error || typeof body.error.code !== "string" || typeof body.error.message !== "string" || typeof body.request_id !== "string") {
    throw new Error(`not the error envelope: ${JSON.stringify(body)}`);
  }
  if (code !== undefined && body.error.code !== code) throw new Error(`expected code ${code}, got ${body.error.code}: ${JSON.stringify(body)}`);
  return body.error as { code: string; message: string; details: Record<string, any> };
}

/** SQLite's plan for a query as D1 would run it: each step's detail, joined by "; ". */
export async function queryPlan(query: { compile(): { sql: string; parameters: readonly unknown[] } }): Promise<string> {
  const { sql, parameters } = query.compile();
  const rows = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...parameters).all<{ detail: string }>();
  return rows.results.map((r) => r.detail).join("; ");
}
