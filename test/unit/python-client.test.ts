/**
 * clients/python/src/lessor/_generated.py is what scripts/gen-python-client.ts makes of the OpenAPI
 * document today (the one `GET /v1/openapi.json` serves, built in-process): stale, it fails here
 * (run `npm run gen:python-client`). Then the generator's naming rules, and that the file has a
 * class for every object schema and a method, sync and async, for every operation of the document.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../scripts/gen-cli-types";
import { operationName, pyName, PYTHON_CLIENT_FILE, pythonClientOf, variantName } from "../../scripts/gen-python-client";

const doc = openApiDocument() as any;
const committed = readFileSync(PYTHON_CLIENT_FILE, "utf8");

it("the committed Python client is the one the OpenAPI document generates (else: npm run gen:python-client)", () => {
  expect(committed === pythonClientOf(doc), "clients/python/src/lessor/_generated.py is stale: run `npm run gen:python-client`").toBe(true);
});

it("a change to the document changes the generated client", () => {
  const changed = structuredClone(doc);
  changed.components.schemas.Deployment.properties.region = { type: "string", description: "where it runs" };
  changed.components.schemas.Deployment.required.push("region");
  const text = pythonClientOf(changed);
  expect(text).not.toBe(committed);
  expect(text).toContain('    region: str = Field(description="where it runs")');
});

describe("names", () => {
  it.each([
    ["get", "/v1/leases", "get_leases"],
    ["get", "/v1/leases/{id}", "get_leases_id"],
    ["post", "/v1/leases/{id}/end", "post_leases_id_end"],
    ["post", "/v1/deployments/{name}/rotate-key", "post_deployments_name_rotate_key"],
    ["post", "/v1/webhooks/{id}/deliveries/{delivery_id}/retry", "post_webhooks_id_deliveries_delivery_id_retry"],
  ])("%s %s is %s", (method, route, name) => {
    expect(operationName(method, route)).toBe(name);
  });

  it.each([
    ["from", "from_"],
    ["for", "for_"],
    ["json", "json_"],
    ["lease-id", "lease_id"],
    ["8000", "_8000"],
    ["model", "model"],
  ])("the field %s is %s in Python", (wire, python) => {
    expect(pyName(wire)).toBe(python);
  });

  it.each([
    [["created"], "Created"],
    [["run_failed", "stop_failed", "release_failed"], "Failed"],
    [["killed_by_runtime_cap", "killed_by_inactivity"], "KilledBy"],
    [["unlocked", "heartbeat", "ready"], null],
  ])("a union member tagged %j is named %s", (values, name) => {
    expect(variantName(values)).toBe(name);
  });
});

describe("what the file holds", () => {
  const classes = new Set([...committed.matchAll(/^class (\w+)\(/gm)].map((m) => m[1]));
  const aliases = new Set([...committed.matchAll(/^(\w+) = /gm)].map((m) => m[1]));

  it("every component schema, as a class or an alias", () => {
    const missing = Object.keys(doc.components.schemas).filter((name) => !classes.has(name) && !aliases.has(name));
    expect(missing).toEqual([]);
  });

  it("every operation, once in Api and once in AsyncApi", () => {
    const sync = committed.slice(committed.indexOf("\nclass Api:"), committed.indexOf("\nclass AsyncApi:"));
    const async = committed.slice(committed.indexOf("\nclass AsyncApi:"));
    for (const [route, item] of Object.entries<any>(doc.paths)) {
      for (const method of ["get", "put", "post", "delete", "patch"].filter((m) => item[m])) {
        const name = operationName(method, route);
        expect(sync.match(new RegExp(`\\n    def ${name}\\(`, "g"))?.length, `${method} ${route}`).toBe(1);
        expect(async.match(new RegExp(`\\n    async def ${name}\\(`, "g"))?.length, `${method} ${route}`).toBe(1);
      }
    }
  });

  it("a secret is never in a model's repr", () => {
    for (const field of ["api_key", "secret", "token"]) {
      for (const line of committed.split("\n").filter((l) => new RegExp(`^    ${field}: `).test(l))) expect(line).toContain("repr=False");
    }
  });
});
