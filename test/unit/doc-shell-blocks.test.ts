/**
 * Every shell line of the README and of docs/ that a user runs is run by the walkthrough
 * (test/e2e/lessor.test.ts), so the docs cannot drift; a block a user cannot run here says why
 * (docs/tests.md "The documentation's shell lines"). This fails, without a server, on what would
 * let a command slip past the walkthrough: a fence with no language, a shell fenced as anything
 * but `sh`, an `sh` block neither run nor marked with a reason, a marker that marks nothing, and a
 * walkthrough that no longer reads every page of docs/.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { documentedFiles, fences, fencesOf, MARKER_LIKE, NOT_RUN, runnableShellBlocks } from "../support/doc-blocks";

const root = path.join(import.meta.dirname, "..", "..");
const files = documentedFiles(root);
/** Languages that are a shell under another name: a command fenced so would not be run. */
const OTHER_SHELLS = new Set(["bash", "shell", "zsh", "shell-session", "sh-session", "shellscript", "fish", "ksh"]);

describe("the documented files", () => {
  it("are README.md and every markdown file of docs/", () => {
    const docs = readdirSync(path.join(root, "docs")).filter((name) => name.endsWith(".md"));
    expect(files).toEqual(["README.md", ...docs.sort().map((name) => `docs/${name}`)]);
    expect(files).toContain("docs/README.md");
  });

  it("are read by the walkthrough, which runs exactly the unmarked sh blocks", () => {
    const walkthrough = readFileSync(path.join(root, "test", "e2e", "lessor.test.ts"), "utf8");
    expect(walkthrough).toContain("documentedFiles(repoRoot)");
    expect(walkthrough).toContain("runnableShellBlocks(repoRoot, file)");
    for (const file of files) {
      const sh = fencesOf(root, file).filter((f) => f.lang === "sh");
      expect(runnableShellBlocks(root, file)).toEqual(sh.filter((f) => f.notRun === null));
    }
  });
});

describe.each(files)("%s", (file) => {
  const text = readFileSync(path.join(root, file), "utf8");
  const all = fences(text, file);
  const where = (f: { file: string; line: number }) => `${f.file}:${f.line}`;

  it("names a language on every fence", () => {
    expect(all.filter((f) => f.lang === "").map(where), "fence a command as sh, and anything else as text, json, console, ...").toEqual([]);
  });

  it("fences every shell as sh", () => {
    expect(all.filter((f) => OTHER_SHELLS.has(f.lang.toLowerCase())).map((f) => `${where(f)} ${f.lang}`)).toEqual([]);
  });

  it("runs every sh block, or says why not", () => {
    for (const block of all.filter((f) => f.lang === "sh")) {
      if (block.notRun === null) continue;
      // A reason a reader can act on: a few words, not a bare "no".
      expect(block.notRun.split(/\s+/).length, `${where(block)}: the reason is too short: "${block.notRun}"`).toBeGreaterThanOrEqual(3);
    }
    // A line before an sh fence that looks like a marker but is not one would leave the block run.
    const malformed = all.filter((f) => f.lang === "sh" && f.notRun === null && MARKER_LIKE.test(f.before));
    expect(malformed.map((f) => `${where(f)}: ${f.before}`), "write the marker as <!-- not run: REASON -->").toEqual([]);
  });

  it("has every marker directly before an sh fence", () => {
    const lines = text.split("\n");
    const inside = new Set<number>();
    for (const f of all) for (let n = f.line; n <= f.line + f.code.split("\n").length; n++) inside.add(n);
    const openers = new Map(all.map((f) => [f.line, f]));
    const stray: string[] = [];
    lines.forEach((line, i) => {
      const n = i + 1;
      if (inside.has(n) || !MARKER_LIKE.test(line.trim())) return;
      const next = openers.get(n + 1);
      if (!NOT_RUN.test(line.trim()) || next?.lang !== "sh") stray.push(`${file}:${n}: ${line.trim()}`);
    });
    expect(stray, "a marker belongs on the line directly before the ```sh fence it marks").toEqual([]);
  });
});

describe("README.md", () => {
  const readme = readFileSync(path.join(root, "README.md"), "utf8");

  it("says npm test is the one test command, and has a walkthrough to run", () => {
    expect(readme).toMatch(/^npm ci && npm test +# the one test command$/m);
    expect(runnableShellBlocks(root, "README.md").length).toBeGreaterThan(0);
  });

  it('keeps the two notebook cells clients/python/tests/test_readme.py runs under "## Python"', () => {
    const section = /^## Python\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(readme)?.[1];
    expect(section, 'README.md has no "## Python" section').toBeDefined();
    const cells = fences(section!, "README.md").filter((f) => f.lang === "python");
    expect(cells).toHaveLength(2);
    expect(cells[0]!.code).toContain("lessor.run(");
    expect(cells[1]!.code).toContain("from openai import OpenAI");
  });
});
