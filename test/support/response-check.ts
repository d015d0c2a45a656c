/**
 * Checks an answer against the OpenAPI document's schema for its route and status (ajv, JSON
 * Schema 2020-12, as OpenAPI 3.1 uses): a status the document does not list for the route, or a
 * body that does not match, is a failure.
 *
 * Objects are checked closed: a field the document does not name fails, as it would in a client
 * generated from it. The document leaves objects open (a later version may add fields), so the
 * checker closes every object schema itself, with `unevaluatedProperties: false` rather than
 * `additionalProperties` so that an object built with `allOf` (a schema `.extend`ed from a named
 * one) still sees the fields of all its parts. Maps (`additionalProperties` given) stay as they are.
 */
import Ajv2020 from "ajv/dist/2020";
import type { ValidateFunction } from "ajv";

type Schema = Record<string, unknown>;
type Doc = {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;
  components?: { schemas?: Record<string, Schema> };
};

/** Answers served beside the document rather than described by it. */
const OUTSIDE_THE_DOCUMENT = new Set(["GET /v1/openapi.json", "GET /docs"]);

const REF = "#/components/schemas/";

/**
 * `schema` with every `$ref` to a component inlined and every object closed. `open`: the schema is
 * one part of an `allOf`, whose holder closes it over all its parts.
 */
export function closed(schema: unknown, components: Record<string, Schema>, open = false, seen: string[] = []): unknown {
  if (Array.isArray(schema)) return schema.map((s) => closed(s, components, false, seen));
  if (schema === null || typeof schema !== "object") return schema;
  const s = schema as Schema;
  if (typeof s.$ref === "string" && s.$ref.startsWith(REF)) {
    const name = s.$ref.slice(REF.length);
    if (seen.includes(name)) throw new Error(`the document's schema ${name} refers to itself; the checker cannot inline it`);
    const { $ref: _, ...rest } = s;
    return closed({ ...components[name], ...rest }, components, open, [...seen, name]);
  }
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === "properties" || k === "patternProperties" || k === "$defs") {
      out[k] = Object.fromEntries(Object.entries(v as Schema).map(([name, sub]) => [name, closed(sub, components, false, seen)]));
    } else if (k === "allOf") {
      out[k] = (v as unknown[]).map((part) => closed(part, components, true, seen));
    } else if (k === "example" || k === "examples" || k === "enum" || k === "const" || k === "default") {
      out[k] = v;
    } else {
      out[k] = closed(v, components, false, seen);
    }
  }
  const isObject = s.type === "object" || (Array.isArray(s.type) && s.type.includes("object")) || "properties" in s || "allOf" in s;
  if (isObject && !open && !("additionalProperties" in s) && !("unevaluatedProperties" in s)) out.unevaluatedProperties = false;
  return out;
}

export class ResponseChecker {
  readonly #doc: Doc;
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true });
  readonly #compiled = new Map<string, ValidateFunction>();
  readonly #routes: Array<{ template: string; re: RegExp }>;

  constructor(doc: Doc) {
    this.#doc = doc;
    this.#routes = Object.keys(doc.paths).map((template) => ({
      template,
      // `{path}`, an artifact's path (docs/artifacts.md), is the rest of the URL, slashes and all.
      re: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{path\}$/, "(?:.+)").replace(/\{[^}]+\}/g, "[^/]+")}$`),
    }));
  }

  /** The route template a concrete path is served by, or null. */
  routeOf(path: string): string | null {
    const bare = path.split("?")[0]!;
    return this.#routes.find((r) => r.re.test(bare))?.template ?? null;
  }

  /** Problems with one answer: empty when it matches the document. */
  problems(method: string, path: string, status: number, body: unknown, contentType = "application/json"): string[] {
    const m = method.toUpperCase();
    if (OUTSIDE_THE_DOCUMENT.has(`${m} ${path.split("?")[0]}`) && status === 200) return [];
    const template = this.routeOf(path);
    // A path no route serves answers the not-found envelope; nothing else to check it against.
    if (template === null) return status === 404 ? [] : [`${m} ${path}: no route in the document, yet ${status}`];
    const op = this.#doc.paths[template]![m.toLowerCase()];
    if (!op) return status === 404 || status === 405 ? [] : [`${m} ${template}: no such operation in the document, yet ${status}`];
    const response = op.responses?.[String(status)];
    if (!response) return [`${m} ${template}: status ${status} is not documented (${Object.keys(op.responses ?? {}).join(", ")})`];
    // A stream (Server-Sent Events) or text answer: the document must list its type; a JSON
    // answer is checked against its schema below.
    const type = contentType.split(";")[0]!.trim().toLowerCase();
    if (type !== "application/json" && type !== "") {
      return response.content === undefined || response.content[type] !== undefined ? [] : [`${m} ${template} ${status}: answered ${type}, which the document does not list (${Object.keys(response.content).join(", ")})`];
    }
    const schema = response.content?.["application/json"]?.schema;
    if (schema === undefined) return [];
    const key = `${m} ${template} ${status}`;
    let validate = this.#compiled.get(key);
    if (validate === undefined) {
      validate = this.#ajv.compile(closed(schema, this.#doc.components?.schemas ?? {}) as object);
      this.#compiled.set(key, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map((e) => `${key}: ${e.instancePath || "(body)"} ${e.message} ${JSON.stringify(e.params)}`);
  }
}
