/**
 * `lessor run --workdir`: what a bundle holds. A real directory with what must never ship (.git,
 * .env files, .dev.vars, node_modules and __pycache__ at any depth), .gitignore files at the root
 * and below with negations, a .lessorignore, and symbolic links in and out of it; the tar archive
 * packed from it is read back with tar itself, and its entries are exactly what should ship. The
 * ignore rules are checked against git's own answer for the same tree; the summary of what was
 * left out is bounded.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { list as tarList } from "tar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leftOutSummary, linkStaysInside, packWorkdir, walkWorkdir } from "../../cli/workdir.mjs";

let base: string;
let root: string;

/** Writes each file (a path ending in `/` is a directory) under `dir`. */
function tree(dir: string, files: Record<string, string>) {
  for (const [rel, text] of Object.entries(files)) {
    const full = path.join(dir, rel);
    if (rel.endsWith("/")) {
      mkdirSync(full, { recursive: true });
      continue;
    }
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
}

beforeAll(() => {
  base = mkdtempSync(path.join(tmpdir(), "lessor-workdir-test-"));
  root = path.join(base, "repo");
  writeFileSync(path.join(base, "outside.txt"), "not yours\n");
  tree(root, {
    ".git/HEAD": "ref: refs/heads/main\n",
    ".git/config": "[core]\n",
    ".env": "SECRET=1\n",
    ".env.local": "SECRET=2\n",
    ".dev.vars": "LESSOR_BOOTSTRAP_TOKEN=x\n",
    "node_modules/left-pad/index.js": "module.exports = 1;\n",
    "web/node_modules/x.js": "1\n",
    "web/app.js": "console.log(1)\n",
    "__pycache__/a.cpython-311.pyc": "\u0000",
    "src/__pycache__/b.cpython-311.pyc": "\u0000",
    ".gitignore": "*.log\n!keep.log\nbuild/\n/data\n",
    "app.log": "noise\n",
    "logs/b.log": "noise\n",
    "keep.log": "kept\n",
    "build/out.bin": "binary\n",
    "data/big.bin": "big\n",
    "src/data/x.txt": "anchored rules apply at their own directory only\n",
    "src/train.py": "print('train')\n",
    "src/.gitignore": "*.tmp\n!important.tmp\n",
    "src/a.tmp": "scratch\n",
    "src/important.tmp": "kept\n",
    "src/deep/c.tmp": "scratch\n",
    "a.tmp": "the nested .gitignore does not apply above it\n",
    ".lessorignore": "secrets/\n*.ckpt\n",
    "secrets/key.pem": "-----BEGIN-----\n",
    "model.ckpt": "weights\n",
    "README.md": "# repo\n",
    "empty/": "",
  });
  symlinkSync("../outside.txt", path.join(root, "link-out"));
  symlinkSync(path.join(root, "README.md"), path.join(root, "link-abs"));
  symlinkSync("src/train.py", path.join(root, "link-in"));
  symlinkSync("../link-out", path.join(root, "src", "link-via"));
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

const SHIPPED = [
  ".gitignore",
  ".lessorignore",
  "README.md",
  "a.tmp",
  "empty",
  "keep.log",
  "link-in",
  "logs",
  "src",
  "src/.gitignore",
  "src/data",
  "src/data/x.txt",
  "src/deep",
  "src/important.tmp",
  "src/train.py",
  "web",
  "web/app.js",
];

describe("what a workdir bundle holds", () => {
  it("everything but what is always left out, what .gitignore and .lessorignore files match, and links that leave the directory", () => {
    const walk = walkWorkdir(root);
    expect([...walk.entries].sort()).toEqual(SHIPPED);
    expect(walk.files).toBe(10);
    const left = Object.fromEntries(walk.leftOut.map((l) => [l.path, `${l.reason.rule}|${l.reason.source}`]));
    expect(left).toEqual({
      ".git/": ".git|always",
      ".env": ".env*|always",
      ".env.local": ".env*|always",
      ".dev.vars": ".dev.vars|always",
      "node_modules/": "node_modules|always",
      "web/node_modules/": "node_modules|always",
      "__pycache__/": "__pycache__|always",
      "src/__pycache__/": "__pycache__|always",
      "app.log": "*.log|.gitignore",
      "logs/b.log": "*.log|.gitignore",
      "build/": "build/|.gitignore",
      "data/": "/data|.gitignore",
      "src/a.tmp": "*.tmp|src/.gitignore",
      "src/deep/c.tmp": "*.tmp|src/.gitignore",
      "secrets/": "secrets/|.lessorignore",
      "model.ckpt": "*.ckpt|.lessorignore",
      "link-out": "symbolic link out of the directory|",
      "link-abs": "symbolic link out of the directory|",
      "src/link-via": "symbolic link out of the directory|",
    });
  });

  it("the tar archive holds exactly those entries, links as links, and its digest and size are the file's", async () => {
    const walk = walkWorkdir(root);
    const file = path.join(base, "bundle.tar.gz");
    const { size, sha256 } = await packWorkdir(walk, file);
    const bytes = readFileSync(file);
    expect(size).toBe(bytes.length);
    expect(sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
    expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));

    const entries: Array<{ path: string; type: string; linkpath: string | undefined; uid: number | undefined }> = [];
    await tarList({ file, onReadEntry: (e) => void entries.push({ path: e.path, type: e.type, linkpath: e.linkpath, uid: e.uid }) });
    expect(entries.map((e) => e.path.replace(/\/$/, "")).sort()).toEqual(SHIPPED);
    expect(entries.find((e) => e.path === "link-in")).toMatchObject({ type: "SymbolicLink", linkpath: "src/train.py" });
    expect(entries.find((e) => e.path === "src/train.py")).toMatchObject({ type: "File" });
    // Nothing of this machine's users (portable).
    expect(entries.every((e) => !e.uid)).toBe(true);
    // What must never ship is not in the bytes either.
    const tarText = execFileSync("tar", ["-xzOf", file, "--wildcards", "*"], { encoding: "latin1" });
    expect(tarText).not.toContain("SECRET=");
    expect(tarText).not.toContain("BEGIN");
  });

  it(".gitignore files (root, nested, negations, anchors) leave out what git leaves out", () => {
    const repo = path.join(base, "git-check");
    tree(repo, {
      ".gitignore": "*.log\n!keep.log\nbuild/\n/data\ndocs/*\n!docs/api.md\n",
      "app.log": "",
      "keep.log": "",
      "build/x": "",
      "data/y": "",
      "src/data/z": "",
      "docs/api.md": "",
      "docs/other.md": "",
      "src/.gitignore": "*.tmp\n!important.tmp\ngen/\n",
      "src/a.tmp": "",
      "src/important.tmp": "",
      "src/gen/x.py": "",
      "src/deep/c.tmp": "",
      "src/deep/.gitignore": "!c.tmp\n",
      "Weird Name.TXT": "",
      "a.tmp": "",
    });
    execFileSync("git", ["init", "-q", repo]);
    const git = execFileSync("git", ["-C", repo, "ls-files", "--others", "--exclude-standard"], { encoding: "utf8" }).trim().split("\n").sort();
    const walk = walkWorkdir(repo);
    const files = walk.entries.filter((e) => !walk.entries.some((other) => other.startsWith(`${e}/`)) && e !== "empty").sort();
    expect(files).toEqual(git);
    expect(files).toContain("src/deep/c.tmp");
  });

  it("a link is kept only when its target, relative and resolved, stays inside", () => {
    const real = walkWorkdir(root).root;
    expect(linkStaysInside(real, path.join(real, "link-in"))).toBe(true);
    expect(linkStaysInside(real, path.join(real, "link-out"))).toBe(false);
    expect(linkStaysInside(real, path.join(real, "link-abs"))).toBe(false);
    expect(linkStaysInside(real, path.join(real, "src", "link-via"))).toBe(false);
  });

  it("a directory that is not one is a usage error", () => {
    expect(() => walkWorkdir(path.join(root, "README.md"))).toThrow(expect.objectContaining({ exitCode: 2 }));
    expect(() => walkWorkdir(path.join(root, "nowhere"))).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});

describe("the summary of what was left out", () => {
  it("one row per rule with its count and a few paths, most first", () => {
    const text = leftOutSummary(walkWorkdir(root).leftOut);
    const lines = text.split("\n");
    expect(lines[0]).toBe("left out:");
    expect(lines[1]).toMatch(/^ {2}RULE +ENTRIES +PATHS$/);
    expect(text).toMatch(/^ {2}symbolic link out of the directory +3 +link-abs, link-out, src\/link-via$/m);
    expect(text).toMatch(/^ {2}\.env\* \(always\) +2 +\.env, \.env\.local$/m);
    expect(text).toMatch(/^ {2}node_modules \(always\) +2 +node_modules\/, web\/node_modules\/$/m);
    expect(text).toMatch(/^ {2}\*\.tmp \(src\/\.gitignore\) +2 +src\/a\.tmp, src\/deep\/c\.tmp$/m);
    expect(text).toMatch(/^ {2}secrets\/ \(\.lessorignore\) +1 +secrets\/$/m);
    expect(text).toMatch(/^ {2}\.git \(always\) +1 +\.git\/$/m);
    expect(lines[2]).toMatch(/^ {2}symbolic link out of the directory +3/);
  });

  it("bounded: a dozen rules with three paths each, then one line for the rest", () => {
    const leftOut = Array.from({ length: 40 }, (_, i) => Array.from({ length: 5 }, (_, j) => ({ path: `d${i}/f${j}.x`, reason: { rule: `rule${i}`, source: ".gitignore" } }))).flat();
    const lines = leftOutSummary(leftOut).split("\n");
    expect(lines).toHaveLength(2 + 12 + 1);
    expect(lines[2]).toMatch(/^ {2}rule0 \(\.gitignore\) +5 +d0\/f0\.x, d0\/f1\.x, d0\/f2\.x, \.\.\.$/);
    expect(lines.at(-1)).toMatch(/^ {2}28 more rules +140$/);
    expect(leftOutSummary([])).toBe("");
  });
});
