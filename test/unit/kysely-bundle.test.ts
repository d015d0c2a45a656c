/**
 * The deployed bundle's kysely leaves out `withSchema` and `mergeInto` (src/kysely-bundle/left-out.mjs,
 * wrangler.toml `alias`, keyed by the paths kysely's own modules import them by): a kysely upgrade
 * that moves either fails here, and so does a use of either in lessor.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-ignore plain JavaScript module, the bundle's alias
import * as leftOut from "../../src/kysely-bundle/left-out.mjs";

const root = path.join(__dirname, "../..");
const kysely = path.join(root, "node_modules/kysely/dist/esm");
const LEFT_OUT = "./src/kysely-bundle/left-out.mjs";
/** kysely's modules the alias stands in for, and what each exports that kysely imports. */
const REPLACED: Record<string, string> = {
  "plugin/with-schema/with-schema-plugin.js": "WithSchemaPlugin",
  "query-builder/merge-query-builder.js": "MergeQueryBuilder",
};

function files(dir: string, ext: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? files(file, ext) : file.endsWith(ext) ? [file] : [];
  });
}

/** wrangler.toml's alias keys that lead to left-out.mjs. */
function aliasKeys(): string[] {
  const toml = readFileSync(path.join(root, "wrangler.toml"), "utf8");
  return [...toml.matchAll(/^"([^"]+)" = "([^"]+)"$/gm)].filter((m) => m[2] === LEFT_OUT).map((m) => m[1]!);
}

/** Every import in kysely's modules of the ones replaced: the path as written, and what it names. */
function kyselyImports(): { specifier: string; target: string; names: string[] }[] {
  return files(kysely, ".js").flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(/^import \{([^}]*)\} from '([^']+)';$/gm)].flatMap((m) => {
      const target = path.relative(kysely, path.resolve(path.dirname(file), m[2]!));
      return target in REPLACED ? [{ specifier: m[2]!, target, names: m[1]!.split(",").map((n) => n.trim()).filter(Boolean) }] : [];
    }),
  );
}

describe("the bundle's kysely", () => {
  it("aliases exactly the paths kysely imports the left-out modules by", () => {
    const imports = kyselyImports();
    expect(imports.length).toBeGreaterThan(0);
    expect(aliasKeys().sort()).toEqual([...new Set(imports.map((i) => i.specifier))].sort());
    for (const i of imports) expect(i.names).toEqual([REPLACED[i.target]]);
  });

  it("stands in with classes that throw when built", () => {
    expect(Object.keys(leftOut).sort()).toEqual(Object.values(REPLACED).sort());
    expect(() => new leftOut.WithSchemaPlugin()).toThrow(/withSchema is left out/);
    expect(() => new leftOut.MergeQueryBuilder()).toThrow(/mergeInto is left out/);
  });

  it("what it leaves out, lessor does not use", () => {
    const uses = [...files(path.join(root, "src"), ".ts"), ...files(path.join(root, "functions"), ".ts")].filter((f) =>
      /\.\s*(withSchema|mergeInto)\s*\(/.test(readFileSync(f, "utf8")),
    );
    expect(uses).toEqual([]);
  });
});
