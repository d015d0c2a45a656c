/**
 * Writes cli/api-types.d.ts, the CLI's only request and answer types: openapi-typescript's reading
 * of the OpenAPI document, built in-process from functions/app.ts, or read from a running Worker
 * with `--from http://127.0.0.1:8787`. `npm run gen:cli-types`; test/unit/cli-types.test.ts and
 * test/e2e/cli.test.ts fail when the committed file is stale.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import { createApp } from "../functions/app";

export const CLI_TYPES_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "cli", "api-types.d.ts");

/** The document `GET /v1/openapi.json` serves; `info` aside, which the generated types do not carry. */
export function openApiDocument(): OpenAPI3 {
  return createApp().getOpenAPI31Document({ openapi: "3.1.0", info: { title: "lessor", version: "0" } }) as OpenAPI3;
}

export async function cliTypesOf(doc: OpenAPI3): Promise<string> {
  // A field with a default may be left out of a request: not required (openapi-typescript's
  // default makes it so, which would make the CLI send every defaulted field).
  return astToString(await openapiTS(doc, { defaultNonNullable: false }));
}

async function main(argv: string[]) {
  const from = argv[0] === "--from" ? argv[1] : undefined;
  if (argv.length > 0 && !from) throw new Error("usage: gen-cli-types [--from BASE_URL]");
  const doc = from ? ((await (await fetch(new URL("/v1/openapi.json", from))).json()) as OpenAPI3) : openApiDocument();
  writeFileSync(CLI_TYPES_FILE, await cliTypesOf(doc));
  console.log(`wrote ${path.relative(process.cwd(), CLI_TYPES_FILE)}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(`error: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  });
}
