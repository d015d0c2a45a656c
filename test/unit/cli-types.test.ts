/**
 * cli/api-types.d.ts is what openapi-typescript makes of the OpenAPI document today: regenerated
 * from the document built in-process (the same one `GET /v1/openapi.json` serves; the e2e test
 * checks it against the running Worker's), it must equal the committed file. Stale: run
 * `npm run gen:cli-types`. The flags that take one of an enum's values take exactly the
 * document's.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CHOICES } from "../../cli/main.mjs";
import { CLI_TYPES_FILE, cliTypesOf, openApiDocument } from "../../scripts/gen-cli-types";

const doc = openApiDocument() as any;

it("the committed API types are those the OpenAPI document generates (else: npm run gen:cli-types)", async () => {
  expect(readFileSync(CLI_TYPES_FILE, "utf8") === (await cliTypesOf(doc)), "cli/api-types.d.ts is stale: run `npm run gen:cli-types`").toBe(true);
}, 60_000);

describe("the CLI's choices are the document's enums", () => {
  const queryEnum = (path: string, name: string): string[] => doc.paths[path].get.parameters.find((p: any) => p.name === name).schema.enum;
  it.each([
    ["leaseState", () => queryEnum("/v1/leases", "state")],
    ["leaseKind", () => queryEnum("/v1/leases", "kind")],
    ["leaseKind", () => doc.components.schemas.QuoteRequest.properties.kind.enum],
    ["usageGroup", () => queryEnum("/v1/usage", "group_by")],
    ["receiptStatus", () => queryEnum("/v1/receipts", "status")],
    ["keyScope", () => doc.components.schemas.CreateApiKey.properties.scope.enum],
  ] as const)("%s", (choice, documented) => {
    expect([...CHOICES[choice]].sort()).toEqual([...documented()].sort());
  });
});
