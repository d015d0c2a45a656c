/**
 * A stub provider that holds every request to the provider's own published OpenAPI document
 * (../shared/provider-contracts, never copied here) and answers only with what that document's
 * response schemas accept (STYLE.md rule 10: a fake of a thing we do not own must not be only
 * our own beliefs).
 *
 * For each request: the URL must lie under one of the document's servers and match one
 * operation's method and path template exactly (a trailing slash is a different path); the
 * path, query and header parameters are coerced as the document's `style`/`explode` say and
 * validated; no query parameter the document does not name is sent; the Authorization header
 * satisfies the operation's security (scheme and the configured key); and the JSON body is
 * validated against the request body schema. For each answer of the test's fake cloud: the
 * status must be one the operation lists (or `NXX`, or `default`) and the body must validate
 * against that response's schema (no body where none is described). Every mismatch is a
 * violation; a test fails when any was recorded.
 *
 * Statuses no document can list (a proxy's 5xx, or a 429 where the document lists none) are
 * allowed only when the answer names itself `undocumented`; they are recorded as notes. So is a
 * 401 or 403 on an operation that lists neither: an authentication gateway answers before any
 * operation is reached (Vast's destroy documents no auth failure at all).
 *
 * A stub built with `refuse` stands in for a provider that checks its own key: a request whose
 * credentials do not satisfy the document's security is then not a violation but is answered with
 * `refuse(op)` (still held to the operation's responses), as the provider would refuse it.
 *
 * Schemas are validated by ajv's draft 2020-12 validator (the dialect of OpenAPI 3.1), against
 * the whole document added as one schema, so `$ref`s resolve where they point. OpenAPI 3.0's
 * `nullable: true` is rewritten to a `"null"` type first, for documents that use it.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import { parse as parseYaml } from "yaml";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
export const CONTRACTS_DIR = path.resolve(REPO_ROOT, "../shared/provider-contracts");

type Json = any;
type Tokens = readonly string[];

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

export interface Operation {
  method: string;
  template: string;
  operationId: string;
  regex: RegExp;
  paramNames: string[];
  literalSegments: number;
  tokens: Tokens;
}

/**
 * Loads a document from ../shared/provider-contracts; null when it is absent, so that its tests
 * skip (the run prints why once: test/support/contracts-notice.ts).
 */
export function loadContract(file: string): Contract | null {
  const full = path.join(CONTRACTS_DIR, file);
  if (!existsSync(full)) return null;
  const text = readFileSync(full, "utf8");
  const doc = file.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  return new Contract(file, doc, text);
}

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

export class Contract {
  readonly doc: Json;
  readonly servers: string[];
  readonly operations: Operation[] = [];
  readonly #ajv: Ajv2020;
  readonly #key: string;
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(
    readonly file: string,
    doc: Json,
    readonly text: string,
  ) {
    this.doc = rewriteNullable(doc);
    this.servers = (this.doc.servers ?? []).map((s: { url: string }) => s.url.replace(/\/+$/, ""));
    this.#key = `urn:provider-contract:${file}`;
    this.#ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, logger: false });
    addFormats(this.#ajv);
    this.#ajv.addSchema(this.doc, this.#key);
    for (const [template, item] of Object.entries<Json>(this.doc.paths ?? {})) {
      const segments = template.split("/");
      const paramNames: string[] = [];
      const pattern = segments
        .map((seg) => {
          const m = /^\{([^}]+)\}$/.exec(seg);
          if (m) {
            paramNames.push(m[1]!);
            return "([^/]+)";
          }
          return seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        })
        .join("/");
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        this.operations.push({
          method: method.toUpperCase(),
          template,
          operationId: op.operationId ?? `${method.toUpperCase()} ${template}`,
          regex: new RegExp(`^${pattern}$`),
          paramNames,
          literalSegments: segments.filter((s) => !s.startsWith("{")).length,
          tokens: ["paths", template, method],
        });
      }
    }
    // A literal segment beats a template: `/instances/command/{id}` before `/instances/{id}/...`.
    this.operations.sort((a, b) => b.literalSegments - a.literalSegments);
  }

  operation(operationId: string): Operation {
    const op = this.operations.find((o) => o.operationId === operationId);
    if (!op) throw new Error(`${this.file}: no operation ${operationId}`);
    return op;
  }

  /** The value at `tokens`, following local `$ref`s; returns where it really lives. */
  resolve(tokens: Tokens): { value: Json; tokens: Tokens } {
    let at: Tokens = tokens;
    let value: Json = this.#at(at);
    for (let hops = 0; value && typeof value === "object" && typeof value.$ref === "string"; hops++) {
      if (hops > 32) throw new Error(`${this.file}: $ref loop at ${at.join("/")}`);
      at = refTokens(value.$ref);
      value = this.#at(at);
    }
    return { value, tokens: at };
  }

  #at(tokens: Tokens): Json {
    let v: Json = this.doc;
    for (const t of tokens) v = v?.[t];
    return v;
  }

  /** A validator for the schema at `tokens` (compiled once; `$ref`s resolve inside the document). */
  validator(tokens: Tokens): ValidateFunction {
    const ref = `${this.#key}#/${tokens.map((t) => encodeURIComponent(t.replace(/~/g, "~0").replace(/\//g, "~1"))).join("/")}`;
    let v = this.#validators.get(ref);
    if (!v) {
      v = this.#ajv.getSchema(ref);
      if (!v) throw new Error(`${this.file}: no schema at ${tokens.join(" / ")}`);
      this.#validators.set(ref, v);
    }
    return v;
  }

  validate(tokens: Tokens, value: unknown): string[] {
    const v = this.validator(tokens);
    if (v(value)) return [];
    return (v.errors ?? []).map((e) => `${e.instancePath || "(root)"} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`);
  }
}

export interface StubCall {
  operationId: string;
  method: string;
  url: string;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Headers;
  body: unknown;
}

export interface StubAnswer {
  status: number;
  body?: unknown;
  /** A non-JSON body, for undocumented answers only (a proxy's HTML error page). */
  text?: string;
  headers?: Record<string, string>;
  /** Why this status may be answered though the operation does not list it (429, 5xx, 401, 403 only). */
  undocumented?: string;
}

export type StubHandler = (call: StubCall) => StubAnswer | Promise<StubAnswer>;

/** Faults the next matching call meets, consumed in order. */
export type StubFault =
  /** Answer this instead of the fake cloud (the request is still checked). */
  | { operationId: string; kind: "answer"; answer: StubAnswer }
  /** The fake cloud acts (a create creates), then the connection drops before the answer. */
  | { operationId: string; kind: "drop_after" }
  /** The fake cloud acts, then this answer (a gateway's 504) reaches the adapter instead. */
  | { operationId: string; kind: "answer_after"; answer: StubAnswer }
  /** The connection drops before the request arrives. */
  | { operationId: string; kind: "drop_before" };

export interface ContractStubOptions {
  apiKey: string;
  handler: StubHandler;
  /**
   * The provider's answer to a request whose credentials do not satisfy the document's security
   * (a wrong or missing key). Unset: such a request is a violation (the adapter must send the key).
   */
  refuse?: (op: Operation) => StubAnswer;
  /** Keep every checked call in `calls` (default true); a long-lived server turns this off. */
  recordCalls?: boolean;
}

export class ContractStub {
  readonly violations: string[] = [];
  readonly notes: string[] = [];
  readonly calls: StubCall[] = [];
  readonly faults: StubFault[] = [];

  constructor(
    readonly contract: Contract,
    readonly options: ContractStubOptions,
  ) {}

  fault(...faults: StubFault[]): void {
    this.faults.push(...faults);
  }

  callsOf(operationId: string): StubCall[] {
    return this.calls.filter((c) => c.operationId === operationId);
  }

  /** What the adapter is given as its `fetch`. */
  readonly fetch: typeof fetch = async (input, init) => {
    const request = new Request(input as RequestInfo, init as RequestInit);
    const bodyText = request.body === null ? "" : await request.text();
    const checked = this.checkRequest(request.method, request.url, request.headers, bodyText);
    if ("violations" in checked) {
      this.violations.push(...checked.violations);
      return new Response(`contract violation: ${checked.violations.join("; ")}`, { status: 400, headers: { "content-type": "text/plain" } });
    }
    const { call, op } = checked;
    if (this.options.recordCalls !== false) this.calls.push(call);
    if (checked.unauthorized) return this.#respond(op, this.options.refuse!(op));
    const i = this.faults.findIndex((f) => f.operationId === op.operationId);
    const fault = i >= 0 ? this.faults.splice(i, 1)[0]! : null;
    if (fault?.kind === "drop_before") throw new TypeError("fetch failed: connection reset before the request was sent");
    if (fault?.kind === "answer") return this.#respond(op, fault.answer);
    const answer = await this.options.handler(call);
    const response = this.#respond(op, answer);
    if (fault?.kind === "drop_after") throw new TypeError("fetch failed: connection dropped before the answer arrived");
    if (fault?.kind === "answer_after") return this.#respond(op, fault.answer);
    return response;
  };

  /** Checks one request against the document; the matched operation and parsed call, or the violations. */
  checkRequest(
    method: string,
    url: string,
    headers: Headers,
    bodyText: string,
  ): { call: StubCall; op: Operation; unauthorized: boolean } | { violations: string[] } {
    const c = this.contract;
    const where = `${method} ${url}`;
    const server = c.servers.find((s) => url === s || url.startsWith(`${s}/`) || url.startsWith(`${s}?`));
    if (server === undefined) return { violations: [`${where}: not under any server of ${c.file} (${c.servers.join(", ")})`] };
    const rest = url.slice(server.length);
    const q = rest.indexOf("?");
    const pathname = q >= 0 ? rest.slice(0, q) : rest;
    const search = new URLSearchParams(q >= 0 ? rest.slice(q + 1) : "");
    const onPath = c.operations.filter((o) => o.regex.test(pathname));
    if (onPath.length === 0) return { violations: [`${where}: ${c.file} has no path ${pathname}`] };
    const op = onPath.find((o) => o.method === method);
    if (!op) return { violations: [`${where}: ${c.file} has no ${method} on ${onPath[0]!.template} (only ${onPath.map((o) => o.method).join(", ")})`] };

    const violations: string[] = [];
    const v = (msg: string) => violations.push(`${op.operationId} (${where}): ${msg}`);
    const opJson = c.resolve(op.tokens).value;

    // Security: some alternative must be satisfied in full (OpenAPI 3.1 §4.8.30). With `refuse`,
    // a failure is the provider's to answer, not the adapter's mistake.
    const security: Json[] = opJson.security ?? c.doc.security ?? [];
    let unauthorized = false;
    if (security.length > 0) {
      const ok = security.some((alt) => Object.keys(alt).every((name) => this.#satisfies(name, headers, search)));
      if (!ok && this.options.refuse) unauthorized = true;
      else if (!ok) v(`credentials do not satisfy the document's security (${security.map((s) => Object.keys(s).join("+") || "anonymous").join(" or ")})`);
    }

    // Parameters: the path item's, overridden by the operation's of the same name and place.
    const declared = new Map<string, { param: Json; tokens: Tokens }>();
    const pathItemTokens = op.tokens.slice(0, 2);
    for (const base of [pathItemTokens, op.tokens]) {
      const list = c.resolve([...base, "parameters"]).value ?? [];
      list.forEach((_: Json, idx: number) => {
        const r = c.resolve([...base, "parameters", String(idx)]);
        declared.set(`${r.value.in}:${r.value.name}`, { param: r.value, tokens: r.tokens });
      });
    }
    const params: Record<string, unknown> = {};
    const query: Record<string, unknown> = {};
    const match = op.regex.exec(pathname)!;
    op.paramNames.forEach((name, idx) => {
      const raw = decodeURIComponent(match[idx + 1]!);
      const d = declared.get(`path:${name}`);
      if (!d) return v(`path parameter ${name} is not declared`);
      params[name] = this.#checkParam(d, [raw], v);
    });
    for (const name of new Set(search.keys())) {
      const d = declared.get(`query:${name}`);
      if (!d) {
        v(`query parameter "${name}" is not in the document`);
        continue;
      }
      query[name] = this.#checkParam(d, search.getAll(name), v);
    }
    for (const { param } of declared.values()) {
      if (!param.required) continue;
      if (param.in === "query" && !search.has(param.name)) v(`required query parameter "${param.name}" is missing`);
      if (param.in === "header" && !headers.has(param.name)) v(`required header "${param.name}" is missing`);
    }

    // The body.
    let body: unknown = undefined;
    const rb = opJson.requestBody ? c.resolve([...op.tokens, "requestBody"]) : null;
    if (!rb) {
      if (bodyText) v("sends a body, but the operation takes none");
    } else if (!bodyText) {
      if (rb.value.required) v("the request body is required");
    } else {
      const type = (headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
      const media = Object.keys(rb.value.content ?? {}).find((m) => m.toLowerCase() === type);
      if (!media) v(`content-type "${type}" is not one of ${Object.keys(rb.value.content ?? {}).join(", ")}`);
      else {
        try {
          body = JSON.parse(bodyText);
        } catch {
          v("the body is not JSON");
        }
        if (body !== undefined && rb.value.content[media].schema) {
          for (const e of c.validate([...rb.tokens, "content", media, "schema"], body)) v(`body ${e}`);
        }
      }
    }
    if (violations.length > 0) return { violations };
    return { op, unauthorized, call: { operationId: op.operationId, method, url, params, query, headers, body } };
  }

  /** Whether the named security scheme is satisfied by this request, with the configured key. */
  #satisfies(name: string, headers: Headers, search: URLSearchParams): boolean {
    const scheme = this.contract.resolve(["components", "securitySchemes", name]).value;
    if (!scheme) return false;
    const key = this.options.apiKey;
    if (scheme.type === "http") {
      const auth = headers.get("authorization") ?? "";
      const [word, ...rest] = auth.split(" ");
      const value = rest.join(" ");
      if (word?.toLowerCase() !== String(scheme.scheme).toLowerCase()) return false;
      if (scheme.scheme.toLowerCase() === "bearer") return value === key;
      if (scheme.scheme.toLowerCase() === "basic") return value === key || Buffer.from(value, "base64").toString() === `${key}:`;
      return false;
    }
    if (scheme.type === "apiKey") {
      if (scheme.in === "header") return headers.get(scheme.name) === key;
      if (scheme.in === "query") return search.get(scheme.name) === key;
    }
    return false;
  }

  /** Coerces a parameter's raw strings as its schema and style say, validates, and returns the value. */
  #checkParam(d: { param: Json; tokens: Tokens }, raw: string[], v: (msg: string) => void): unknown {
    const c = this.contract;
    const { param } = d;
    if (!param.schema) return raw[0];
    const schemaAt = c.resolve([...d.tokens, "schema"]);
    const schema = schemaAt.value;
    const isArray = typeOf(schema).includes("array");
    let value: unknown;
    if (isArray) {
      // form style explodes by default: `a=1&a=2`; `explode: false` is `a=1,2`.
      const explode = param.explode ?? (param.style ?? (param.in === "query" ? "form" : "simple")) === "form";
      const parts = explode && param.in === "query" ? raw : raw.flatMap((r) => r.split(","));
      const items = schema.items ? c.resolve([...schemaAt.tokens, "items"]).value : {};
      value = parts.map((p) => coerce(p, items));
    } else {
      if (raw.length > 1) v(`parameter "${param.name}" is repeated`);
      value = coerce(raw[0]!, schema);
    }
    for (const e of c.validate([...d.tokens, "schema"], value)) v(`${param.in} parameter "${param.name}" ${e}`);
    return value;
  }

  /** Checks an answer of the fake cloud against the operation's responses, and builds it. */
  #respond(op: Operation, answer: StubAnswer): Response {
    const c = this.contract;
    const where = `${op.operationId} answering ${answer.status}`;
    const responses = c.resolve([...op.tokens, "responses"]).value ?? {};
    const key = [String(answer.status), `${String(answer.status)[0]}XX`, "default"].find((k) => k in responses);
    const headers = new Headers(answer.headers ?? {});
    if (key === undefined) {
      if (answer.undocumented && (answer.status === 429 || answer.status >= 500 || answer.status === 401 || answer.status === 403)) {
        this.notes.push(`${where}: not in the document (${answer.undocumented})`);
        const text = answer.text ?? (answer.body === undefined ? null : JSON.stringify(answer.body));
        if (text !== null && !headers.has("content-type")) headers.set("content-type", answer.text !== undefined ? "text/html" : "application/json");
        return new Response(text, { status: answer.status, headers });
      }
      this.violations.push(`${where}: ${c.file} lists no such status (${Object.keys(responses).join(", ")})`);
      return new Response(null, { status: answer.status });
    }
    if (answer.text !== undefined) this.violations.push(`${where}: a non-JSON body for a documented status`);
    const r = c.resolve([...op.tokens, "responses", key]);
    const content = r.value.content as Json | undefined;
    let text: string | null = null;
    if (content && Object.keys(content).length > 0) {
      const media = headers.get("content-type")?.split(";")[0] ?? Object.keys(content)[0]!;
      if (!(media in content)) this.violations.push(`${where}: content-type ${media} is not one of ${Object.keys(content).join(", ")}`);
      else if (answer.body === undefined) this.violations.push(`${where}: the document describes a body, none was given`);
      else if (content[media].schema) {
        for (const e of c.validate([...r.tokens, "content", media, "schema"], answer.body)) this.violations.push(`${where}: body ${e}`);
      }
      headers.set("content-type", media);
      text = answer.body === undefined ? null : JSON.stringify(answer.body);
    } else if (answer.body !== undefined) {
      this.violations.push(`${where}: the document describes no body for this status, one was given`);
    }
    // Declared response headers the answer sends must match their schemas.
    for (const [name, h] of Object.entries<Json>(r.value.headers ?? {})) {
      const got = headers.get(name);
      const hAt = c.resolve([...r.tokens, "headers", name]);
      if (got === null) {
        if (hAt.value.required) this.violations.push(`${where}: required header ${name} is missing`);
        continue;
      }
      if (!h || !hAt.value.schema) continue;
      const schema = c.resolve([...hAt.tokens, "schema"]).value;
      for (const e of c.validate([...hAt.tokens, "schema"], coerce(got, schema))) this.violations.push(`${where}: header ${name} ${e}`);
    }
    return new Response(answer.status === 204 || answer.status === 304 ? null : text, { status: answer.status, headers });
  }
}

function typeOf(schema: Json): string[] {
  if (!schema || typeof schema !== "object") return [];
  return Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
}

/** A parameter's string as its schema's primitive type; left a string when it does not parse. */
function coerce(raw: string, schema: Json): unknown {
  const types = typeOf(schema);
  if (types.includes("string") || types.length === 0) return raw;
  if ((types.includes("integer") || types.includes("number")) && raw.trim() !== "" && Number.isFinite(Number(raw))) return Number(raw);
  if (types.includes("boolean") && (raw === "true" || raw === "false")) return raw === "true";
  if (types.includes("null") && raw === "") return null;
  return raw;
}

function refTokens(ref: string): string[] {
  if (!ref.startsWith("#/")) throw new Error(`only local $refs are followed, got ${ref}`);
  return ref
    .slice(2)
    .split("/")
    .map((t) => decodeURIComponent(t).replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** OpenAPI 3.0's `nullable: true` as JSON Schema: the type (or enum) also admits null. */
function rewriteNullable(node: Json): Json {
  if (Array.isArray(node)) return node.map(rewriteNullable);
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = rewriteNullable(v);
  if (out.nullable === true) {
    if (typeof out.type === "string") out.type = [out.type, "null"];
    else if (Array.isArray(out.type) && !out.type.includes("null")) out.type = [...out.type, "null"];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    delete out.nullable;
  }
  return out;
}

/** The formats these documents use; the numeric ones (float, int64...) constrain nothing JSON can tell. */
function addFormats(ajv: Ajv2020): void {
  ajv.addFormat("date-time", /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i);
  ajv.addFormat("uri", {
    validate: (s: string) => {
      try {
        return Boolean(new URL(s));
      } catch {
        return false;
      }
    },
  });
  ajv.addFormat("email", /^[^\s@]+@[^\s@]+$/);
  for (const f of ["float", "double", "int32", "int64", "password", "byte", "binary", "ipv4network"]) ajv.addFormat(f, true);
}
