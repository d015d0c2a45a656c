/**
 * The "zod" the deployed bundle takes (src/zod-bundle/index.mjs, wrangler.toml `alias`) is zod's
 * own, less what lessor never uses: a zod upgrade that adds or moves an export fails here, not in
 * production.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as zod from "zod";
// @ts-ignore plain JavaScript module, the bundle's alias
import * as lean from "../../src/zod-bundle/index.mjs";

/** Left out of the bundle, and so never to be used by lessor. */
const OMITTED = ["core", "locales", "compile", "compileFn", "withParser", "INVALID", "ZodCompileAsyncError", "ZodCompileUnsupportedError", "fromJSONSchema"];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? sources(file) : file.endsWith(".ts") ? [file] : [];
  });
}

describe("the bundle's zod", () => {
  it("exports everything zod exports but what it leaves out", () => {
    const expected = Object.keys(zod).filter((k) => !OMITTED.includes(k)).sort();
    expect(Object.keys(lean).sort()).toEqual(expected);
    expect(Object.keys(lean.z).sort()).toEqual(Object.keys(zod.z).filter((k) => !OMITTED.includes(k)).sort());
    expect("core" in lean.z).toBe(false);
  });

  it("is zod's own classes, with English messages", () => {
    expect(lean.z.ZodString).toBe(zod.z.ZodString);
    const r = lean.z.object({ n: lean.z.number().min(2) }).safeParse({ n: 1 });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.message).toMatch(/^Too small/);
  });

  it("what it leaves out, lessor does not use", () => {
    const root = path.join(__dirname, "../..");
    const uses = [...sources(path.join(root, "src")), ...sources(path.join(root, "functions"))].filter((f) =>
      OMITTED.some((name) => new RegExp(`\\bz\\.(core\\.)?${name}\\b|import \\{[^}]*\\b${name}\\b[^}]*\\} from "(zod|@hono/zod-openapi)"`).test(readFileSync(f, "utf8"))),
    );
    expect(uses).toEqual([]);
  });
});
