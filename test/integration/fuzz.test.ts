/**
 * Guarantee 12 (docs/design.md): no request body, header or path makes the service answer 500, and
 * every 4xx is the one envelope `{"error": {"code", "message", "details"}, "request_id"}`
 * (STYLE.md rule 2).
 *
 * The routes come from the served OpenAPI document, read when this file is collected, so a route
 * added later is fuzzed without touching this file. For every operation (method + path template)
 * fast-check generates requests with odd bodies and content types, odd Authorization and
 * Idempotency-Key headers, odd path parameters and odd query strings, sent with an admin key, a
 * read key, the bootstrap token and no credential. Every answer must be below 500, and every
 * error exactly the envelope. A failing property prints the generated request as its
 * counterexample; big values are generated as markers (`"__HUGE__"`, `"__DEEP__"`, ...) and
 * expanded only when sent (see MARKERS), so counterexamples stay readable.
 */
import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import worker from "../../functions/index";
import { MAX_BODY_BYTES, streamsOwnBody } from "../../src/body-limit";
import { BASE, BOOTSTRAP, expectError, refreshCatalog } from "./helpers";

/** Runs per property. Each operation gets about 200 requests; the whole file stays near 30 s. */
const RUNS = { bodies: 60, headers: 30, params: 40, query: 40, paths: 150, wire: 60, quotes: 60 } as const;
const TIMEOUT_MS = 60_000;
/** After the first failure shrinking gets this long, then the smallest failure so far is reported. */
const SHRINK_BUDGET_MS = 15_000;

/**
 * The Worker's own fetch handler, called in this isolate. The bulk of the fuzz goes this way, not
 * through `SELF.fetch`: in @cloudflare/vitest-pool-workers 0.15.1 every `SELF.fetch` costs more
 * than the one before (measured: a healthz took 13 ms on average over the first 200 calls, 170 ms
 * over calls 400-600), so a few thousand requests would take many minutes and slow every later
 * test. The "through the runtime" property below still sends odd requests through `SELF`, so the
 * runtime's own handling of them on the way in is covered too.
 */
async function fetchWorker(request: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(request, env, ctx);
  // A live stream (a followed log or event log) is open until its reader lets go, and the context
  // counts it as work in progress: waiting on it first would wait for ever. The check reads its
  // status and type and cancels it.
  if (res.headers.get("content-type")?.startsWith("text/event-stream")) return res;
  await waitOnExecutionContext(ctx);
  return res;
}

const fetchSelf = (request: Request) => SELF.fetch(request);

// ---------------------------------------------------------------------------------------------
// The routes, from the served document.

type Schema = Record<string, any>;

interface Param {
  name: string;
  schema: Schema;
}

interface Operation {
  method: string;
  /** The path template, e.g. `/v1/keys/{id}`. */
  path: string;
  pathParams: Param[];
  queryParams: Param[];
  /** The JSON request body's schema, when the operation takes one. */
  body: Schema | null;
}

const doc = (await (await fetchWorker(new Request(`${BASE}/v1/openapi.json`))).json()) as Schema;

function resolve(s: Schema | undefined): Schema {
  let out = s ?? {};
  for (let i = 0; out.$ref && i < 32; i++) {
    out = doc.components?.schemas?.[String(out.$ref).replace("#/components/schemas/", "")] ?? {};
  }
  return out;
}

const operations: Operation[] = [];
for (const [path, item] of Object.entries<Schema>(doc.paths ?? {})) {
  for (const method of ["get", "post", "put", "patch", "delete"]) {
    const op = item[method];
    if (!op) continue;
    const params = [...(item.parameters ?? []), ...(op.parameters ?? [])] as Schema[];
    const where = (w: string) => params.filter((p) => p.in === w).map((p) => ({ name: String(p.name), schema: resolve(p.schema) }));
    operations.push({
      method: method.toUpperCase(),
      path,
      pathParams: where("path"),
      queryParams: where("query"),
      body: op.requestBody ? resolve(op.requestBody.content?.["application/json"]?.schema) : null,
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Credentials: one org for the whole file, so that the objects the fuzz makes are its own to
// read and act on (another org's answer 404, guarantee 8). A key may make 600 requests a minute;
// fresh keys are minted well before that, so the fuzz reaches validation rather than a wall of
// 429s. The org trusts an issuer whose JWKS cannot be fetched, and the generated JWTs often name
// it, so that path is fuzzed too.

const FUZZ_ISS = "https://issuer.fuzz.test";
const FUZZ_AUD = "lessor";
// A name that does not exist (RFC 6761 `.invalid`; the pool's resolver says so, test/integration/dns-stub.ts):
// registered, and never fetched.
const UNREACHABLE_JWKS = "https://issuer.fuzz.invalid/jwks.json";

async function post(path: string, key: string, body: unknown): Promise<any> {
  const res = await fetchWorker(
    new Request(`${BASE}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
  if (res.status !== 201) throw new Error(`setup: POST ${path} answered ${res.status} ${await res.text()}`);
  return res.json();
}

/** The ids of the fuzz's own keys and issuer, which it must not revoke from under itself. */
const OWN_IDS = new Set<string>();

class Credentials {
  #admin = "";
  #adminId = "";
  #read = "";
  #uses = 0;

  async get(kind: "admin" | "read"): Promise<string> {
    if (!this.#admin) {
      const created = await post("/v1/orgs", BOOTSTRAP, { name: "fuzz" });
      [this.#admin, this.#adminId] = [created.key.secret, created.key.id];
      OWN_IDS.add(created.key.id);
      OWN_IDS.add((await post("/v1/auth/issuers", this.#admin, { jwks_url: UNREACHABLE_JWKS, iss: FUZZ_ISS, aud: FUZZ_AUD })).id);
    }
    if (!this.#read || this.#uses >= 250) {
      // Fresh keys (a fresh request budget). The keys they replace, and any the fuzz made, are
      // revoked, so the org never reaches its limit of live keys however long the run.
      await revokeLiveKeys(this.#admin, [this.#adminId]);
      const admin = await post("/v1/keys", this.#admin, { name: "fuzz admin", scope: "admin" });
      const read = await post("/v1/keys", this.#admin, { name: "fuzz read", scope: "read" });
      await revokeLiveKeys(admin.secret, [admin.id, read.id]);
      [this.#admin, this.#adminId, this.#read, this.#uses] = [admin.secret, admin.id, read.secret, 0];
      OWN_IDS.add(admin.id);
      OWN_IDS.add(read.id);
    }
    this.#uses++;
    return kind === "admin" ? this.#admin : this.#read;
  }
}

/** Revokes every live key of the org of `admin` but `keep`. */
async function revokeLiveKeys(admin: string, keep: string[]): Promise<void> {
  const auth = { authorization: `Bearer ${admin}` };
  const live: string[] = [];
  for (let cursor: string | null = null; ; ) {
    const res: Response = await fetchWorker(new Request(`${BASE}/v1/keys?limit=100${cursor ? `&cursor=${cursor}` : ""}`, { headers: auth }));
    if (res.status !== 200) throw new Error(`setup: GET /v1/keys answered ${res.status} ${await res.text()}`);
    const page = (await res.json()) as { data: Array<{ id: string; revoked_at: string | null }>; next_cursor: string | null };
    live.push(...page.data.filter((k) => k.revoked_at === null && !keep.includes(k.id)).map((k) => k.id));
    if (!page.next_cursor) break;
    cursor = page.next_cursor;
  }
  for (const id of live) {
    const res = await fetchWorker(new Request(`${BASE}/v1/keys/${id}`, { method: "DELETE", headers: auth }));
    if (res.status !== 200 && res.status !== 404) throw new Error(`setup: DELETE /v1/keys/${id} answered ${res.status} ${await res.text()}`);
  }
}
const credentials = new Credentials();

/**
 * Ids from successful answers (`qt_...`, `ls_...`, `key_...`), by prefix, so that path parameters
 * and `quote_id`s sometimes name a real object and the fuzz reaches past the 404.
 */
const SEEN = new Map<string, string[]>();
const ID = /^([a-z]{2,4})_[0-9a-z]{26}$/;

function remember(value: unknown, depth = 0): void {
  if (depth > 3 || typeof value !== "object" || value === null) return;
  for (const [k, v] of Object.entries(value)) {
    const m = k === "id" && typeof v === "string" && !OWN_IDS.has(v) ? ID.exec(v) : null;
    if (m) {
      const ids = SEEN.get(m[1]!) ?? [];
      if (!ids.includes(v as string)) ids.push(v as string);
      SEEN.set(m[1]!, ids.slice(-20));
    } else {
      remember(v, depth + 1);
    }
  }
}

/** One of the three newest ids with this prefix: the ones most likely still alive. */
function seen(prefix: string, i: number): string | undefined {
  const ids = SEEN.get(prefix)?.slice(-3);
  return ids?.length ? ids[i % ids.length] : undefined;
}

// ---------------------------------------------------------------------------------------------
// The request, as generated (readable) and as sent (materialized).

type Auth = "admin" | "read" | "none" | "bootstrap" | { header: string };

interface FuzzRequest {
  method: string;
  /** Path and query, raw: the URL parser escapes what it must, as a client's would. */
  target: string;
  auth: Auth;
  /** undefined: `application/json` when there is a body; null: no Content-Type header. */
  contentType?: string | null | undefined;
  body?: string | undefined;
  /** Send the body as a stream, without Content-Length; "breaks": the stream fails halfway, as
   * when a client goes away mid-upload. */
  stream?: boolean | "breaks" | undefined;
  idempotencyKey?: string | null | undefined;
}

const DEEP = 100_000;
/** Marker -> raw JSON text. A marker is generated as a JSON string, so it sits where a value does. */
const MARKERS: Record<string, () => string> = {
  '"__INF__"': () => "1e309",
  '"__NEGINF__"': () => "-1e309",
  '"__BIGNUM__"': () => "123456789012345678901234567890123456789",
  '"__TINY__"': () => "1e-400",
  '"__HUGE__"': () => JSON.stringify("ä😀\u202e".repeat(40_000)),
  '"__DEEP__"': () => "[".repeat(DEEP) + "]".repeat(DEEP),
  '"__DEEPOBJ__"': () => '{"a":'.repeat(DEEP) + "1" + "}".repeat(DEEP),
  '"__OVERSIZE__"': () => JSON.stringify("x".repeat(MAX_BODY_BYTES + 1)),
};

function materialize(text: string): string {
  let out = text;
  for (const [marker, expand] of Object.entries(MARKERS)) {
    if (out.includes(marker)) out = out.split(marker).join(expand());
  }
  return out;
}

/** A header value cannot carry CR, LF or NUL at all; anything else is sent as generated. */
const headerSafe = (text: string) => text.replace(/[\r\n\0]/g, "");

async function send(req: FuzzRequest, via: (r: Request) => Promise<Response> = fetchWorker): Promise<Response> {
  const headers = new Headers();
  const auth = req.auth;
  if (auth === "admin" || auth === "read") headers.set("authorization", `Bearer ${await credentials.get(auth)}`);
  else if (auth === "bootstrap") headers.set("authorization", `Bearer ${BOOTSTRAP}`);
  else if (auth !== "none") headers.set("authorization", headerSafe(auth.header));
  if (typeof req.idempotencyKey === "string") headers.set("idempotency-key", headerSafe(req.idempotencyKey));
  let body: BodyInit | undefined;
  if (!["GET", "HEAD"].includes(req.method.toUpperCase()) && req.body !== undefined) {
    const text = materialize(req.body);
    if (req.stream) {
      const bytes = new TextEncoder().encode(text);
      const breaks = req.stream === "breaks";
      body = new ReadableStream({
        start(controller) {
          const end = breaks ? Math.floor(bytes.length / 2) : bytes.length;
          for (let i = 0; i < end; i += 64 * 1024) controller.enqueue(bytes.slice(i, Math.min(end, i + 64 * 1024)));
          if (breaks) controller.error(new Error("fuzz: the client went away mid-upload"));
          else controller.close();
        },
      });
    } else {
      body = text;
    }
    if (req.contentType === undefined) headers.set("content-type", "application/json");
  }
  if (typeof req.contentType === "string") headers.set("content-type", headerSafe(req.contentType));
  // Built here, outside the Worker: a request the runtime refuses to build is a bug in the
  // generators, not in lessor, and fails loudly.
  return via(new Request(`${BASE}${req.target}`, { method: req.method, headers, body }));
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function hasExactly(o: Record<string, unknown>, keys: string[]): boolean {
  const have = Object.keys(o).sort();
  return have.length === keys.length && [...keys].sort().every((k, i) => have[i] === k);
}

/**
 * The one 5xx a request may get: a 504 that says its wait for the machine ran out (an exec no
 * agent answered; its route documents it). It is still checked as the envelope below.
 */
const WAITS_RAN_OUT = /^\{"error":\{"code":"exec_timeout"/;

/** Every answer: below 500 (but WAITS_RAN_OUT), and every error exactly the envelope, with the header's request id. */
async function expectWellFormed(req: FuzzRequest, res: Response): Promise<{ status: number; code: string | null; body?: unknown }> {
  // A followed log or event stream never ends while its lease lives: it is let go unread (its
  // status and type are what a request decides).
  const streamed = res.headers.get("content-type")?.includes("text/event-stream") && res.status === 200;
  const text = req.method === "HEAD" || streamed ? "" : await res.text();
  if (streamed) await res.body?.cancel();
  const show = () => `${req.method} ${req.target.slice(0, 300)} -> ${res.status} ${text.slice(0, 500)}`;
  if (res.status >= 500 && !(res.status === 504 && WAITS_RAN_OUT.test(text))) throw new Error(`answered ${res.status}: ${show()}`);
  if (res.status < 400) {
    const body: unknown = text && res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : undefined;
    remember(body);
    return { status: res.status, code: null, body };
  }
  if (req.method === "HEAD") return { status: res.status, code: null };
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`error body is not JSON: ${show()}`);
  }
  const ok =
    isPlainObject(body) &&
    hasExactly(body, ["error", "request_id"]) &&
    isPlainObject(body.error) &&
    hasExactly(body.error, ["code", "message", "details"]) &&
    typeof body.error.code === "string" &&
    body.error.code.length > 0 &&
    typeof body.error.message === "string" &&
    isPlainObject(body.error.details) &&
    typeof body.request_id === "string" &&
    body.request_id.length > 0;
  if (!ok) throw new Error(`not the error envelope: ${show()}`);
  if (res.headers.get("x-request-id") !== body.request_id) {
    throw new Error(`X-Request-Id ${res.headers.get("x-request-id")} is not the body's request_id: ${show()}`);
  }
  return { status: res.status, code: body.error.code };
}

async function check(req: FuzzRequest, via?: (r: Request) => Promise<Response>) {
  return expectWellFormed(req, await send(req, via));
}

/** `predicate` holds for `numRuns` generated values; shrinking stops after SHRINK_BUDGET_MS. */
async function holds<T>(arb: fc.Arbitrary<T>, numRuns: number, predicate: (value: T) => Promise<unknown>) {
  let failedAt: number | null = null;
  await fc.assert(
    fc.asyncProperty(arb, async (value) => {
      // Past the budget every shrink candidate passes, which ends shrinking at once.
      if (failedAt !== null && Date.now() - failedAt > SHRINK_BUDGET_MS) return;
      try {
        await predicate(value);
      } catch (e) {
        failedAt ??= Date.now();
        throw e;
      }
    }),
    { numRuns },
  );
}

// ---------------------------------------------------------------------------------------------
// Generators: credentials and headers.

const keyAuth: fc.Arbitrary<Auth> = fc.constantFrom<Auth>("admin", "read", "none", "bootstrap");
/** Mostly the admin key, so most requests get past authentication to the handler. */
const mostlyAdmin: fc.Arbitrary<Auth> = fc.oneof({ weight: 3, arbitrary: fc.constant<Auth>("admin") }, { weight: 2, arbitrary: keyAuth });

const b64url = (text: string) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(text)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

const jwtLike = fc
  .tuple(
    fc.oneof(
      fc.record({ alg: fc.constantFrom("RS256", "ES256", "EdDSA", "HS256", "none", ""), typ: fc.constant("JWT"), kid: fc.string() }, { requiredKeys: ["alg"] }),
      fc.json(),
    ),
    fc.oneof(
      fc.record(
        {
          iss: fc.oneof(fc.constant(FUZZ_ISS), fc.string()),
          aud: fc.oneof(fc.constant(FUZZ_AUD), fc.string(), fc.array(fc.oneof(fc.constant(FUZZ_AUD), fc.string()))),
          exp: fc.oneof(fc.constant(4_000_000_000), fc.integer(), fc.double(), fc.string()),
          nbf: fc.oneof(fc.integer(), fc.string()),
          scope: fc.oneof(fc.constant("lessor:admin"), fc.string(), fc.array(fc.string())),
          sub: fc.jsonValue(),
        },
        { requiredKeys: [] },
      ),
      fc.json(),
    ),
    fc.string({ unit: fc.constantFrom(..."abcXYZ019-_") }),
  )
  .map(([h, p, sig]) => `${b64url(typeof h === "string" ? h : JSON.stringify(h))}.${b64url(typeof p === "string" ? p : JSON.stringify(p))}.${sig}`);

const oddAuthHeader: fc.Arbitrary<Auth> = fc
  .oneof(
    fc.constantFrom(
      "",
      "Bearer",
      "Bearer ",
      "bearer",
      "Bearer lsr_",
      "Bearer lsr_lsr_",
      `Bearer lsr_${"A".repeat(43)}`,
      `Bearer lsr_${"z".repeat(10_000)}`,
      "Bearer a.b.c",
      "Bearer ..",
      "Bearer eyJhbGciOiJub25lIn0.eyJpc3MiOiJ4In0.",
      "Basic dXNlcjpwYXNz",
      "Token lsr_x",
      "Bearer\tlsr_x",
      "Bearer  lsr_x  ",
      "Bearer lsr_x lsr_y",
      // Non-ASCII: workerd sends these as UTF-8 (and logs that a browser would refuse them).
      "Bearer l\u00e9ssor",
      "Bearer lsr_\u00ff\u00fe",
      "Bearer \u2603\u{1f600}",
      `Bearer ${BOOTSTRAP}`,
      `Bearer ${BOOTSTRAP} `,
      `Bearer ${BOOTSTRAP}x`,
    ),
    jwtLike.map((t) => `Bearer ${t}`),
    fc.string().map((s) => `Bearer ${s}`),
    fc.string({ unit: "binary-ascii", maxLength: 64 }),
  )
  .map((header) => ({ header }));

/** A few fixed keys, so that the same key meets another body (422) and the same body (replay). */
const idempotencyKeyArb: fc.Arbitrary<string | null> = fc.oneof(
  { weight: 4, arbitrary: fc.constant(null) },
  { weight: 3, arbitrary: fc.constantFrom("fuzz-1", "fuzz-2", "fuzz-3") },
  { weight: 1, arbitrary: fc.constantFrom("", " ", "a".repeat(255), "a".repeat(256), "a".repeat(10_000), "\u00e9t\u00e9", "\x7f", "\t", "a b") },
  { weight: 1, arbitrary: fc.string({ unit: "binary-ascii", maxLength: 40 }) },
);

const contentTypeArb: fc.Arbitrary<string | null | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(undefined) },
  {
    weight: 4,
    arbitrary: fc.constantFrom<string | null>(
      null,
      "",
      "application/json; charset=utf-8",
      "APPLICATION/JSON",
      "application/json;charset=latin1",
      "application/json;;;",
      "application/vnd.api+json",
      "application/merge-patch+json",
      "application/jsonx",
      "text/json",
      "text/plain",
      "json",
      "*/*",
      "application/x-www-form-urlencoded",
      "multipart/form-data",
      "multipart/form-data; boundary=x",
      "application/octet-stream",
      "application/json, text/plain",
      "\u00e9/\u00e9",
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: "binary-ascii", maxLength: 40 }) },
);

// ---------------------------------------------------------------------------------------------
// Generators: values shaped by the request schemas.

/** Strings that mean something to lessor somewhere; harmless anywhere else. */
const DOMAIN_STRINGS = [
  "l40s",
  "L40S:2",
  "l40s-sim:1",
  "a100-80gb:8",
  "a100-80gb-runpod:8",
  "h100:0",
  "h100:01",
  "h100:99999",
  "l40s:2:3",
  "cpu",
  "cpu:4",
  "-sim",
  "sim",
  "runpod",
  "read",
  "admin",
  "scratch",
  "deployment",
  "2h",
  "90s",
  "0s",
  "366d",
  "367d",
  "9999999d",
  FUZZ_ISS,
  "us-east",
  "__proto__",
  "constructor",
  "toString",
];

const DURATION_HINT = fc.constantFrom("90s", "15m", "2h", "1d", "366d", "1s");
/** Good values for fields by name, so that valid requests also reach the engine's decisions. */
const FIELD_HINTS: Record<string, fc.Arbitrary<unknown>> = {
  gpu: fc.constantFrom("l40s", "L40S:2", "l40s-sim:1", "a100-80gb:8", "rtx4090", "h100:1", "cpu:4"),
  cpu: fc.constantFrom(2, 4, 8),
  name: fc.constantFrom("fuzz", "x"),
  jwks_url: fc.constant(UNREACHABLE_JWKS),
  iss: fc.constant(FUZZ_ISS),
  aud: fc.constant(FUZZ_AUD),
  image: fc.constantFrom(`ghcr.io/fuzz/app@sha256:${"a".repeat(64)}`, "ubuntu:latest"),
  cmd: fc.constantFrom("sleep 60", "echo hi", "sleep soon"),
  providers: fc.constantFrom(["sim"], ["SIM", "runpod"]),
  quote_id: fc.nat().map((i) => seen("qt", i) ?? "qt_01jd0000000000000000000000"),
  ttl: DURATION_HINT,
  idle_timeout: DURATION_HINT,
  max_lifetime: DURATION_HINT,
  stopped_ttl: DURATION_HINT,
  heartbeat_grace: DURATION_HINT,
  boot_timeout: DURATION_HINT,
  startup_timeout: DURATION_HINT,
  max_runtime: DURATION_HINT,
  max_inactivity: DURATION_HINT,
  by: DURATION_HINT,
  for: DURATION_HINT,
};

const oddString = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "\t\n",
    "\u0000",
    "\ud800",
    "\udfff\ud800",
    "\u202e",
    "\ufeff",
    "\u{1f600}",
    "e\u0301",
    "'; DROP TABLE api_keys; --",
    "%s%n",
    "${x}",
    "a".repeat(513),
    "a".repeat(2049),
    "__HUGE__",
  ),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", minLength: 100, maxLength: 400 }),
);

const oddNumber = fc.constantFrom<unknown>(
  0,
  -0,
  -1,
  0.5,
  1.5,
  -1e308,
  1e308,
  5e-324,
  2 ** 31,
  2 ** 53 + 2,
  Number.MAX_SAFE_INTEGER,
  "__INF__",
  "__NEGINF__",
  "__BIGNUM__",
  "__TINY__",
  "1",
  "1e3",
);

const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, [], {}, [null], { "": null }, "__DEEP__", "__DEEPOBJ__"),
  oddNumber,
  oddString,
  fc.jsonValue({ maxDepth: 3 }),
);

/**
 * Values shaped like `schema`. `mutate`: now and then a node of the wrong kind, an edge just past
 * a limit, a missing required field or an unknown one; otherwise every value fits the schema.
 */
function shaped(schema: Schema | undefined, mutate: boolean, name?: string, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 6) return fc.jsonValue({ maxDepth: 1 });
  const fitting = fits(resolve(schema), mutate, depth);
  const hint = name !== undefined ? FIELD_HINTS[name] : undefined;
  const value = hint ? fc.oneof({ weight: 2, arbitrary: hint }, { weight: 1, arbitrary: fitting }) : fitting;
  return mutate ? fc.oneof({ weight: 6, arbitrary: value }, { weight: 1, arbitrary: wrongValue }) : value;
}

function fits(s: Schema, mutate: boolean, depth: number): fc.Arbitrary<unknown> {
  if (s.allOf) {
    return fc
      .tuple(...(s.allOf as Schema[]).map((p) => shaped(p, mutate, undefined, depth + 1)))
      .map((parts) => Object.assign({}, ...parts.filter(isPlainObject)));
  }
  const alternatives = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((a) => shaped(a, mutate, undefined, depth + 1)));
  if (s.enum) {
    const values = fc.constantFrom(...(s.enum as unknown[]));
    return mutate ? fc.oneof(values, values.map((v) => (typeof v === "string" ? v.toUpperCase() : v))) : values;
  }
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (types.length === 0) return fc.jsonValue({ maxDepth: 2 });
  return fc.oneof(...types.map((t) => ofType(t, s, mutate, depth)));
}

function ofType(type: string, s: Schema, mutate: boolean, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "string": {
      const min = s.minLength ?? 0;
      const max = s.maxLength ?? 64;
      if (s.format === "uri") {
        const good = fc.oneof(fc.constant(UNREACHABLE_JWKS), fc.webUrl({ validSchemes: ["https"] }).filter((u) => u.length <= max));
        const bad = fc.constantFrom("http://issuer.fuzz.test/jwks", "https://", "javascript:alert(1)", "file:///etc/passwd", `https://a.test/${"x".repeat(max)}`);
        return mutate ? fc.oneof(good, bad, oddString) : good;
      }
      const fitsLength = (x: string) => x.length >= min && x.length <= max;
      const valid: fc.Arbitrary<unknown>[] = [
        fc.string({ minLength: min, maxLength: Math.min(max, 40) }),
        // Any code points, lone surrogates included: valid for the schema, odd for storage.
        fc.string({ unit: "binary", minLength: min, maxLength: Math.min(max, 40) }).filter(fitsLength),
        fc.constantFrom("a".repeat(Math.max(min, 1)), "a".repeat(max), "\u00e9".repeat(max), "\u{1f600}".repeat(Math.floor(max / 2)) || "a"),
      ];
      const domain = DOMAIN_STRINGS.filter(fitsLength);
      if (domain.length) valid.push(fc.constantFrom(...domain));
      if (typeof s.example === "string" && fitsLength(s.example)) valid.push(fc.constant(s.example));
      if (typeof s.pattern === "string") valid.push(fc.stringMatching(new RegExp(s.pattern)));
      if (!mutate) return fc.oneof(...valid);
      return fc.oneof(...valid, fc.constantFrom("a".repeat(max + 1), "\u{1f600}".repeat(max), ...DOMAIN_STRINGS), oddString);
    }
    case "integer": {
      const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -1000);
      const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : 1000);
      const valid = fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max));
      return mutate ? fc.oneof(valid, fc.constantFrom(min - 1, max + 1, min + 0.5), oddNumber) : valid;
    }
    case "number": {
      const min = s.minimum ?? s.exclusiveMinimum ?? -1e6;
      const max = s.maximum ?? s.exclusiveMaximum ?? 1e6;
      const valid = fc.oneof(
        fc.double({ min, max, noNaN: true, minExcluded: s.exclusiveMinimum !== undefined, maxExcluded: s.exclusiveMaximum !== undefined }),
        fc.constantFrom(...(s.exclusiveMinimum === undefined ? [min] : [5e-324]), ...(s.exclusiveMaximum === undefined ? [max] : [])),
      );
      return mutate ? fc.oneof(valid, fc.constantFrom(min - 1e-9, max * 2 + 1), oddNumber) : valid;
    }
    case "boolean":
      return mutate ? fc.oneof(fc.boolean(), fc.constantFrom("true", 0, 1)) : fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const maxItems = s.maxItems ?? 8;
      const items = resolve(s.items);
      const longest = "\u00e9".repeat(items.maxLength ?? 64);
      const valid = fc.oneof(
        { weight: 4, arbitrary: fc.array(shaped(items, mutate, undefined, depth + 1), { minLength: s.minItems ?? 0, maxLength: Math.min(maxItems, 6) }) },
        // As many of the longest items as allowed: the biggest valid value.
        { weight: 1, arbitrary: fc.constant(items.type === "string" ? Array.from({ length: maxItems }, (_, i) => `${i}${longest}`.slice(0, longest.length)) : []) },
      );
      return mutate ? fc.oneof(valid, fc.constant(Array.from({ length: maxItems + 1 }, () => "a"))) : valid;
    }
    case "object": {
      const props = Object.entries<Schema>(s.properties ?? {});
      const model = Object.fromEntries(props.map(([k, v]) => [k, shaped(v, mutate, k, depth + 1)]));
      const required = ((s.required ?? []) as string[]).filter((k) => k in model);
      const optional = props.map(([k]) => k).filter((k) => !required.includes(k));
      // Every field at random, or the required ones and at most two more: a full random spec
      // rarely asks for something that exists, a small one often does.
      const object = fc.oneof(
        fc.record(model, { requiredKeys: required }),
        fc.subarray(optional, { maxLength: Math.min(2, optional.length) }).chain((keys) => fc.record(Object.fromEntries([...required, ...keys].map((k) => [k, model[k]!])))),
      );
      if (!mutate) return object;
      return fc
        .tuple(
          fc.oneof({ weight: 4, arbitrary: object }, { weight: 1, arbitrary: fc.record(model, { requiredKeys: [] }) }),
          fc.option(fc.tuple(fc.oneof(fc.string(), fc.constantFrom("__proto__", "constructor", "")), fc.jsonValue({ maxDepth: 2 })), { freq: 6 }),
        )
        .map(([o, extra]) => {
          const out: Record<string, unknown> = { ...o };
          // defineProperty, so that a `__proto__` key is an own key and reaches JSON.
          if (extra) Object.defineProperty(out, extra[0], { value: extra[1], enumerable: true, configurable: true, writable: true });
          return out;
        });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

const malformedJson = fc.constantFrom(
  "",
  " ",
  "{",
  "}",
  "[",
  '{"',
  "nul",
  "tru",
  "NaN",
  "Infinity",
  "undefined",
  "'{}'",
  "{'a':1}",
  '{"a":1,}',
  "[1,]",
  "\ufeff{}",
  "{}{}",
  "{} x",
  '"unterminated',
  "\u0000",
  '{"a":"\\u12"}',
  '{"a":01}',
  '{"a":-}',
  '{"a":.5}',
  '{"a":"\u0001"}',
  "--",
);

/** Valid JSON that is an odd request body everywhere. */
const oddJson = fc.constantFrom(
  "null",
  "0",
  '""',
  "[]",
  '{"a":1e309}',
  '{"a":"\\ud800"}',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  '"__DEEP__"',
  '"__DEEPOBJ__"',
  '{"a":"__HUGE__"}',
);

const render = (v: unknown) => JSON.stringify(v) ?? String(v);

function bodyText(schema: Schema | null): fc.Arbitrary<string> {
  const s = schema ?? { type: "object", properties: {} };
  const mutated = shaped(s, true).map(render);
  return fc.oneof(
    { weight: 4, arbitrary: shaped(s, false).map(render) },
    { weight: 6, arbitrary: mutated },
    { weight: 1, arbitrary: fc.json() },
    { weight: 1, arbitrary: fc.anything({ maxDepth: 3 }).map(render) },
    { weight: 1, arbitrary: fc.oneof(malformedJson, oddJson) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 80 }) },
    // Truncated, or followed by garbage.
    { weight: 1, arbitrary: mutated.chain((t) => fc.nat(Math.max(0, t.length - 1)).map((n) => t.slice(0, n))) },
    { weight: 1, arbitrary: mutated.map((t) => `${t}garbage`) },
  );
}

// ---------------------------------------------------------------------------------------------
// Generators: paths and queries.

/** A valid-looking value for a path parameter: the schema's example, or a real id of its kind. */
function plausible(p: Param): fc.Arbitrary<string> {
  const example = String(p.schema.example ?? "x_01jd0000000000000000000000");
  const prefix = ID.exec(example)?.[1];
  return fc.oneof(fc.constant(example), fc.nat().map((i) => (prefix && seen(prefix, i)) || example)).map(encodeURIComponent);
}

const oddSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "%E0%A4%A",
    "%E0%A4",
    "%00",
    "%",
    "%%",
    "%zz",
    "%ED%A0%80",
    "%C0%AF",
    "%FF",
    "%2F",
    "a%2Fb",
    "%2e%2e",
    "..",
    ".",
    "%20",
    "a b",
    "\u{1f600}",
    "%F0%9F%98%80",
    "\u00e9",
    "null",
    "undefined",
    "0",
    "-1",
    "{id}",
    ":id",
    "*",
    ";",
    "~",
    "'",
    '"',
    "<script>",
    "key_01jd0000000000000000000000",
    "x".repeat(64),
    "x".repeat(65),
    "x".repeat(20_000),
    `ls_${"%E0%A4%A".repeat(20)}`,
    "%u0041",
    "%25",
    "%252e",
  ),
  fc.string().map(encodeURIComponent),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.stringMatching(/^[a-z]{2,4}_[0-9a-z]{26}$/),
);

function pathArb(op: Operation, oddParams = false): fc.Arbitrary<string> {
  if (op.pathParams.length === 0) return fc.constant(op.path);
  const values = op.pathParams.map((p) => (oddParams ? fc.oneof({ weight: 3, arbitrary: oddSegment }, { weight: 1, arbitrary: plausible(p) }) : plausible(p)));
  return fc.tuple(...values).map((vs) => {
    const byName = new Map(op.pathParams.map((p, i) => [p.name, vs[i]!]));
    return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => byName.get(name) ?? "x");
  });
}

const oddQueryValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "",
    "-1",
    "0",
    "1",
    "200",
    "201",
    "1e309",
    "-1e309",
    "NaN",
    "Infinity",
    "1.5",
    "0x10",
    "1e3",
    "%20%205",
    "9007199254740993",
    "garbage",
    "%",
    "%E0%A4%A",
    "%00",
    "%zz",
    "true",
    "false",
    "null",
    "[]",
    "a".repeat(513),
    "a".repeat(20_000),
    btoa('{"k":1,"id":"a"}'),
    btoa('{"k":"x","id":"y"}'),
    btoa('{"k":1e308,"id":""}'),
    btoa('{"k":{"a":1},"id":"a"}'),
    btoa('{"k":1,"id":1}'),
    btoa("null"),
    btoa("[]"),
    btoa("1"),
    "eyJrIjoxLCJpZCI6ImEi",
    "====",
    "-_-_",
  ),
  fc.constantFrom(...DOMAIN_STRINGS, "provisioning", "running", "stopped", "ended", "job").map(encodeURIComponent),
  fc.string().map(encodeURIComponent),
  fc.string({ unit: "binary", maxLength: 30 }).map((s) => s.replace(/[#&]/g, "")),
  fc.integer().map(String),
  fc.double().map(String),
);

function queryArb(op: Operation): fc.Arbitrary<string> {
  const names = [...new Set([...op.queryParams.map((p) => p.name), "limit", "cursor", "__proto__", "constructor"])];
  const valid = op.queryParams.map((p) =>
    shaped(p.schema, false)
      .filter((v) => v !== null && typeof v !== "object")
      .map((v) => `${p.name}=${encodeURIComponent(String(v))}`),
  );
  const pair = fc.tuple(
    fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: fc.string().map(encodeURIComponent) }),
    oddQueryValue,
    fc.constantFrom("=", "=", "=", "", "=="),
  );
  return fc.oneof(
    { weight: 6, arbitrary: fc.array(pair, { minLength: 1, maxLength: 5 }).map((ps) => `?${ps.map(([k, v, eq]) => `${k}${eq}${v}`).join("&")}`) },
    // Valid values for the declared parameters, to reach the handler's own checks.
    ...(valid.length ? [{ weight: 2, arbitrary: fc.array(fc.oneof(...valid), { minLength: 1, maxLength: 4 }).map((ps) => `?${ps.join("&")}`) }] : []),
    // The same parameter twice, valid both times.
    { weight: 1, arbitrary: fc.constantFrom(...names).map((n) => `?${n}=1&${n}=2`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom("?", "??", "?&&&", "?=", "?=x", "?%", "?%E0%A4%A=1", "?limit[]=1", "?limit[a]=1", "?limit", "?limit=1#frag", `?${"a=1&".repeat(2000)}`),
    },
  );
}

/** The runtime refuses to build a Request with CONNECT, or a method that is no known token. */
const ODD_METHODS = ["OPTIONS", "TRACE", "PURGE", "PROPFIND", "get", "post"];
const anyMethod = fc.constantFrom("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", ...ODD_METHODS);

// ---------------------------------------------------------------------------------------------
// Every operation.

const takesBody = (op: Operation) => op.method !== "GET" && op.method !== "HEAD";
const someBody = (op: Operation) => shaped(op.body ?? {}, true).map(render);

/** The create route that made objects of each id prefix (`ls` -> POST /v1/leases), from `seed`. */
const CREATORS = new Map<string, Operation>();

/**
 * Makes up to `wanted` objects on each create route (every one, or those making `prefixes`) from
 * valid bodies, remembering their ids.
 */
async function seed(wanted: number, prefixes?: string[]) {
  const creators = prefixes
    ? [...new Set(prefixes.map((p) => CREATORS.get(p)).filter((o) => o !== undefined))]
    : operations.filter((o) => o.method === "POST" && o.pathParams.length === 0 && o.body);
  for (const op of creators) {
    let made = 0;
    for (const body of fc.sample(shaped(op.body!, false).map(render), 40)) {
      const answer = await check({ method: op.method, target: op.path, auth: "admin", body });
      // A route the admin key may not call (the bootstrap token's) makes nothing this way.
      if (answer.status === 401 || answer.status === 403) break;
      if (answer.status >= 300) continue;
      const prefix = isPlainObject(answer.body) && typeof answer.body.id === "string" ? ID.exec(answer.body.id)?.[1] : undefined;
      if (prefix) CREATORS.set(prefix, op);
      if (++made === wanted) break;
    }
  }
}

// Offers exist and every create route has made a few objects, so that quotes and leases can
// succeed and path parameters can name real objects: the fuzz then reaches what follows the 404
// (a lease's actions and events) as well as what precedes it.
beforeAll(async () => {
  await refreshCatalog();
  await seed(3);
}, TIMEOUT_MS);

it("reads the routes from GET /v1/openapi.json", () => {
  expect(operations.length).toBeGreaterThan(5);
  expect(operations.map((o) => `${o.method} ${o.path}`)).toContain("POST /v1/quotes");
});

describe.each(operations.map((op) => [`${op.method} ${op.path}`, op] as const))("guarantee 12: %s never answers 500", (_, op) => {
  const assertAll = (arb: fc.Arbitrary<FuzzRequest>, numRuns: number) => holds(arb, numRuns, (req) => check(req));

  // A PUT is how an installation's state is changed (e.g. the sim's faults with the bootstrap
  // token); what the GET of the same path answered beforehand is put back, so no later test meets
  // what the fuzz left behind.
  if (op.method === "PUT" && operations.some((o) => o.method === "GET" && o.path === op.path) && op.pathParams.length === 0) {
    let before: { auth: Auth; body: string } | null = null;
    beforeAll(async () => {
      for (const auth of ["bootstrap", "admin"] as const) {
        const res = await send({ method: "GET", target: op.path, auth });
        if (res.status === 200) {
          before = { auth, body: await res.text() };
          return;
        }
        await res.body?.cancel();
      }
    });
    afterAll(async () => {
      if (!before) return;
      const res = await send({ method: "PUT", target: op.path, auth: before.auth, body: before.body });
      expect(res.status, await res.text()).toBe(200);
    });
  }

  // Fresh objects for this operation's path parameters: an earlier operation may have ended or
  // deleted the ones made before.
  if (op.pathParams.length > 0) {
    const prefixes = op.pathParams.map((p) => ID.exec(String(p.schema.example))?.[1]).filter((p) => p !== undefined);
    beforeAll(() => seed(1, prefixes), TIMEOUT_MS);
  }

  if (takesBody(op)) {
    it(
      "odd JSON bodies, content types and Idempotency-Keys",
      () =>
        assertAll(
          fc.record({
            method: fc.constant(op.method),
            target: pathArb(op),
            auth: mostlyAdmin,
            contentType: contentTypeArb,
            body: bodyText(op.body),
            stream: fc.oneof(
              { weight: 8, arbitrary: fc.constant(false) },
              { weight: 2, arbitrary: fc.constant(true) },
              { weight: 1, arbitrary: fc.constant<"breaks">("breaks") },
            ),
            idempotencyKey: idempotencyKeyArb,
          }),
          RUNS.bodies,
        ),
      TIMEOUT_MS,
    );

    // A route that streams its own raw body into R2 (src/body-limit.ts `streamsOwnBody`: a bundle,
    // an artifact, a part) has caps of its own, checked after its credential; its oversized and
    // broken-off bodies are test/integration/artifacts.test.ts's.
    const ownBody = streamsOwnBody(op.method, op.path);
    if (ownBody) {
      // Its credential comes first: without one, an oversized or broken-off body is a 401, never a 500.
      it("a raw body over 1 MiB or broken off, without a credential, answers 401", { timeout: TIMEOUT_MS }, async () => {
        const target = op.path.replace(/\{[^}]+\}/g, "x");
        for (const stream of [false, true]) {
          await expectError(await send({ method: op.method, target, auth: "none", body: '"__OVERSIZE__"', stream }), 401, "unauthenticated");
        }
        await expectError(await send({ method: op.method, target, auth: "none", body: '{"name":"x"}', stream: "breaks" }), 401, "unauthenticated");
      });
    }
    if (!ownBody) it("bodies over 1 MiB answer 413 payload_too_large, whoever sends them", { timeout: TIMEOUT_MS }, async () => {
      const target = op.path.replace(/\{[^}]+\}/g, "x");
      for (const auth of ["admin", "read", "none"] as const) {
        for (const stream of [false, true]) {
          await expectError(await send({ method: op.method, target, auth, body: '"__OVERSIZE__"', stream }), 413, "payload_too_large");
        }
      }
      // Exactly at the limit is not too large: it fails later, for what it says.
      const req: FuzzRequest = { method: op.method, target, auth: "admin", body: `"${"x".repeat(MAX_BODY_BYTES - 2)}"` };
      const { status } = await check(req);
      expect(status).not.toBe(413);
    });

    // Regression: a body without Content-Length is read to its end before any handler runs, and a
    // stream that failed there (a client gone mid-upload) was an unhandled error, so a 500.
    if (!ownBody) it("a body whose upload breaks off answers 400, whoever sends it", async () => {
      const target = op.path.replace(/\{[^}]+\}/g, "x");
      for (const auth of ["admin", "read", "none"] as const) {
        await expectError(await send({ method: op.method, target, auth, body: '{"name":"x"}', stream: "breaks" }), 400, "invalid_request");
      }
    });
  }

  it(
    "odd Authorization and Idempotency-Key headers",
    () =>
      assertAll(
        fc.record({
          method: fc.constant(op.method),
          target: pathArb(op),
          auth: oddAuthHeader,
          idempotencyKey: idempotencyKeyArb,
          ...(takesBody(op) ? { body: someBody(op) } : {}),
        }),
        RUNS.headers,
      ),
    TIMEOUT_MS,
  );

  if (op.pathParams.length > 0) {
    it(
      "odd path parameters",
      () =>
        assertAll(
          fc.record({
            method: fc.constant(op.method),
            target: pathArb(op, true),
            auth: mostlyAdmin,
            ...(takesBody(op) ? { body: someBody(op) } : {}),
          }),
          RUNS.params,
        ),
      TIMEOUT_MS,
    );
  }

  it(
    "odd query strings",
    () =>
      assertAll(
        fc.record({
          method: fc.constant(op.method),
          target: fc.tuple(pathArb(op), queryArb(op)).map(([p, q]) => p + q),
          auth: mostlyAdmin,
          ...(takesBody(op) ? { body: shaped(op.body ?? {}, false).map(render) } : {}),
        }),
        RUNS.query,
      ),
    TIMEOUT_MS,
  );

  it("other methods on the same path", { timeout: TIMEOUT_MS }, async () => {
    const declared = new Set(operations.filter((o) => o.path === op.path).map((o) => o.method));
    const target = op.path.replace(/\{[^}]+\}/g, "x");
    for (const method of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", ...ODD_METHODS].filter((m) => !declared.has(m.toUpperCase()))) {
      for (const auth of ["admin", "none"] as const) {
        await check({ method, target, auth, body: "{}" });
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Paths no route declares, and odd requests through the runtime's own front door.

const oddPath = fc.oneof(
  fc.constantFrom(
    "/",
    "/v1",
    "/v1/",
    "//v1/healthz",
    "/v1//keys",
    "/V1/HEALTHZ",
    "/v1/healthz/",
    "/v1/%",
    "/v1/%E0%A4%A",
    "/%E0%A4%A",
    "/v1/keys/%E0%A4%A/x",
    "/v1/..",
    "/v1/../v1/keys",
    "/v1/./keys",
    "/v1/keys/../org",
    "/v1/openapi.json/..%2f",
    "/v1/%2e%2e/v1/org",
    "/v2/keys",
    "/favicon.ico",
    "/.well-known/openid-configuration",
    `/v1/${"a/".repeat(1000)}`,
    `/v1/${"x".repeat(20_000)}`,
    "/v1/gateway/ls_x/v1/chat/completions",
    "/v1/sim/machines/sim-m-x/ports/8000/v1/models",
    "/v1/sim/machines/%00/ports/99999/x",
    "/v1/webhooks/sim",
    "/v1/agent/heartbeat",
    "/v1/deployments/x",
    "/v1/*",
    "/v1/:id",
    "/v1/keys/*",
    "/v1/keys/%00/%00",
  ),
  fc.array(oddSegment, { maxLength: 6 }).map((ss) => `/v1/${ss.join("/")}`),
  fc.array(oddSegment, { maxLength: 4 }).map((ss) => `/${ss.join("/")}`),
  fc.webPath(),
);
const anyQuery = queryArb({ method: "GET", path: "/", pathParams: [], queryParams: [], body: null });

describe("guarantee 12: paths and requests no route declares never answer 500", () => {
  // No fuzzed request comes near a key's budget, so the 429 is checked here, with a budget of
  // one request a minute and a key used for nothing else (its bucket would stay nearly empty).
  it("the rate limiter's 429 is the envelope too, with Retry-After", async () => {
    const admin = await credentials.get("admin");
    const key = (await post("/v1/keys", admin, { name: "fuzz 429", scope: "read" })).secret as string;
    const tight = { ...env, LESSOR_RATE_LIMIT_PER_MINUTE: "1" };
    const get = () => worker.fetch(new Request(`${BASE}/v1/org`, { headers: { authorization: `Bearer ${key}` } }), tight, createExecutionContext());
    expect((await get()).status).toBe(200);
    const limited = await get();
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    await expectWellFormed({ method: "GET", target: "/v1/org", auth: "read" }, limited.clone());
    await expectError(limited, 429, "rate_limited");
  });

  it(
    "random paths under /v1/ and outside it, any method, any key",
    () =>
      holds(
        fc.record({
          method: anyMethod,
          target: fc.tuple(oddPath, fc.option(anyQuery, { nil: "" })).map(([p, q]) => p + q),
          auth: keyAuth,
          body: fc.option(bodyText(null), { nil: undefined }),
        }),
        RUNS.paths,
        (req) => check(req),
      ),
    TIMEOUT_MS,
  );

  it(
    "odd requests through the runtime (SELF.fetch), for every route",
    () =>
      holds(
        fc.constantFrom(...operations).chain((op) =>
          fc.record({
            method: fc.oneof({ weight: 3, arbitrary: fc.constant(op.method) }, { weight: 1, arbitrary: anyMethod }),
            target: fc.tuple(pathArb(op, true), fc.option(queryArb(op), { nil: "" })).map(([p, q]) => p + q),
            auth: fc.oneof(keyAuth, oddAuthHeader),
            contentType: contentTypeArb,
            body: fc.option(bodyText(op.body), { nil: undefined }),
            idempotencyKey: idempotencyKeyArb,
          }),
        ),
        RUNS.wire,
        (req) => check(req, fetchSelf),
      ),
    TIMEOUT_MS,
  );
});

// ---------------------------------------------------------------------------------------------
// Valid quotes at every edge of the spec schema: the request passes validation, so whatever
// happens next (a quote, no capacity, an unknown GPU) happens in the engine, and must not be a 500.

describe("guarantee 12: POST /v1/quotes at the edges of the spec schema", () => {
  const many = (prefix: string) => Array.from({ length: 64 }, (_, i) => `${prefix}${i}`.padEnd(128, "x"));
  const SPECS: Record<string, unknown>[] = [
    { gpu: "l40s" },
    { gpu: "L40S:2" },
    { gpu: "l40s-sim:1" },
    { gpu: "a100-80gb:8" },
    { gpu: "a100-80gb-runpod:8" },
    { gpu: " l40s " },
    { gpu: "h100:9999" },
    { gpu: "x".repeat(64) },
    { cpu: 4 },
    { cpu: 1 },
    { cpu: 1024 },
    { min_vram_gb: 0 },
    { min_vram_gb: 1_000_000 },
    { min_vram_gb: 5e-324 },
    { min_gpus: 1 },
    { min_gpus: 1024 },
    { min_cpu: 1 },
    { min_cpu: 1024 },
    { min_memory_gb: 0 },
    { min_memory_gb: 1_000_000 },
    { min_disk_gb: 0 },
    { min_disk_gb: 1_000_000 },
    { min_vram_gb: 0, min_gpus: 1, min_cpu: 1, min_memory_gb: 0, min_disk_gb: 0 },
    { gpu: "l40s", max_hourly_usd: 100_000 },
    { gpu: "l40s", max_hourly_usd: 5e-324 },
    { gpu: "l40s", spot: true },
    { gpu: "l40s", spot: false },
    { gpu: "l40s", max_startup_s: 1 },
    { gpu: "l40s", max_startup_s: 86_400 },
    { gpu: "l40s", regions: ["r".repeat(128)] },
    { gpu: "l40s", regions: many("region-"), providers: many("p-"), exclude_providers: many("x-"), exclude_hosts: many("h-") },
    { gpu: "l40s", providers: ["SIM"], exclude_providers: ["sim"] },
    { cpu: 4, exclude_hosts: ["\u{1f600}"], regions: ["\u00e9"] },
    {
      gpu: "a100-80gb:8",
      min_vram_gb: 0,
      min_gpus: 1,
      min_cpu: 1,
      min_memory_gb: 0,
      min_disk_gb: 0,
      max_hourly_usd: 100_000,
      spot: false,
      regions: [],
      providers: [],
      exclude_providers: [],
      exclude_hosts: [],
    },
  ];
  const AROUND: Record<string, unknown>[] = [
    {},
    { kind: "scratch" },
    { kind: "job" },
    { kind: "deployment", policy: {} },
    { kind: "scratch", policy: { ttl: null, max_lifetime: null } },
    { kind: "job", policy: { ttl: "1s", max_lifetime: "366d" } },
    { policy: { ttl: "9999999d" } },
    { policy: { ttl: "1d", max_lifetime: "1s" } },
    { policy: { max_lifetime: null } },
  ];
  const quote = (body: unknown, auth: Auth = "admin") => send({ method: "POST", target: "/v1/quotes", auth, body: JSON.stringify(body) });

  it("every edge spec, under every kind and policy, answers 201, 400 or 409", { timeout: TIMEOUT_MS }, async () => {
    await refreshCatalog();
    for (const spec of SPECS) {
      for (const around of AROUND) {
        const req: FuzzRequest = { method: "POST", target: "/v1/quotes", auth: "admin", body: JSON.stringify({ spec, ...around }) };
        const { status, code } = await check(req);
        expect([201, 400, 409], `${req.body} answered ${status} ${code}`).toContain(status);
      }
    }
    // The catalog is filled, so the plain forms quote.
    for (const spec of [{ gpu: "l40s" }, { gpu: "L40S:2" }, { gpu: "l40s-sim:1" }, { cpu: 4 }]) {
      const res = await quote({ spec });
      expect(res.status, `${JSON.stringify(spec)}: ${await res.clone().text()}`).toBe(201);
      await res.body?.cancel();
    }
  });

  it("random valid quote requests answer 201, 400 or 409", { timeout: TIMEOUT_MS }, async () => {
    await refreshCatalog();
    const token = fc
      .tuple(
        fc.constantFrom("l40s", "L40S", "a100-80gb", "h100", "rtx4090", "t4", "mi300x", "b200", "cpu", "nope"),
        fc.constantFrom("", "-sim", "-runpod", "-vast", "-lambda", "-other"),
        fc.option(fc.oneof(fc.integer({ min: 0, max: 10_000 }).map(String), fc.constantFrom("01", "", "x", "1:1"))),
      )
      .map(([g, p, n]) => `${g}${p}${n === null ? "" : `:${n}`}`);
    const names = fc.array(fc.oneof(fc.constantFrom("sim", "SIM", "runpod", "us-east", "eu-west"), fc.string({ minLength: 1, maxLength: 128 })), {
      maxLength: 4,
    });
    const spec = fc.record(
      {
        gpu: token,
        cpu: fc.integer({ min: 1, max: 1024 }),
        min_vram_gb: fc.double({ min: 0, max: 1_000_000, noNaN: true }),
        min_gpus: fc.integer({ min: 1, max: 1024 }),
        min_cpu: fc.integer({ min: 1, max: 1024 }),
        min_memory_gb: fc.double({ min: 0, max: 1_000_000, noNaN: true }),
        min_disk_gb: fc.double({ min: 0, max: 1_000_000, noNaN: true }),
        regions: names,
        providers: names,
        exclude_providers: names,
        exclude_hosts: names,
        max_hourly_usd: fc.double({ min: 0, max: 100_000, minExcluded: true, noNaN: true }),
        spot: fc.boolean(),
        max_startup_s: fc.integer({ min: 1, max: 86_400 }),
      },
      { requiredKeys: [] },
    );
    const duration = fc.oneof(
      fc.constant(null),
      fc.tuple(fc.integer({ min: 0, max: 99_999_999 }), fc.constantFrom("s", "m", "h", "d", "")).map(([n, u]) => `${n}${u}`.slice(0, 16)),
    );
    const body = fc.record(
      {
        spec,
        kind: fc.constantFrom("deployment", "scratch", "job"),
        policy: fc.record({ ttl: duration, max_lifetime: duration }, { requiredKeys: [] }),
      },
      { requiredKeys: ["spec"] },
    );
    await holds(body, RUNS.quotes, async (b) => {
      const req: FuzzRequest = { method: "POST", target: "/v1/quotes", auth: "admin", body: JSON.stringify(b) };
      const { status, code } = await check(req);
      expect([201, 400, 409], `answered ${status} ${code}`).toContain(status);
    });
  });
});
