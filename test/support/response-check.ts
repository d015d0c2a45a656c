/**
 * Checks an answer against the OpenAPI document's schema for its route and status (ajv, JSON
 * Schema 2020-12, as OpenAPI 3.1 uses): a status the document does not list for the route, or a
 * body that does not match, is a failure. The document is read once, from the Worker itself.
 */
import Ajv2020 from "ajv/dist/2020";
import type { ValidateFunction } from "ajv";

type Doc = { paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>; components?: unknown };

export class ResponseChecker {
  readonly #doc: Doc;
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true });
  readonly #compiled = new Map<string, ValidateFunction | null>();
  readonly #routes: Array<{ template: string; re: RegExp }>;

  constructor(doc: Doc) {
    this.#doc = doc;
    this.#routes = Object.keys(doc.paths).map((template) => ({
      template,
      re: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`),
    }));
  }

  /** The route template a concrete path is served by, or null. */
  routeOf(path: string): string | null {
    const bare = path.split("?")[0]!;
    return this.#routes.find((r) => r.re.test(bare))?.template ?? null;
  }

  /** Problems with one answer: empty when it matches the document. */
  problems(method: string, path: string, status: number, body: unknown): string[] {
    const template = this.routeOf(path);
    // A path no route serves answers the not-found envelope; nothing else to check it against.
    if (template === null) return status === 404 ? [] : [`${method} ${path}: no route in the document, yet ${status}`];
    const op = this.#doc.paths[template]![method.toLowerCase()];
    if (!op) return status === 404 || status === 405 ? [] : [`${method} ${template}: no such operation in the document, yet ${status}`];
    const response = op.responses?.[String(status)];
    if (!response) return [`${method} ${template}: status ${status} is not documented (${Object.keys(op.responses ?? {}).join(", ")})`];
    const schema = response.content?.["application/json"]?.schema;
    if (schema === undefined) return [];
    const key = `${method} ${template} ${status}`;
    let validate = this.#compiled.get(key);
    if (validate === undefined) {
      validate = this.#ajv.compile({ ...(schema as object), components: this.#doc.components });
      this.#compiled.set(key, validate);
    }
    if (validate!(body)) return [];
    return (validate!.errors ?? []).map((e) => `${key}: ${e.instancePath || "(body)"} ${e.message} ${JSON.stringify(e.params)}`);
  }
}
