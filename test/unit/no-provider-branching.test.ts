/**
 * The core branches on a provider's capabilities, never on its name (docs/design.md "Shape"): outside
 * src/providers/, no code compares anything with a provider's name.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PROVIDER_NAMES } from "../../src/providers/names";

const root = path.resolve(import.meta.dirname, "..", "..");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return full.endsWith(".ts") ? [full] : [];
  });
}

const names = PROVIDER_NAMES.join("|");
const BRANCH = new RegExp(
  [
    `(===|!==|==|!=)\\s*["'\`](${names})["'\`]`,
    `["'\`](${names})["'\`]\\s*(===|!==|==|!=)`,
    `case\\s+["'\`](${names})["'\`]`,
    `\\.(provider|name)\\s*\\.\\s*(startsWith|includes|endsWith)\\(\\s*["'\`](${names})`,
  ].join("|"),
);

function branchesOnProviderName(text: string): string[] {
  return text.split("\n").filter((line) => BRANCH.test(line));
}

describe("the core never branches on a provider's name", () => {
  it("finds such a branch when there is one (the check can fail)", () => {
    expect(branchesOnProviderName(`if (lease.provider === "lambda") destroy();`)).toHaveLength(1);
    expect(branchesOnProviderName(`switch (p) { case 'vast': break; }`)).toHaveLength(1);
    expect(branchesOnProviderName(`if (provider.capabilities.stop) stop();`)).toHaveLength(0);
  });

  it("holds for functions/ and src/ outside src/providers/", () => {
    const files = [...sources(path.join(root, "functions")), ...sources(path.join(root, "src"))].filter(
      (f) => !f.startsWith(path.join(root, "src", "providers") + path.sep),
    );
    expect(files.length).toBeGreaterThan(20);
    const found = files.flatMap((f) => branchesOnProviderName(readFileSync(f, "utf8")).map((line) => `${path.relative(root, f)}: ${line.trim()}`));
    expect(found).toEqual([]);
  });
});
