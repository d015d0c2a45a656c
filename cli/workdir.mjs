// @ts-check
/**
 * `lessor run --workdir DIR`: the directory packed into one bundle (a tar archive compressed with
 * gzip) and uploaded once, `POST /v1/uploads` (docs/artifacts.md, "Bundles"). What is never
 * shipped: the ALWAYS_LEFT_OUT names at any depth (a repository's history, secrets, installed
 * dependencies, caches), what `.gitignore` files match (the root's and nested ones, with git's
 * precedence: a deeper file wins, the last matching line of a file wins, nothing under an
 * excluded directory is looked at), what `.lessorignore` files match (the same syntax and
 * scoping; a `!` line in one re-includes only what another `.lessorignore` excluded, never what
 * `.gitignore` did), and symbolic links whose target leaves the directory.
 */
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import ignore from "ignore";
import { create as tarCreate } from "tar";
import { apiError, transfer } from "./client.mjs";
import { CliError, usageError } from "./exit-codes.mjs";
import { bytesText, table } from "./format.mjs";

/** Names no bundle ever holds, at any depth (a pattern without a slash, as in a .gitignore). */
export const ALWAYS_LEFT_OUT = [".git", ".env*", ".dev.vars", "node_modules", "__pycache__"];

/** The files whose lines say what else to leave out, read in every directory. */
const IGNORE_FILES = /** @type {const} */ ([".gitignore", ".lessorignore"]);

/** Groups of what was left out that the summary shows; the rest are counted in one line. */
const SUMMARY_GROUPS = 12;
/** Paths shown for each group. */
const SUMMARY_EXAMPLES = 3;

/**
 * Why something was left out: the rule that matched it (`.env*` and the file that holds it, or
 * `always`), or what kind of entry it is.
 * @typedef {{ rule: string, source: string }} Reason
 */

/**
 * What a walk of the directory found.
 * @typedef {{
 *   root: string,
 *   entries: string[],
 *   files: number,
 *   bytes: number,
 *   topBytes: Map<string, number>,
 *   leftOut: Array<{ path: string, reason: Reason }>,
 * }} Walk
 */

/**
 * The ignore rules of one directory's `.gitignore` or `.lessorignore`: its patterns, for paths
 * relative to `base` (the directory, relative to the root; "" for the root).
 * @typedef {{ base: string, source: string, rules: import("ignore").Ignore }} RuleFile
 */

/** @param {string} text */
const ignoreOf = (text) => ignore({ ignorecase: false }).add(text);

/** The rules that leave out ALWAYS_LEFT_OUT, checked before any file of the directory's. */
const ALWAYS = /** @type {RuleFile} */ ({ base: "", source: "always", rules: ignoreOf(ALWAYS_LEFT_OUT.join("\n")) });

/**
 * Whether the chain of rule files (the root's first) leaves `rel` out, as git decides it: the
 * deepest file that has a matching line decides, by its last matching line.
 * @param {RuleFile[]} chain
 * @param {string} rel the path relative to the root, `/`-separated, a directory's with a trailing `/`
 * @returns {Reason | null}
 */
function matched(chain, rel) {
  for (let i = chain.length - 1; i >= 0; i--) {
    const file = /** @type {RuleFile} */ (chain[i]);
    const r = file.rules.test(file.base ? rel.slice(file.base.length + 1) : rel);
    if (r.ignored) return { rule: /** @type {{ pattern: string }} */ (r.rule).pattern, source: file.source };
    if (r.unignored) return null;
  }
  return null;
}

/** `a` is `b` or below it. @param {string} a @param {string} b */
const within = (a, b) => a === b || a.startsWith(b.endsWith(path.sep) ? b : b + path.sep);

/**
 * Walks `dir` and decides what the bundle holds: every directory, regular file and symbolic link
 * that no rule leaves out, sorted, `/`-separated and relative to the directory (a directory
 * listed before what it holds, so an empty one is kept too).
 * @param {string} dir
 * @returns {Walk}
 */
export function walkWorkdir(dir) {
  let root;
  try {
    root = realpathSync(dir);
    if (!statSync(root).isDirectory()) throw usageError(`--workdir: ${dir} is not a directory`);
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw usageError(`--workdir: cannot read ${dir}: ${/** @type {Error} */ (e).message}`);
  }
  /** @type {Walk} */
  const walk = { root, entries: [], files: 0, bytes: 0, topBytes: new Map(), leftOut: [] };
  /** @param {string} rel @param {number} bytes */
  const count = (rel, bytes) => {
    walk.bytes += bytes;
    const top = /** @type {string} */ (rel.split("/")[0]);
    walk.topBytes.set(top, (walk.topBytes.get(top) ?? 0) + bytes);
  };

  /**
   * @param {string} relDir "" for the root
   * @param {{ git: RuleFile[], lessor: RuleFile[] }} chains
   */
  const visit = (relDir, chains) => {
    const abs = relDir ? path.join(root, ...relDir.split("/")) : root;
    const names = readdirSync(abs).sort();
    // This directory's own rule files apply to everything below it.
    /** @type {{ git: RuleFile[], lessor: RuleFile[] }} */
    const here = { git: [...chains.git], lessor: [...chains.lessor] };
    for (const name of IGNORE_FILES) {
      if (!names.includes(name)) continue;
      const file = path.join(abs, name);
      if (!lstatSync(file).isFile()) continue;
      const rules = { base: relDir, source: relDir ? `${relDir}/${name}` : name, rules: ignoreOf(readFileSync(file, "utf8")) };
      (name === ".gitignore" ? here.git : here.lessor).push(rules);
    }
    for (const name of names) {
      const rel = relDir ? `${relDir}/${name}` : name;
      const full = path.join(abs, name);
      const st = lstatSync(full);
      const probe = st.isDirectory() ? `${rel}/` : rel;
      const reason = matched([ALWAYS], probe) ?? matched(here.git, probe) ?? matched(here.lessor, probe);
      if (reason) {
        walk.leftOut.push({ path: probe, reason });
        continue;
      }
      if (st.isSymbolicLink()) {
        if (!linkStaysInside(root, full)) {
          walk.leftOut.push({ path: rel, reason: { rule: "symbolic link out of the directory", source: "" } });
          continue;
        }
        walk.entries.push(rel);
      } else if (st.isDirectory()) {
        walk.entries.push(rel);
        visit(rel, here);
      } else if (st.isFile()) {
        walk.entries.push(rel);
        walk.files++;
        count(rel, st.size);
      } else {
        walk.leftOut.push({ path: rel, reason: { rule: "not a file, directory or link", source: "" } });
      }
    }
  };
  visit("", { git: [], lessor: [] });
  return walk;
}

/**
 * Whether a symbolic link's target stays inside `root`: a relative target that resolves inside
 * it, and, when it exists, resolves inside it through every other link on the way too. An
 * absolute target names a path on this machine, which the machine that unpacks it does not have.
 * @param {string} root a real path
 * @param {string} link
 */
export function linkStaysInside(root, link) {
  const target = readlinkSync(link);
  if (path.isAbsolute(target)) return false;
  if (!within(path.resolve(path.dirname(link), target), root)) return false;
  try {
    return within(realpathSync(link), root);
  } catch {
    // A link to nothing that would be inside: kept as the link it is.
    return true;
  }
}

/**
 * What was left out, for a person: one row per rule (a row counts the entries it left out, an
 * excluded directory once), the most frequent first, bounded to SUMMARY_GROUPS rows with a few
 * paths each. Empty when nothing was left out.
 * @param {Walk["leftOut"]} leftOut
 */
export function leftOutSummary(leftOut) {
  if (leftOut.length === 0) return "";
  /** @type {Map<string, { label: string, paths: string[] }>} */
  const groups = new Map();
  for (const { path: p, reason } of leftOut) {
    const label = reason.source === "" ? reason.rule : reason.source === "always" ? `${reason.rule} (always)` : `${reason.rule} (${reason.source})`;
    const group = groups.get(label) ?? { label, paths: [] };
    group.paths.push(p);
    groups.set(label, group);
  }
  const sorted = [...groups.values()].sort((a, b) => b.paths.length - a.paths.length || a.label.localeCompare(b.label));
  const shown = sorted.slice(0, SUMMARY_GROUPS);
  const rows = shown.map((g) => [g.label, String(g.paths.length), g.paths.slice(0, SUMMARY_EXAMPLES).join(", ") + (g.paths.length > SUMMARY_EXAMPLES ? ", ..." : "")]);
  const rest = sorted.slice(SUMMARY_GROUPS);
  if (rest.length > 0) rows.push([`${rest.length} more rules`, String(rest.reduce((n, g) => n + g.paths.length, 0)), ""]);
  return `left out:\n${table(["RULE", "ENTRIES", "PATHS"], rows, { right: ["ENTRIES"] }).replace(/^/gm, "  ")}`;
}

/**
 * Packs the walk's entries into `file`: a tar archive (symbolic links as links, no owner names or
 * ids of this machine) compressed with gzip, hashed as it is written.
 * @param {Walk} walk
 * @param {string} file
 * @returns {Promise<{ size: number, sha256: string }>}
 */
export async function packWorkdir(walk, file) {
  const hash = createHash("sha256");
  let size = 0;
  const out = await open(file, "w", 0o600);
  try {
    const pack = tarCreate({ gzip: true, cwd: walk.root, portable: true, noDirRecurse: true, follow: false, strict: true }, walk.entries);
    for await (const chunk of pack) {
      const bytes = /** @type {Buffer} */ (chunk);
      hash.update(bytes);
      size += bytes.length;
      await out.write(bytes);
    }
  } finally {
    await out.close();
  }
  return { size, sha256: hash.digest("hex") };
}

/** The largest entries at the directory's top, for a bundle too large to send. @param {Walk} walk */
function largestText(walk) {
  return [...walk.topBytes.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([name, bytes]) => `${name} ${bytesText(bytes)}`)
    .join(", ");
}

/**
 * Packs `dir` and uploads it, saying on stderr what was left out and what it sends. Answers the
 * upload (`{id, size, sha256, ...}`).
 * @param {import("./commands.mjs").Ctx} ctx
 * @param {string} dir
 */
export async function uploadWorkdir(ctx, dir) {
  const walk = walkWorkdir(dir);
  const summary = leftOutSummary(walk.leftOut);
  if (summary) ctx.note(summary);
  const temp = await mkdtemp(path.join(tmpdir(), "lessor-workdir-"));
  try {
    const file = path.join(temp, "workdir.tar.gz");
    const { size, sha256 } = await packWorkdir(walk, file);
    ctx.note(`workdir ${walk.root}: ${walk.files} files, ${bytesText(walk.bytes)}; sending ${bytesText(size)} (gzip, sha256 ${sha256.slice(0, 12)})`);
    const fh = await open(file, "r");
    try {
      const { response, close } = await transfer(ctx.config(), ctx.io.version, "/v1/uploads", {
        method: "POST",
        headers: { "content-type": "application/gzip", "content-length": String(size), "lessor-sha256": sha256 },
        body: (/** @type {() => void} */ touch) => fileStream(fh, touch),
      });
      try {
        const body = await response.json().catch(() => null);
        if (!response.ok) throw tooLarge(apiError(response, body), size, walk);
        return /** @type {import("./api-types").components["schemas"]["Upload"]} */ (body);
      } finally {
        close();
      }
    } finally {
      await fh.close().catch(() => undefined);
    }
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/**
 * A bundle over the server's limit, said so a person knows what to do next.
 * @param {CliError} err @param {number} size @param {Walk} walk
 */
function tooLarge(err, size, walk) {
  // upload_too_large is the contract's; payload_too_large (details.max_bytes) what the API's general body limit answers.
  if (err.code !== "upload_too_large" && err.code !== "payload_too_large") return err;
  const limitBytes = err.details.limit_bytes ?? err.details.max_bytes;
  const limit = typeof limitBytes === "number" ? ` of ${bytesText(limitBytes)}` : "";
  return new CliError(
    `the workdir bundle is ${bytesText(size)}, over lessor's limit${limit} for one upload; the largest entries of ${walk.root}: ${largestText(walk)}. Leave more out with a .lessorignore`,
    err.exitCode,
    { code: err.code, details: { ...err.details, size_bytes: size }, requestId: err.requestId },
  );
}

/** Chunks read from an upload's file at a time. */
const CHUNK = 1 << 16;

/**
 * An open file as a request body, `touch` called for every chunk read (what keeps the transfer's
 * no-progress timer from firing).
 * @param {import("node:fs/promises").FileHandle} fh
 * @param {() => void} touch
 * @returns {ReadableStream<Uint8Array>}
 */
export function fileStream(fh, touch) {
  let position = 0;
  return new ReadableStream({
    async pull(controller) {
      const buffer = Buffer.allocUnsafe(CHUNK);
      const { bytesRead } = await fh.read(buffer, 0, CHUNK, position);
      if (bytesRead === 0) return controller.close();
      position += bytesRead;
      touch();
      controller.enqueue(new Uint8Array(buffer.buffer, buffer.byteOffset, bytesRead));
    },
  });
}
