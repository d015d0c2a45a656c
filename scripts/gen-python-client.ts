/**
 * Writes clients/python/src/lessor/_generated.py, the Python client's only request and answer
 * types: a pydantic v2 model for each object schema of the OpenAPI document (built in-process from
 * functions/app.ts, as scripts/gen-cli-types.ts builds it, or read from a running Worker with
 * `--from http://127.0.0.1:8787`), a Literal for each enum, and one typed method per operation,
 * in a sync class and an async one. `npm run gen:python-client`; test/unit/python-client.test.ts
 * fails while the committed file is stale. Why a generator of lessor's own: docs/python.md.
 *
 * The rules, each one the document's:
 * - an object with `properties` is a class; `additionalProperties: false` closes it (a field it
 *   does not name is refused), otherwise it keeps what it does not name (a newer server's field);
 * - an inline object is named after where it sits: its parent and property (`Lease.machine` is
 *   `LeaseMachine`), an operation's body or answer after the operation (`PostLeasesIdKillBody`);
 * - `allOf` of a class and an object is a subclass; `anyOf`/`oneOf` a Union, discriminated when
 *   every member names itself by one string enum property (`LeaseEvent` by `type`);
 * - a field the schema does not require is `T | None = None` (or its default), so that a request
 *   sends only what was set (the client serializes with `exclude_unset`);
 * - constraints (`pattern`, `minimum`, lengths) are not checked here: the server checks them and
 *   answers its error envelope with a stable code, which the client raises as a LessorError.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { OpenAPI3 } from "openapi-typescript";
import { openApiDocument } from "./gen-cli-types";

export const PYTHON_CLIENT_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "clients", "python", "src", "lessor", "_generated.py");

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Schema = any;

/** Words Python refuses as names, and BaseModel's own attributes: a field so named gets a `_` and an alias. */
const RESERVED = new Set([
  ...["False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else", "except"],
  ...["finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try"],
  ...["while", "with", "yield", "construct", "copy", "dict", "from_orm", "json", "parse_file", "parse_obj", "parse_raw", "schema"],
  ...["schema_json", "update_forward_refs", "validate", "self"],
]);

/** Fields that hold a secret: never in a model's repr, so a notebook that shows a result does not store the secret in its output. */
const SECRET_FIELDS = new Set(["api_key", "secret", "token"]);

const METHODS = ["get", "put", "post", "delete", "patch"] as const;

const pyString = (s: string) => JSON.stringify(s);

/** A docstring's body: backslashes and triple quotes escaped. */
const docText = (s: string) => s.replace(/\\/g, "\\\\").replace(/"""/g, '\\"\\"\\"');

function pascal(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");
}

export function pyName(name: string): string {
  let n = name.replace(/[^A-Za-z0-9_]/g, "_");
  if (/^[0-9]/.test(n)) n = `_${n}`;
  return RESERVED.has(n) ? `${n}_` : n;
}

/** `GET /v1/leases/{id}/events` is `get_leases_id_events`: the method and the path after /v1, `/`, `{}` and `-` as `_`. */
export function operationName(method: string, route: string): string {
  const words = route
    .replace(/^\/v1\//, "")
    .split("/")
    .map((segment) => segment.replace(/[{}]/g, "").replace(/[^A-Za-z0-9]+/g, "_"));
  return [method, ...words].join("_");
}

function pyLiteral(v: unknown): string {
  if (v === null) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "number" || typeof v === "string") return JSON.stringify(v);
  throw new Error(`gen-python-client: no Python literal for ${JSON.stringify(v)}`);
}

class Generator {
  /** Definitions in the order they must be written: a class or alias after everything it uses. */
  readonly blocks: string[] = [];
  readonly taken = new Set<string>();
  readonly #components = new Map<string, "pending" | "done">();

  constructor(readonly doc: Schema) {}

  /** A fresh class name: `base`, or `base2`, `base3`... when taken. */
  claim(base: string): string {
    let name = base;
    for (let i = 2; this.taken.has(name); i++) name = `${base}${i}`;
    this.taken.add(name);
    return name;
  }

  resolve(schema: Schema): Schema {
    if (schema?.$ref) return this.component(schema.$ref.replace("#/components/schemas/", ""));
    return schema;
  }

  component(name: string): Schema {
    const s = this.doc.components?.schemas?.[name];
    if (!s) throw new Error(`gen-python-client: no component schema ${name}`);
    return s;
  }

  /** Writes component `name` (once) and answers its Python name. */
  ref(ref: string): string {
    const name = ref.replace("#/components/schemas/", "");
    const state = this.#components.get(name);
    if (state === "done") return name;
    // A cycle through a class is fine: annotations are strings, read once the module has loaded.
    // (One through an alias would fail the module's import, which every Python test does.)
    if (state === "pending") return name;
    this.#components.set(name, "pending");
    this.taken.add(name);
    const s = this.component(name);
    if (this.isClass(s)) this.writeClass(name, s);
    else this.blocks.push(`${docComment(s.description)}${name} = ${this.typeOf(s, name)}\n`);
    this.#components.set(name, "done");
    return name;
  }

  isClass(s: Schema): boolean {
    if (s.properties && (s.type === "object" || s.type === undefined)) return true;
    if (s.type === "object" && s.additionalProperties === false) return true;
    if (s.allOf) return s.allOf.some((m: Schema) => m.$ref && this.isClass(this.resolve(m))) && s.allOf.some((m: Schema) => !m.$ref && m.properties);
    return false;
  }

  /** The Python type of `schema`; an inline class is written under the name `hint`. */
  typeOf(schema: Schema, hint: string): string {
    if (schema === undefined || schema === true || (typeof schema === "object" && Object.keys(schema).length === 0)) return "Any";
    if (schema.$ref) return this.ref(schema.$ref);
    if (schema.allOf) {
      if (this.isClass(schema)) return this.writeClass(this.claim(hint), schema);
      const typed = schema.allOf.filter((m: Schema) => m.$ref || m.type || m.anyOf || m.oneOf || m.allOf || m.enum);
      if (typed.length === 1) return this.typeOf(typed[0], hint);
      throw new Error(`gen-python-client: ${hint}: an allOf of ${typed.length} typed members`);
    }
    const union = schema.oneOf ?? schema.anyOf;
    if (union) return this.unionOf(union, hint);
    if (schema.enum) {
      const values = schema.enum.filter((v: unknown) => v !== null);
      const literal = `Literal[${values.map(pyLiteral).join(", ")}]`;
      return schema.enum.includes(null) || nullable(schema) ? `${literal} | None` : literal;
    }
    const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
    const nonNull = types.filter((t) => t !== "null");
    if (types.length > 0 && nonNull.length === 0) return "None";
    if (nonNull.length > 1) throw new Error(`gen-python-client: ${hint}: several types ${nonNull.join(", ")}`);
    const base = this.baseType(nonNull[0], schema, hint);
    return types.includes("null") ? `${base} | None` : base;
  }

  baseType(type: string | undefined, schema: Schema, hint: string): string {
    switch (type) {
      case "string":
        return "str";
      case "integer":
        return "int";
      case "number":
        return "float";
      case "boolean":
        return "bool";
      case "array":
        return `list[${this.typeOf(schema.items, `${hint}Item`)}]`;
      case "object":
      case undefined:
        if (schema.properties || schema.additionalProperties === false) return this.writeClass(this.claim(hint), schema);
        if (schema.additionalProperties && typeof schema.additionalProperties === "object" && Object.keys(schema.additionalProperties).length > 0) {
          return `dict[str, ${this.typeOf(schema.additionalProperties, `${hint}Value`)}]`;
        }
        return type === "object" ? "dict[str, Any]" : "Any";
      default:
        throw new Error(`gen-python-client: ${hint}: type ${type}`);
    }
  }

  unionOf(members: Schema[], hint: string): string {
    const nullMember = members.some((m) => m.type === "null" && !m.enum);
    const rest = members.filter((m) => !(m.type === "null" && !m.enum));
    const tag = discriminator(rest.map((m) => this.resolve(m)));
    const types = rest.map((m, i) => {
      if (m.$ref) return this.ref(m.$ref);
      const values: string[] | undefined = tag ? m.properties[tag].enum : undefined;
      return this.typeOf(m, `${hint}${(values && variantName(values)) ?? `Variant${i + 1}`}`);
    });
    let t = types.join(" | ");
    if (tag && types.length > 1) t = `Annotated[${t}, Field(discriminator=${pyString(tag)})]`;
    return nullMember ? `${t} | None` : t;
  }

  /** A parameter's type; one of an enum's values is a named Literal (`GetLeasesState`), for callers to annotate with. */
  paramType(schema: Schema, hint: string): string {
    const type = this.typeOf(schema, hint);
    if (!type.startsWith("Literal[")) return type;
    const name = this.claim(hint);
    const nullable = type.endsWith(" | None");
    this.blocks.push(`${name} = ${nullable ? type.slice(0, -" | None".length) : type}\n`);
    return nullable ? `${name} | None` : name;
  }

  /** Writes a class for an object schema (an `allOf` of a class and an object: a subclass) and answers its name. */
  writeClass(name: string, schema: Schema): string {
    let parent = schema.additionalProperties === false ? "_Closed" : "_Open";
    let own = schema;
    if (schema.allOf) {
      const base = schema.allOf.find((m: Schema) => m.$ref);
      own = schema.allOf.find((m: Schema) => !m.$ref && m.properties);
      parent = this.ref(base.$ref);
      if (own.additionalProperties === false) throw new Error(`gen-python-client: ${name}: a closed object extending ${parent}`);
    }
    const required = new Set<string>(own.required ?? []);
    const lines: string[] = [];
    for (const [prop, raw] of Object.entries<Schema>(own.properties ?? {})) {
      const field = pyName(prop);
      let type = this.typeOf(raw, `${name}${pascal(prop)}`);
      const args: string[] = [];
      if (!required.has(prop)) {
        if (!/\bNone\b/.test(type)) type = `${type} | None`;
        args.push(raw.default !== undefined && typeof raw.default !== "object" ? pyLiteral(raw.default) : "None");
      }
      if (field !== prop) args.push(`alias=${pyString(prop)}`);
      const description = raw.description ?? raw.allOf?.find((m: Schema) => m.description)?.description;
      if (description) args.push(`description=${pyString(description)}`);
      if (SECRET_FIELDS.has(prop)) args.push("repr=False");
      const onlyDefault = args.length === 1 && !required.has(prop);
      lines.push(`    ${field}: ${type}${args.length === 0 ? "" : onlyDefault ? ` = ${args[0]}` : ` = Field(${args.join(", ")})`}`);
    }
    const doc = schema.description ?? own.description;
    const body = [doc ? `    """${docText(doc)}"""\n` : "", lines.length ? lines.join("\n") : doc ? "" : "    pass"].filter(Boolean).join("\n");
    this.blocks.push(`class ${name}(${parent}):\n${body}\n`);
    return name;
  }
}

/**
 * A union member's name from the values of its tag: the one value (`created`), or the words all
 * its values begin or end with (`run_failed`, `stop_failed`: `Failed`); null when they share none.
 */
export function variantName(values: string[]): string | null {
  const words = values.map((v) => v.split("_"));
  const shared = (pick: (w: string[], i: number) => string | undefined) => {
    const out: string[] = [];
    for (let i = 0; ; i++) {
      const w = pick(words[0]!, i);
      if (w === undefined || !words.every((ws) => pick(ws, i) === w)) return out;
      out.push(w);
    }
  };
  if (values.length === 1) return pascal(values[0]!);
  const prefix = shared((w, i) => (i < w.length - 1 ? w[i] : undefined));
  if (prefix.length) return pascal(prefix.join("_"));
  const suffix = shared((w, i) => (i < w.length - 1 ? w[w.length - 1 - i] : undefined)).reverse();
  return suffix.length ? pascal(suffix.join("_")) : null;
}

const nullable = (s: Schema) => Array.isArray(s.type) && s.type.includes("null");

function docComment(description: string | undefined): string {
  return description ? `${description.split("\n").map((l) => `# ${l}`.trimEnd()).join("\n")}\n` : "";
}

/** The property every member names itself by (a required string enum, values disjoint), or null. */
function discriminator(members: Schema[]): string | null {
  if (members.length < 2 || !members.every((m) => m.properties)) return null;
  const candidates = Object.keys(members[0].properties).sort((a, b) => (b === "type" ? 1 : 0) - (a === "type" ? 1 : 0));
  for (const prop of candidates) {
    const seen = new Set<unknown>();
    const ok = members.every((m) => {
      const p = m.properties[prop];
      if (!p || p.type !== "string" || !Array.isArray(p.enum) || !(m.required ?? []).includes(prop)) return false;
      return p.enum.every((v: unknown) => v !== null && !seen.has(v) && seen.add(v));
    });
    if (ok) return prop;
  }
  return null;
}

interface Param {
  name: string;
  in: string;
  py: string;
  type: string;
  required: boolean;
}

/** The answer's Python type: the JSON schema of the 2xx answers, `str` for text, None when there is no body. */
function answerType(g: Generator, op: Schema, hint: string): string {
  const ok = Object.entries<Schema>(op.responses ?? {}).filter(([status]) => /^2/.test(status));
  const types = new Set<string>();
  for (const [, res] of ok) {
    const content = res.content ?? {};
    const json = content["application/json"];
    if (json) types.add(g.typeOf(json.schema, `${hint}Response`));
    else if (Object.keys(content).length > 0) types.add("str");
    else types.add("None");
  }
  if (types.size !== 1) throw new Error(`gen-python-client: ${hint}: the 2xx answers differ (${[...types].join(", ")})`);
  return [...types][0]!;
}

/** An operation's error answers, one line each: the codes its enum lists, or its description where it lists none. */
function errorLines(op: Schema): string[] {
  return Object.entries<Schema>(op.responses ?? {})
    .filter(([status]) => !/^2/.test(status))
    .map(([status, res]) => {
      const codes: string[] | undefined = res.content?.["application/json"]?.schema?.properties?.error?.properties?.code?.enum;
      return `${status}: ${codes ? codes.join(", ") : res.description}`;
    });
}

function writeOperations(g: Generator, doc: Schema): { sync: string[]; async: string[] } {
  const sync: string[] = [];
  const async: string[] = [];
  for (const [route, item] of Object.entries<Schema>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const name = operationName(method, route);
      const hint = pascal(name);
      const params: Param[] = (op.parameters ?? []).map((p: Schema) => ({
        name: p.name,
        py: pyName(p.name.toLowerCase().replace(/-/g, "_")),
        type: g.paramType(p.schema, `${hint}${pascal(p.name)}`),
        required: p.required === true,
        in: p.in,
      }));
      const byIn = (where: string) => params.filter((p) => p.in === where);
      const pathParams = [...route.matchAll(/\{([^}]+)\}/g)].map((m) => byIn("path").find((p) => p.name === m[1])!);
      const query = byIn("query");
      const headers = byIn("header");
      const bodySchema = op.requestBody?.content?.["application/json"]?.schema ?? op.requestBody?.content?.["text/plain"]?.schema;
      const bodyRequired = op.requestBody?.required === true;
      const bodyType = bodySchema ? g.typeOf(bodySchema, `${hint}Body`) : null;
      const answer = answerType(g, op, hint);

      const args = ["self", ...pathParams.map((p) => `${p.py}: ${p.type}`)];
      if (bodyType) {
        const accepted = bodyType === "str" ? "str" : `${bodyType} | Mapping[str, Any]`;
        args.push(bodyRequired ? `body: ${accepted}` : `body: ${accepted} | None = None`);
      }
      const keywords = [...query, ...headers];
      if (keywords.length) args.push("*");
      for (const p of keywords) args.push(p.required ? `${p.py}: ${p.type}` : `${p.py}: ${/\bNone\b/.test(p.type) ? p.type : `${p.type} | None`} = None`);

      const call = [pyString(method.toUpperCase()), pyString(route)];
      if (pathParams.length) call.push(`path={${pathParams.map((p) => `${pyString(p.name)}: ${p.py}`).join(", ")}}`);
      if (query.length) call.push(`query={${query.map((p) => `${pyString(p.name)}: ${p.py}`).join(", ")}}`);
      if (headers.length) call.push(`headers={${headers.map((p) => `${pyString(p.name)}: ${p.py}`).join(", ")}}`);
      if (bodyType) call.push(`body=body${bodyType === "str" ? ", text_body=True" : ""}`);
      // A union is no `type`: it is handed over as the type of its union, which decode reads with a TypeAdapter.
      call.push(`response=${answer === "None" ? "type(None)" : answer.includes(" | ") ? `cast("type[${answer}]", ${answer})` : answer}`);

      const docLines = [`${method.toUpperCase()} ${route}: ${op.summary ?? ""}`.trimEnd()];
      const errors = errorLines(op);
      if (errors.length) docLines.push("", "Errors, raised as LessorError (status: codes):", ...errors.map((l) => `    ${l}`));
      const docstring = `        """${docText(docLines.map((l) => `        ${l}`.trimEnd()).join("\n").trimStart())}\n        """`;
      const signature = `(${args.join(", ")}) -> ${answer}:`;
      sync.push(`    def ${name}${signature}\n${docstring}\n        return self._call(${call.join(", ")})\n`);
      async.push(`    async def ${name}${signature}\n${docstring}\n        return await self._call(${call.join(", ")})\n`);
    }
  }
  return { sync, async };
}

/** Every error code the document lists in an answer's enum. */
function errorCodes(doc: Schema): string[] {
  const codes = new Set<string>();
  for (const item of Object.values<Schema>(doc.paths ?? {})) {
    for (const method of METHODS) {
      for (const [status, res] of Object.entries<Schema>(item[method]?.responses ?? {})) {
        if (/^2/.test(status)) continue;
        const code = res.content?.["application/json"]?.schema?.properties?.error?.properties?.code;
        for (const c of code?.enum ?? []) codes.add(c);
      }
    }
  }
  return [...codes].sort();
}

export function pythonClientOf(doc: OpenAPI3): string {
  const d = doc as Schema;
  const g = new Generator(d);
  // Components keep their own names: an inline class is never named like one written later.
  for (const name of ["_Open", "_Closed", "Api", "AsyncApi", "ERROR_CODES", ...Object.keys(d.components?.schemas ?? {})]) g.taken.add(name);
  for (const name of Object.keys(d.components?.schemas ?? {})) g.ref(`#/components/schemas/${name}`);
  const ops = writeOperations(g, d);
  const codes = errorCodes(d);
  const names = g.blocks.map((b) => /^(?:class (\w+)|(\w+) =)/m.exec(b.replace(/^#.*\n/gm, ""))).map((m) => m?.[1] ?? m?.[2]);
  const exported = [...names.filter((n): n is string => n !== undefined && !n.startsWith("_")), "Api", "AsyncApi", "ERROR_CODES"].sort();
  return `# Generated by scripts/gen-python-client.ts from lessor's OpenAPI document (npm run gen:python-client).
# Do not edit: test/unit/python-client.test.ts fails while this file is not what the document generates.
# The rules it follows are at the top of the script; docs/python.md says why it is lessor's own.
from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Annotated, Any, Literal, Protocol, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field

_T = TypeVar("_T")


class _Open(BaseModel):
    """An object the document leaves open: fields it does not name are kept (a newer server's)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, protected_namespaces=())


class _Closed(BaseModel):
    """An object the document closes (additionalProperties: false): a field it does not name is refused."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, protected_namespaces=())


${g.blocks.join("\n\n")}

# Every error code an answer of the document lists (the 400s of validation name theirs in prose).
ERROR_CODES: frozenset[str] = frozenset({
${codes.map((c) => `    ${pyString(c)},`).join("\n")}
})


class _Call(Protocol):
    def __call__(self, method: str, route: str, *, response: type[_T], path: Mapping[str, str] | None = ..., query: Mapping[str, Any] | None = ..., headers: Mapping[str, Any] | None = ..., body: Any = ..., text_body: bool = ...) -> _T: ...


class _AsyncCall(Protocol):
    def __call__(self, method: str, route: str, *, response: type[_T], path: Mapping[str, str] | None = ..., query: Mapping[str, Any] | None = ..., headers: Mapping[str, Any] | None = ..., body: Any = ..., text_body: bool = ...) -> Awaitable[_T]: ...


class Api:
    """Every operation of the document, one method each, named after its method and path."""

    def __init__(self, call: _Call) -> None:
        self._call = call

${ops.sync.join("\n")}

class AsyncApi:
    """Every operation of the document, as Api, awaited."""

    def __init__(self, call: _AsyncCall) -> None:
        self._call = call

${ops.async.join("\n")}

__all__ = [
${exported.map((n) => `    ${pyString(n)},`).join("\n")}
]
`;
}

async function main(argv: string[]) {
  const from = argv[0] === "--from" ? argv[1] : undefined;
  if (argv.length > 0 && !from) throw new Error("usage: gen-python-client [--from BASE_URL]");
  const doc = from ? ((await (await fetch(new URL("/v1/openapi.json", from))).json()) as OpenAPI3) : openApiDocument();
  writeFileSync(PYTHON_CLIENT_FILE, pythonClientOf(doc));
  console.log(`wrote ${path.relative(process.cwd(), PYTHON_CLIENT_FILE)}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(`error: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  });
}
