/**
 * The fenced blocks of lessor's documentation (README.md and docs/*.md), read the one way both
 * their tests read them: the walkthrough (test/e2e/lessor.test.ts) runs every ```sh block that is
 * not marked, and test/unit/doc-shell-blocks.test.ts fails on a block that is neither run nor
 * marked with a reason (docs/tests.md "The documentation's shell lines").
 *
 * A block a user cannot run against a local `wrangler dev` (a deploy to a Cloudflare account, a
 * real provider's key) says so on the line directly before its fence:
 *
 *     <!-- not run: needs a Cloudflare account -->
 *     ```sh
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** The marker of a ```sh block the walkthrough does not run, with its reason. */
export const NOT_RUN = /^<!-- not run: (.*?) -->$/;
/** Any line that looks like a marker, well formed or not. */
export const MARKER_LIKE = /^<!--\s*not[ -]run\b/i;

export interface Fence {
  /** The file, relative to the repository's root. */
  file: string;
  /** The fence's opening line, 1-based. */
  line: number;
  /** The language after the backticks ("" when none). */
  lang: string;
  /** The block's text, each line with the fence's indentation removed, ending in a newline. */
  code: string;
  /** The line directly before the fence. */
  before: string;
  /** The reason of a `<!-- not run: ... -->` marker directly before the fence, else null. */
  notRun: string | null;
}

/** README.md first, then every markdown file of docs/, by name: the files the walkthrough runs. */
export function documentedFiles(root: string): string[] {
  const docs = readdirSync(path.join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`);
  return ["README.md", ...docs];
}

/** Every fenced block of `markdown`; a fence left open runs to the end of the file. */
export function fences(markdown: string, file: string): Fence[] {
  const lines = markdown.split("\n");
  const out: Fence[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)(`{3,})([^`\s]*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, ticks, lang] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      if (lines[j]!.trim() === ticks) break;
      body.push(lines[j]!.startsWith(indent!) ? lines[j]!.slice(indent!.length) : lines[j]!);
    }
    const before = i > 0 ? lines[i - 1]!.trim() : "";
    out.push({ file, line: i + 1, lang: lang!, code: body.map((l) => `${l}\n`).join(""), before, notRun: NOT_RUN.exec(before)?.[1]?.trim() ?? null });
    i = j;
  }
  return out;
}

export function fencesOf(root: string, file: string): Fence[] {
  return fences(readFileSync(path.join(root, file), "utf8"), file);
}

/** The ```sh blocks of `file` the walkthrough runs, in order: every one not marked `not run`. */
export function runnableShellBlocks(root: string, file: string): Fence[] {
  return fencesOf(root, file).filter((f) => f.lang === "sh" && f.notRun === null);
}
