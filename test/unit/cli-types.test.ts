/**
 * cli/api-types.d.ts is what openapi-typescript makes of the OpenAPI document today: regenerated
 * from the document built in-process (the same one `GET /v1/openapi.json` serves; the e2e test
 * checks it against the running Worker's), it must equal the committed file. Stale: run
 * `npm run gen:cli-types`.
 */
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { CLI_TYPES_FILE, cliTypesOf, openApiDocument } from "../../scripts/gen-cli-types";

it("the committed API types are those the OpenAPI document generates (else: npm run gen:cli-types)", async () => {
  expect(readFileSync(CLI_TYPES_FILE, "utf8") === (await cliTypesOf(openApiDocument())), "cli/api-types.d.ts is stale: run `npm run gen:cli-types`").toBe(true);
}, 60_000);
