// @ts-check
/**
 * A lease's artifacts (docs/artifacts.md, "Artifacts"): `lessor artifacts ls`, `lessor artifacts
 * get`, and what `lessor run --out DIR` brings back when its job ends. A path the server names is
 * never trusted: it must be one the contract allows (docs/artifacts.md, "Paths") and stay inside
 * the directory it is written to, through any link already there. Every file is written to a
 * temporary file next to its place, checked against its SHA-256 and only then renamed into place,
 * so a reader never sees a partial or corrupt file under an artifact's name; a temporary file left
 * by a broken download is continued with a Range request the next time.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, mkdir, open, realpath, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { apiError, call, stallError, transfer } from "./client.mjs";
import { CliError, EXIT, usageError } from "./exit-codes.mjs";
import { bytesText, jsonText, relative, table, visible } from "./format.mjs";
import { leaseIdOf, parseLimit } from "./commands.mjs";

/** @typedef {import("./commands.mjs").Ctx} Ctx */
/** @typedef {import("./api-types").components["schemas"]["Artifact"]} Artifact */
/** @typedef {{ path: string, size: number, sha256: string, skipped?: boolean }} Got */
/** @typedef {{ path: string, error: CliError }} Failed */

/** The suffix of an artifact's temporary file, next to where it goes. */
export const PARTIAL_SUFFIX = ".lessor-partial";
/** Files downloaded at once. */
const PARALLEL = 4;
/** Artifacts asked for per page. */
const PAGE = 200;
/** The longest path the contract allows, in UTF-8 bytes. */
const PATH_MAX_BYTES = 1024;

/**
 * Whether `p` is a path the contract allows an artifact (docs/artifacts.md, "Paths"): relative,
 * at most 1,024 bytes of UTF-8, `/`-separated segments none of which is empty, `.` or `..`, no
 * NUL, control character or backslash.
 * @param {unknown} p
 * @returns {p is string}
 */
export function isArtifactPath(p) {
  if (typeof p !== "string" || p === "" || Buffer.byteLength(p, "utf8") > PATH_MAX_BYTES) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\\]/.test(p) || p.startsWith("/")) return false;
  return p.split("/").every((s) => s !== "" && s !== "." && s !== "..");
}

/**
 * Where artifact `p` goes under `dir`, or a CliError when the server named a path that is not an
 * artifact's or that would leave `dir`.
 * @param {string} dir
 * @param {unknown} p
 */
export function artifactTarget(dir, p) {
  const refused = () =>
    new CliError(`lessor named an artifact ${visible(JSON.stringify(p))}: not a path inside ${dir}; refused`, EXIT.UNEXPECTED, { code: "unsafe_path", details: { path: p } });
  if (!isArtifactPath(p)) throw refused();
  const root = path.resolve(dir);
  const target = path.resolve(root, ...p.split("/"));
  const rel = path.relative(root, target);
  if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) throw refused();
  return target;
}

/**
 * Makes the directories `target` goes in and checks, once they exist, that no link among them
 * leads out of `dir`.
 * @param {string} dir
 * @param {string} target
 * @param {string} p the artifact's path, for the message
 */
async function prepareParent(dir, target, p) {
  const parent = path.dirname(target);
  await mkdir(parent, { recursive: true });
  const [realRoot, realParent] = await Promise.all([realpath(dir), realpath(parent)]);
  if (realParent !== realRoot && !realParent.startsWith(realRoot + path.sep)) {
    throw new CliError(`${p}: its directory leads out of ${dir} through a symbolic link; refused`, EXIT.UNEXPECTED, { code: "unsafe_path", details: { path: p } });
  }
}

/** A file's SHA-256 and size, as it is on disk. @param {string} file */
async function digestOf(file) {
  const hash = createHash("sha256");
  let size = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(/** @type {Buffer} */ (chunk));
    size += /** @type {Buffer} */ (chunk).length;
  }
  return { sha256: hash.digest("hex"), size };
}

/** The URL path of artifact `p` of lease `id`, each segment percent-encoded. @param {string} id @param {string} p */
export const artifactRoute = (id, p) => `/v1/leases/${encodeURIComponent(id)}/artifacts/${p.split("/").map(encodeURIComponent).join("/")}`;

/** @param {string} p @param {string} got @param {string} want */
const mismatch = (p, got, want) =>
  new CliError(`${p}: its SHA-256 is ${got}, lessor said ${want}; not kept`, EXIT.INCOMPLETE, { code: "checksum_mismatch", details: { path: p, sha256: got, expected_sha256: want } });

/**
 * Downloads one artifact of lease `id` into `dir`, atomically: into `<target>.lessor-partial`,
 * continued with `Range` when such a file is there from a download that broke, checked against
 * the digest lessor answers in `Lessor-Sha256` (and the listing's, when given), then renamed into
 * place. A file already in place with the expected digest is left as it is. A digest that does
 * not match removes the temporary file: after a continued download it is fetched once more from
 * the start, else it is an error naming the file.
 * @param {{ url: string, apiKey?: string }} config
 * @param {string} version
 * @param {string} id
 * @param {string} dir
 * @param {string} p the artifact's path
 * @param {{ sha256?: string, size?: number }} [expected] what the listing said
 * @returns {Promise<Got>}
 */
export async function downloadArtifact(config, version, id, dir, p, expected = {}) {
  const target = artifactTarget(dir, p);
  await prepareParent(dir, target, p);
  if (expected.sha256) {
    const there = await lstat(target).catch(() => null);
    if (there?.isFile() && there.size === expected.size && (await digestOf(target)).sha256 === expected.sha256) {
      return { path: p, size: there.size, sha256: expected.sha256, skipped: true };
    }
  }
  const partial = target + PARTIAL_SUFFIX;
  for (let attempt = 0; ; attempt++) {
    const have = await lstat(partial).catch(() => null);
    // Something that is not a plain file under the temporary name (a link someone left) is removed, never written through.
    if (have && !have.isFile()) await rm(partial, { recursive: true, force: true });
    const from = have?.isFile() && attempt === 0 ? have.size : 0;
    const got = await fetchInto(config, version, id, p, partial, from, expected);
    const want = got.sha256Header ?? expected.sha256;
    if (!want) {
      await rm(partial, { force: true });
      throw new CliError(`${p}: lessor answered no Lessor-Sha256 to check it by; not kept`, EXIT.UNEXPECTED, { code: "checksum_missing", details: { path: p } });
    }
    if (got.sha256 === want && (!expected.sha256 || expected.sha256 === want)) {
      await rename(partial, target);
      return { path: p, size: got.size, sha256: got.sha256 };
    }
    await rm(partial, { force: true });
    // A continued download may have started from bytes of an older version: once more, from zero.
    if (got.resumed && attempt === 0) continue;
    throw mismatch(p, got.sha256, expected.sha256 && expected.sha256 !== want ? expected.sha256 : want);
  }
}

/**
 * One GET of an artifact into `partial`: from byte `from` with a Range when `from` > 0 (appended
 * to what is there when the answer is 206 for that range; written from the start when it is a
 * 200), hashed as it goes (the bytes already there first).
 * @param {{ url: string, apiKey?: string }} config
 * @param {string} version
 * @param {string} id
 * @param {string} p
 * @param {string} partial
 * @param {number} from
 * @param {{ size?: number }} expected
 */
async function fetchInto(config, version, id, p, partial, from, expected) {
  // All of it there already: nothing to ask for but the digest, which a one-byte range answers too.
  const start = expected.size !== undefined && from > expected.size ? 0 : from;
  const headers = /** @type {Record<string, string>} */ ({});
  if (start > 0 && start === expected.size) headers.range = `bytes=${start - 1}-`;
  else if (start > 0) headers.range = `bytes=${start}-`;
  const { response, touch, close } = await transfer(config, version, artifactRoute(id, p), { headers });
  try {
    if (response.status === 416) {
      // The range is past the file's end (it changed): from the start.
      await response.body?.cancel();
      close();
      return fetchInto(config, version, id, p, partial, 0, {});
    }
    if (!response.ok) throw apiError(response, await response.json().catch(() => null));
    const hash = createHash("sha256");
    let offset = 0;
    let resumed = false;
    if (response.status === 206) {
      const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers.get("content-range") ?? "");
      const first = range ? Number(range[1]) : NaN;
      const asked = headers.range === undefined ? NaN : Number(headers.range.slice("bytes=".length, -1));
      if (first !== asked) {
        await response.body?.cancel();
        throw new CliError(`${p}: lessor answered the range ${response.headers.get("content-range")} for ${headers.range ?? "the whole file"}`, EXIT.UNEXPECTED, { code: "bad_range" });
      }
      offset = first;
      resumed = true;
    }
    const fh = await open(partial, offset > 0 ? "r+" : "w", 0o644);
    let size = offset;
    try {
      if (offset > 0) {
        // The bytes already there count in the digest; the file is cut where the answer continues it.
        await fh.truncate(offset);
        const buffer = Buffer.allocUnsafe(1 << 16);
        for (let at = 0; at < offset; ) {
          const { bytesRead } = await fh.read(buffer, 0, Math.min(buffer.length, offset - at), at);
          if (bytesRead === 0) break;
          hash.update(buffer.subarray(0, bytesRead));
          at += bytesRead;
        }
      }
      if (response.body) {
        const reader = response.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          touch();
          hash.update(value);
          await fh.write(value, 0, value.length, size);
          size += value.length;
        }
      }
      await fh.datasync();
    } finally {
      await fh.close();
    }
    return { sha256: hash.digest("hex"), size, sha256Header: response.headers.get("lessor-sha256")?.toLowerCase() ?? undefined, resumed };
  } catch (e) {
    throw stallError(e);
  } finally {
    close();
  }
}

/**
 * Every artifact of lease `id`, every page.
 * @param {Ctx} ctx
 * @param {string} id
 * @returns {Promise<Artifact[]>}
 */
export async function listAll(ctx, id) {
  /** @type {Artifact[]} */
  const all = [];
  /** @type {string | undefined} */
  let cursor;
  do {
    const page = await call(ctx.api().GET("/v1/leases/{id}/artifacts", { params: { path: { id }, query: { limit: PAGE, ...(cursor ? { cursor } : {}) } } }));
    all.push(...page.data);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return all;
}

/**
 * Downloads `artifacts` of lease `id` into `dir`, PARALLEL at a time. A file that fails does not
 * stop the others; the caller decides what failures mean. A path that is not an artifact's fails
 * before anything is asked for it.
 * @param {Ctx} ctx
 * @param {string} id
 * @param {string} dir
 * @param {Artifact[]} artifacts
 * @returns {Promise<{ got: Got[], failed: Failed[] }>}
 */
export async function downloadAll(ctx, id, dir, artifacts) {
  /** @type {Got[]} */
  const got = [];
  /** @type {Failed[]} */
  const failed = [];
  const config = ctx.config();
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < artifacts.length; i = next++) {
      const a = /** @type {Artifact} */ (artifacts[i]);
      try {
        got.push(await downloadArtifact(config, ctx.io.version, id, dir, a.path, { sha256: a.sha256, size: a.size }));
      } catch (e) {
        const error = e instanceof CliError ? e : new CliError(`${a.path}: ${/** @type {Error} */ (e).message}`, EXIT.UNEXPECTED);
        failed.push({ path: String(a.path), error });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, artifacts.length) }, worker));
  got.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { got, failed };
}

/**
 * The error for downloads that failed: the first's exit code when they all share it, else
 * INCOMPLETE; the message names each file (a few, and how many more).
 * @param {Failed[]} failed
 */
export function failedError(failed) {
  const shown = failed.slice(0, 5).map((f) => f.error.message);
  const more = failed.length > 5 ? `; and ${failed.length - 5} more` : "";
  const codes = new Set(failed.map((f) => f.error.exitCode));
  const exitCode = codes.size === 1 ? /** @type {number} */ (failed[0]?.error.exitCode) : EXIT.INCOMPLETE;
  return new CliError(`${failed.length} artifact${failed.length === 1 ? "" : "s"} not downloaded: ${shown.join("; ")}${more}`, exitCode, {
    code: codes.size === 1 ? failed[0]?.error.code : "download_failed",
    details: { failed: failed.map((f) => ({ path: f.path, code: f.error.code, message: f.error.message })) },
  });
}

/** `N files (X)` for a person. @param {Got[]} got */
export const gotText = (got) => `${got.length} file${got.length === 1 ? "" : "s"} (${bytesText(got.reduce((n, g) => n + g.size, 0))})`;

/**
 * `lessor artifacts ls LEASE`: a page of the lease's artifacts.
 * @param {Ctx} ctx @param {string[]} args @param {Record<string, any>} f
 */
export async function artifactsLs(ctx, [ref], f) {
  const id = await leaseIdOf(ctx, /** @type {string} */ (ref));
  const query = { limit: parseLimit("--limit", f.limit), cursor: f.cursor };
  const doc = await call(ctx.api().GET("/v1/leases/{id}/artifacts", { params: { path: { id }, query } }));
  const now = ctx.io.now();
  ctx.print(doc, () =>
    doc.data.length === 0
      ? "no artifacts"
      : table(
          ["PATH", "SIZE", "SHA256", "CREATED"],
          doc.data.map((a) => [ctx.shown(a.path), bytesText(a.size), a.sha256.slice(0, 12), relative(a.created_at, now)]),
          { right: ["SIZE"] },
        ),
  );
  if (doc.next_cursor && !ctx.json) ctx.note(`more: lessor artifacts ls ${ref} --cursor ${doc.next_cursor}`);
}

/**
 * `lessor artifacts get LEASE [PATH] [-o DIR]`: one artifact, those under PATH/, or all of them,
 * into DIR (default: the current directory) at their paths.
 * @param {Ctx} ctx @param {string[]} args @param {Record<string, any>} f
 */
export async function artifactsGet(ctx, [ref, wanted], f) {
  const dir = await outDir(f.output ?? ".", "-o");
  const id = await leaseIdOf(ctx, /** @type {string} */ (ref));
  /** @type {Got[]} */
  let got = [];
  /** @type {Failed[]} */
  let failed = [];
  if (wanted !== undefined && !wanted.endsWith("/")) {
    if (!isArtifactPath(wanted)) throw usageError(`"${wanted}" is not an artifact's path (relative, /-separated, no . or .. segments)`);
    // One file: no listing needed, its answer carries its digest.
    try {
      got = [await downloadArtifact(ctx.config(), ctx.io.version, id, dir, wanted)];
    } catch (e) {
      if (!(e instanceof CliError && e.code === "not_found")) throw e;
      const under = (await listAll(ctx, id)).filter((a) => a.path.startsWith(`${wanted}/`));
      if (under.length === 0) throw new CliError(`lease ${id} has no artifact ${wanted}`, EXIT.NOT_FOUND, { code: "not_found", details: { path: wanted } });
      ({ got, failed } = await downloadAll(ctx, id, dir, under));
    }
  } else {
    const all = await listAll(ctx, id);
    const chosen = wanted === undefined ? all : all.filter((a) => a.path.startsWith(wanted));
    if (chosen.length === 0 && wanted !== undefined) throw new CliError(`lease ${id} has no artifact under ${wanted}`, EXIT.NOT_FOUND, { code: "not_found", details: { path: wanted } });
    ({ got, failed } = await downloadAll(ctx, id, dir, chosen));
  }
  if (!ctx.json) ctx.note(`got ${gotText(got)} into ${dir}`);
  if (failed.length > 0) throw failedError(failed);
  if (ctx.json) ctx.io.stdout.write(`${jsonText({ lease_id: id, dir, files: got }, 2)}\n`);
}

/**
 * A directory to write into, made when missing; a usage error when it cannot be one.
 * @param {string} dir
 * @param {string} flag
 */
export async function outDir(dir, flag) {
  try {
    await mkdir(dir, { recursive: true });
    if (!(await stat(dir)).isDirectory()) throw new Error("not a directory");
  } catch (e) {
    throw usageError(`${flag}: ${dir} cannot be a directory to write into: ${/** @type {Error} */ (e).message}`);
  }
  return path.resolve(dir);
}

/**
 * How long `run --out` waits after the job's exit for lessor to say whether every output came
 * back: the release's `outputs_wait` (5 minutes, docs/artifacts.md) and a minute more.
 */
export const OUTPUTS_VERDICT_MS = 6 * 60_000;
const VERDICT_POLL_MS = 1_000;

/**
 * What the lease's events say of its outputs: `outputs_uploaded` (all of the manifest stored),
 * `outputs_incomplete` (the release went on without some), or nothing yet. Read page by page
 * until one of them, the lease's release, or `deadlineMs` has passed.
 * @param {Ctx} ctx
 * @param {string} id
 * @param {{ deadlineMs?: number, pollMs?: number }} [options]
 * @returns {Promise<{ verdict: "uploaded" | "incomplete" | "unknown", missing: string[] }>}
 */
export async function outputsVerdict(ctx, id, options = {}) {
  const deadline = ctx.io.now() + (options.deadlineMs ?? OUTPUTS_VERDICT_MS);
  let after = 0;
  for (;;) {
    const page = await call(ctx.api().GET("/v1/leases/{id}/events", { params: { path: { id }, query: { after: String(after) } } }));
    if (typeof page !== "object") throw new CliError(`the events of ${id} came as a stream, not a page`, EXIT.UNEXPECTED);
    for (const e of page.data) {
      after = Math.max(after, e.seq);
      if (e.type === "outputs_uploaded") return { verdict: "uploaded", missing: [] };
      if (e.type === "outputs_incomplete") return { verdict: "incomplete", missing: e.detail.missing };
    }
    if (typeof page.next_after === "number") continue;
    if (page.released || ctx.io.now() >= deadline) return { verdict: "unknown", missing: [] };
    await new Promise((r) => setTimeout(r, options.pollMs ?? VERDICT_POLL_MS));
  }
}

/**
 * `run --out DIR` once the job has ended: waits for lessor's word on the outputs, downloads every
 * artifact of the lease into DIR, and says on stderr what came and what did not. Answers what
 * `--json` reports and the error, if any, that makes the run incomplete.
 * @param {Ctx} ctx
 * @param {string} id
 * @param {string} dir a directory that exists (outDir)
 * @param {{ deadlineMs?: number, pollMs?: number }} [options]
 */
export async function bringOutputs(ctx, id, dir, options = {}) {
  ctx.note(`outputs: waiting for lessor to store them, then downloading them into ${dir}`);
  const { verdict, missing } = await outputsVerdict(ctx, id, options);
  const { got, failed } = await downloadAll(ctx, id, dir, await listAll(ctx, id));
  ctx.note(`outputs: got ${gotText(got)} into ${dir}`);
  if (verdict === "unknown") ctx.note("outputs: lessor has not said whether every output came back; what is listed was downloaded");
  /** @type {CliError | null} */
  let error = null;
  if (missing.length > 0) {
    const shown = missing.slice(0, 10).map((p) => visible(p));
    const notDownloaded = failed.length > 0 ? `; and ${failedError(failed).message}` : "";
    error = new CliError(
      `outputs incomplete: ${missing.length} file${missing.length === 1 ? "" : "s"} the job left did not come back: ${shown.join(", ")}${missing.length > shown.length ? ", ..." : ""}${notDownloaded}`,
      EXIT.INCOMPLETE,
      { code: "outputs_incomplete", details: { missing } },
    );
  } else if (failed.length > 0) {
    error = failedError(failed);
  }
  const bytes = got.reduce((n, g) => n + g.size, 0);
  return { doc: { dir, files: got.length, bytes, verdict, missing, failed: failed.map((f) => ({ path: f.path, code: f.error.code, message: f.error.message })) }, error };
}
