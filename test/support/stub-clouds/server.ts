/**
 * The stub clouds over HTTP, on loopback: one node:http server that serves RunPod, Vast.ai and
 * Lambda Cloud under `/runpod`, `/vast` and `/lambda`, each through a ContractStub holding every
 * request and answer to that provider's own document. It runs in Node because the ContractStub
 * cannot run in workerd (ajv compiles validators with `new Function`); the Worker under test is
 * pointed here with base URL overrides (`http://127.0.0.1:<port>/runpod`, ...), and its adapters
 * append the document's own paths, so `/runpod/v2/pods` is checked as `https://api.runpod.io/v2/pods`.
 *
 * Admin endpoints, never checked against a document (the sim's own controls, per provider):
 *   GET  /__admin/health                       {ok, providers, missing}
 *   GET  /__admin/violations                   every provider's violations and notes
 *   POST /__admin/violations/clear
 *   GET|PUT /__admin/:provider/faults          the sim's fault fields (PUT merges, answers the result)
 *   POST /__admin/:provider/reset              forget every machine, default faults, no injected answers, test hooks or recorded calls
 *   POST /__admin/:provider/inject-create      {status, body, match?}: the next create (whose body contains `match`) is answered so instead
 *   POST /__admin/runpod/misplace-create       {data_center_id, match?}: the next create (whose body contains `match`) lands in that data center, whatever it asked
 *   GET  /__admin/:provider/ledger?label_prefix=   SimLedger
 *   GET  /__admin/:provider/billing?from=&to=      {now, complete_through, window_ms, records}: the sim's billing answer
 *   GET  /__admin/:provider/violations         {violations, notes}
 *   POST /__admin/:provider/violations/clear
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ContractStub, loadContract } from "../contract-stub";
import { STUB_API_KEYS, STUB_PROVIDERS, type StubHealth, type StubProvider, type StubViolation } from "../stub-clouds-admin";
import { ConnectionCut, type Dialect } from "./dialect";
import { LambdaDialect } from "./lambda";
import { RunPodDialect } from "./runpod";
import { VastDialect } from "./vast";

export interface StubCloudsOptions {
  /** 0 (the default) takes any free port. */
  port?: number;
  /** The clouds' clock (default Date.now), for tests that move time. */
  now?: () => number;
  /** Print each violation as it is recorded (default true): a violation is a failure worth seeing. */
  logViolations?: boolean;
  /**
   * Keep every checked call in each provider's `stub.calls` (default false: a server that lives
   * for a whole test run must not). A unit test that asserts what the adapter sent turns it on;
   * a reset empties it.
   */
  recordCalls?: boolean;
}

/** One provider as served: its dialect, and the ContractStub that checks its traffic. */
export interface ServedProvider {
  readonly dialect: Dialect;
  readonly stub: ContractStub;
  readonly violations: StubViolation[];
  readonly notes: StubViolation[];
}

export interface StubClouds {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  readonly served: Partial<Record<StubProvider, ServedProvider>>;
  readonly health: StubHealth;
  /** The adapter's base URL for a provider. */
  baseUrl(provider: StubProvider): string;
  close(): Promise<void>;
}

function dialectOf(provider: StubProvider, now?: () => number): Dialect {
  const options = now ? { now } : {};
  switch (provider) {
    case "runpod":
      return new RunPodDialect(options);
    case "vast":
      return new VastDialect(options);
    case "lambda":
      return new LambdaDialect(options);
  }
}

/** Starts the server on 127.0.0.1; providers whose document is absent are left out (see `health`). */
export async function startStubClouds(options: StubCloudsOptions = {}): Promise<StubClouds> {
  const served: Partial<Record<StubProvider, ServedProvider>> = {};
  const missing: StubHealth["missing"] = {};
  for (const provider of STUB_PROVIDERS) {
    const dialect = dialectOf(provider, options.now);
    const contract = loadContract(dialect.contractFile);
    if (!contract) {
      missing[provider] = `${dialect.contractFile} is absent`;
      continue;
    }
    const stub = new ContractStub(contract, {
      apiKey: STUB_API_KEYS[provider],
      handler: (call) => dialect.handle(call),
      refuse: (op) => dialect.refuse(op),
      recordCalls: options.recordCalls ?? false,
    });
    served[provider] = { dialect, stub, violations: [], notes: [] };
  }
  const health: StubHealth = { ok: true, providers: Object.keys(served) as StubProvider[], missing };
  const log = options.logViolations ?? true;

  const server = createServer((req, res) => {
    handle(req, res, served, health, log).catch((e) => {
      console.error("[stub-clouds] internal error", e);
      if (!res.headersSent) send(res, 500, { error: { code: "internal", message: String(e) } });
      else res.destroy();
    });
  });
  const port = await listen(server, options.port ?? 0);
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    served,
    health,
    baseUrl: (provider) => `${url}/${provider}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** A free port on 127.0.0.1, for a config that must name the port before the server starts. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  const port = await listen(probe, 0);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

async function handle(req: IncomingMessage, res: ServerResponse, served: Partial<Record<StubProvider, ServedProvider>>, health: StubHealth, log: boolean): Promise<void> {
  const url = new URL(req.url ?? "/", "http://stub.invalid");
  const [first, ...rest] = url.pathname.split("/").slice(1);
  const body = await readBody(req);
  if (first === "__admin") return admin(req.method ?? "GET", rest, url.searchParams, body, res, served, health);
  const provider = STUB_PROVIDERS.find((p) => p === first);
  const p = provider && served[provider];
  if (!p) return send(res, 404, { error: { code: "not_found", message: `no stub provider at /${first ?? ""} (served: ${health.providers.join(", ")})` } });
  await proxy(req, res, p, `/${rest.join("/")}${url.search}`, body, log);
}

/**
 * One provider request: rebased onto the document's first server (RunPod's
 * https://api.runpod.io, ...), checked and answered by the ContractStub, and the Response written
 * back. An ambiguous create may drop the connection instead (ConnectionCut).
 */
async function proxy(req: IncomingMessage, res: ServerResponse, p: ServedProvider, pathAndQuery: string, body: string, log: boolean): Promise<void> {
  const method = req.method ?? "GET";
  const docUrl = `${p.stub.contract.servers[0]}${pathAndQuery}`;
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
  let response: Response;
  try {
    if (body !== "" && (method === "GET" || method === "HEAD")) {
      // A Request cannot carry it: say what the document says of a body the operation does not take.
      p.stub.violations.push(`${method} ${docUrl}: sends a body on ${method}`);
      response = new Response("contract violation: a body on GET", { status: 400 });
    } else {
      response = await p.stub.fetch(docUrl, { method, headers, body: body === "" ? undefined : body });
    }
  } catch (e) {
    if (e instanceof ConnectionCut) {
      // No byte of an answer: the request was acted on, and the caller sees the connection drop.
      // (workerd logs "Network connection lost" as an uncaught exception even when the fetch's
      // rejection is handled; that line is expected.)
      collect(p, log);
      res.destroy();
      return;
    }
    // A bug of the dialect is a failure of the check: record it where the tests look.
    p.stub.violations.push(`${method} ${docUrl}: the stub failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    response = new Response("stub internal error", { status: 500 });
  }
  collect(p, log);
  const bytes = Buffer.from(await response.arrayBuffer());
  const out: Record<string, string> = {};
  response.headers.forEach((v, k) => (out[k] = v));
  res.writeHead(response.status, out);
  res.end(bytes);
}

/** Moves what the ContractStub recorded into the provider's timestamped lists. */
function collect(p: ServedProvider, log: boolean): void {
  const at = new Date().toISOString();
  for (const message of p.stub.violations.splice(0)) {
    p.violations.push({ at, message });
    if (log) console.warn(`[stub-clouds] ${p.dialect.provider} contract violation: ${message}`);
  }
  for (const message of p.stub.notes.splice(0)) p.notes.push({ at, message });
}

function admin(
  method: string,
  path: string[],
  params: URLSearchParams,
  body: string,
  res: ServerResponse,
  served: Partial<Record<StubProvider, ServedProvider>>,
  health: StubHealth,
): void {
  const all = Object.entries(served) as Array<[StubProvider, ServedProvider]>;
  const route = `${method} ${path.join("/")}`;
  if (route === "GET health") return send(res, 200, health);
  if (route === "GET violations") {
    return send(res, 200, {
      violations: Object.fromEntries(all.map(([name, p]) => [name, p.violations])),
      notes: Object.fromEntries(all.map(([name, p]) => [name, p.notes])),
    });
  }
  if (route === "POST violations/clear") {
    for (const [, p] of all) clearViolations(p);
    return send(res, 200, { ok: true });
  }
  const [name, ...action] = path;
  const p = served[name as StubProvider];
  if (!p) return send(res, 404, { error: { code: "not_found", message: `no stub provider ${name} (served: ${health.providers.join(", ")})` } });
  const core = p.dialect.core;
  switch (`${method} ${action.join("/")}`) {
    case "GET faults":
      return send(res, 200, core.faults);
    case "PUT faults": {
      let patch: unknown;
      try {
        patch = JSON.parse(body || "null");
      } catch {
        return send(res, 400, { error: { code: "invalid_request", message: "body is not JSON" } });
      }
      const merged = core.setFaults(patch);
      return merged.ok ? send(res, 200, merged.faults) : send(res, 400, { error: { code: "invalid_request", message: merged.message } });
    }
    case "POST reset":
      core.reset();
      p.dialect.clearTestHooks();
      // A unit test's recorded calls and one-shot answers (ContractStub.fault) go too.
      p.stub.calls.length = 0;
      p.stub.faults.length = 0;
      return send(res, 200, { ok: true });
    case "POST inject-create": {
      let answer: { status?: unknown; body?: unknown; match?: unknown };
      try {
        answer = JSON.parse(body || "null") ?? {};
      } catch {
        return send(res, 400, { error: { code: "invalid_request", message: "body is not JSON" } });
      }
      if (typeof answer.status !== "number") return send(res, 400, { error: { code: "invalid_request", message: "status must be a number" } });
      p.dialect.injected.push({ answer: { status: answer.status, body: answer.body }, ...(typeof answer.match === "string" ? { match: answer.match } : {}) });
      return send(res, 200, { ok: true, queued: p.dialect.injected.length });
    }
    case "POST misplace-create": {
      if (!(p.dialect instanceof RunPodDialect)) return send(res, 404, { error: { code: "not_found", message: "only runpod places elsewhere than asked" } });
      let ask: { data_center_id?: unknown; match?: unknown };
      try {
        ask = JSON.parse(body || "null") ?? {};
      } catch {
        return send(res, 400, { error: { code: "invalid_request", message: "body is not JSON" } });
      }
      if (typeof ask.data_center_id !== "string") return send(res, 400, { error: { code: "invalid_request", message: "data_center_id must be a string" } });
      p.dialect.misplaced.push({ dataCenterId: ask.data_center_id, ...(typeof ask.match === "string" ? { match: ask.match } : {}) });
      return send(res, 200, { ok: true, queued: p.dialect.misplaced.length });
    }
    case "GET ledger":
      return send(res, 200, core.ledger(params.get("label_prefix") ?? ""));
    case "GET billing": {
      const from = msParam(params, "from");
      const to = msParam(params, "to");
      if (from === "bad" || to === "bad") return send(res, 400, { error: { code: "invalid_request", message: "from and to must be milliseconds since the epoch" } });
      return send(res, 200, core.billing(from ?? 0, to ?? undefined));
    }
    case "GET violations":
      return send(res, 200, { violations: p.violations, notes: p.notes });
    case "POST violations/clear":
      clearViolations(p);
      return send(res, 200, { ok: true });
  }
  return send(res, 404, { error: { code: "not_found", message: `no admin route ${method} /__admin/${path.join("/")}` } });
}

function clearViolations(p: ServedProvider): void {
  p.violations.length = 0;
  p.notes.length = 0;
  p.stub.violations.length = 0;
  p.stub.notes.length = 0;
}

function msParam(params: URLSearchParams, name: string): number | null | "bad" {
  const raw = params.get(name);
  if (raw === null || raw === "") return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n >= 0 ? n : "bad";
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
