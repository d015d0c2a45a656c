/**
 * Bundles and artifacts (docs/artifacts.md): the bytes in R2 (`env.ARTIFACTS`), what lessor knows
 * of them in D1 (docs/storage.md). Every byte is hashed with SHA-256 as it streams into R2, and
 * nothing whose digest differs from the sender's is kept. An org's bytes (and a lease's) are
 * admitted before a byte is stored, by a conditional write of its counter, and given back when the
 * upload fails, so that concurrent uploads never pass a cap together.
 *
 * SQL is written out rather than built with kysely: the admissions read `meta.changes` of a
 * conditional UPDATE, and a commit is one D1 batch (one transaction) whose reads and writes must
 * see each other in order (STYLE.md rule 9).
 */
import type { Env } from "../env";
import { ApiError, notFound } from "../errors";
import { newId, toHex } from "../ids";
import {
  artifactKey,
  DEFAULT_ARTIFACT_RETENTION_MS,
  MULTIPART_TTL_MS,
  PART_SIZE,
  partSize,
  partsOf,
  storageLimits,
  tooLarge,
  UPLOAD_TTL_MS,
  uploadKey,
} from "./limits";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

// ---- hashing ------------------------------------------------------------------------------------

/**
 * Streams `body` (exactly `size` bytes) into `sink` while hashing it with SHA-256 (workerd's
 * `crypto.DigestStream`, native, so the bytes are never held whole); answers the sink's result and
 * the hex digest. A body that ends short or runs long fails the sink (FixedLengthStream).
 */
async function hashedInto<T>(body: ReadableStream<Uint8Array>, size: number, sink: (stream: ReadableStream<Uint8Array>) => Promise<T>): Promise<{ result: T; sha256: string }> {
  const digest = new crypto.DigestStream("SHA-256");
  const hash = digest.getWriter();
  const fixed = new FixedLengthStream(size);
  const out = fixed.writable.getWriter();
  const pump = (async () => {
    const reader = body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        await hash.write(value);
        await out.write(value);
      }
      await hash.close();
      await out.close();
    } catch (e) {
      await out.abort(e).catch(() => undefined);
      await hash.abort(e).catch(() => undefined);
      throw e;
    }
  })();
  // Each is awaited below, and every rejection handled: a body that breaks off fails all three.
  const digested = digest.digest;
  digested.catch(() => undefined);
  const [sunk, pumped] = await Promise.allSettled([sink(fixed.readable), pump]);
  if (pumped.status === "rejected") throw pumped.reason;
  if (sunk.status === "rejected") throw sunk.reason;
  return { result: sunk.value, sha256: toHex(new Uint8Array(await digested)) };
}

/** The SHA-256 of what R2 holds at `key` (null: nothing there), read back through a DigestStream. */
async function storedDigest(bucket: R2Bucket, key: string): Promise<string | null> {
  const object = await bucket.get(key);
  if (!object) return null;
  const digest = new crypto.DigestStream("SHA-256");
  await object.body.pipeTo(digest);
  return toHex(new Uint8Array(await digest.digest));
}

const mismatch = (expected: string, actual: string) =>
  new ApiError(400, "checksum_mismatch", "the bytes' SHA-256 is not the one named in Lessor-Sha256; nothing was stored", { expected, actual });

/** A body that broke off (the client went away) is the client's fault, never a 500 (guarantee 12). */
const unreadable = () => new ApiError(400, "invalid_request", "the request body could not be read to its declared Content-Length");

// ---- counters -----------------------------------------------------------------------------------

/**
 * Admits `bytes` against the org's storage quota: one conditional write, so two uploads at once
 * cannot both pass it. 409 `storage_quota_exceeded` when it would.
 */
export async function admitOrgBytes(env: Env, orgId: string, bytes: number): Promise<void> {
  const limit = storageLimits(env).org_bytes;
  const [, update] = await env.DB.batch([
    env.DB.prepare(`INSERT INTO org_storage (org_id, used_bytes) VALUES (?, 0) ON CONFLICT DO NOTHING`).bind(orgId),
    env.DB.prepare(`UPDATE org_storage SET used_bytes = used_bytes + ?1 WHERE org_id = ?2 AND used_bytes + ?1 <= ?3`).bind(bytes, orgId, limit),
  ]);
  if (update!.meta.changes === 1) return;
  const used = await env.DB.prepare(`SELECT used_bytes FROM org_storage WHERE org_id = ?`).bind(orgId).first<number>("used_bytes");
  throw new ApiError(409, "storage_quota_exceeded", `the org's bundles and artifacts would pass its storage quota of ${limit} bytes`, { limit_bytes: limit, used_bytes: used ?? 0 });
}

/** Admits `bytes` against the lease's cap: 413 `lease_artifacts_full` when it would pass it. */
async function admitLeaseBytes(env: Env, orgId: string, leaseId: string, bytes: number): Promise<void> {
  const limit = storageLimits(env).lease_bytes;
  const [, update] = await env.DB.batch([
    env.DB.prepare(`INSERT INTO lease_storage (lease_id, org_id, used_bytes) VALUES (?, ?, 0) ON CONFLICT DO NOTHING`).bind(leaseId, orgId),
    env.DB.prepare(`UPDATE lease_storage SET used_bytes = used_bytes + ?1 WHERE lease_id = ?2 AND used_bytes + ?1 <= ?3`).bind(bytes, leaseId, limit),
  ]);
  if (update!.meta.changes !== 1) throw tooLarge("lease_artifacts_full", `the lease's artifacts would pass its cap of ${limit} bytes`, limit);
}

const giveOrg = (env: Env, orgId: string, bytes: number) =>
  env.DB.prepare(`UPDATE org_storage SET used_bytes = MAX(0, used_bytes - ?) WHERE org_id = ?`).bind(bytes, orgId);
const giveLease = (env: Env, leaseId: string, bytes: number) =>
  env.DB.prepare(`UPDATE lease_storage SET used_bytes = MAX(0, used_bytes - ?) WHERE lease_id = ?`).bind(bytes, leaseId);

/** Gives admitted bytes back after an upload failed; a failure here is logged, never thrown over the upload's own. */
async function giveBack(env: Env, orgId: string, leaseId: string | null, bytes: number): Promise<void> {
  try {
    await env.DB.batch(leaseId ? [giveOrg(env, orgId, bytes), giveLease(env, leaseId, bytes)] : [giveOrg(env, orgId, bytes)]);
  } catch (e) {
    console.error(JSON.stringify({ msg: "storage bytes not given back", org: orgId, lease: leaseId, bytes, error: String(e) }));
  }
}

/** Admits a lease's file: its cap first, then the org's (the lease's given back when the org's refuses). */
async function admitFile(env: Env, orgId: string, leaseId: string, bytes: number): Promise<void> {
  const limits = storageLimits(env);
  if (bytes > limits.file_bytes) throw tooLarge("file_too_large", `a file is at most ${limits.file_bytes} bytes`, limits.file_bytes);
  await admitLeaseBytes(env, orgId, leaseId, bytes);
  try {
    await admitOrgBytes(env, orgId, bytes);
  } catch (e) {
    await env.DB.batch([giveLease(env, leaseId, bytes)]);
    throw e;
  }
}

// ---- bundles ------------------------------------------------------------------------------------

export interface UploadView {
  id: string;
  size: number;
  sha256: string;
  created_at: string;
  expires_at: string;
}

interface UploadRow {
  id: string;
  size: number;
  sha256: string;
  created_at: number;
  expires_at: number;
}

const uploadView = (r: UploadRow): UploadView => ({ id: r.id, size: r.size, sha256: r.sha256, created_at: iso(r.created_at)!, expires_at: iso(r.expires_at)! });

/** `POST /v1/uploads`: a bundle of `size` bytes whose digest is `sha256`, streamed into R2. */
export async function storeUpload(env: Env, orgId: string, body: ReadableStream<Uint8Array>, size: number, sha256: string, now: number): Promise<UploadView> {
  await admitOrgBytes(env, orgId, size);
  const id = newId("upl", now);
  const key = uploadKey(orgId, id);
  try {
    const stored = await hashedInto(body, size, (s) => env.ARTIFACTS.put(key, s, { customMetadata: { sha256 } })).catch(() => {
      throw unreadable();
    });
    if (stored.sha256 !== sha256) throw mismatch(sha256, stored.sha256);
    const row: UploadRow = { id, size, sha256, created_at: now, expires_at: now + UPLOAD_TTL_MS };
    await env.DB.prepare(`INSERT INTO uploads (id, org_id, size, sha256, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)`)
      .bind(id, orgId, size, sha256, row.created_at, row.expires_at)
      .run();
    return uploadView(row);
  } catch (e) {
    await env.ARTIFACTS.delete(key).catch(() => undefined);
    await giveBack(env, orgId, null, size);
    throw e;
  }
}

export async function getUpload(env: Env, orgId: string, id: string): Promise<UploadView | null> {
  const row = await env.DB.prepare(`SELECT id, size, sha256, created_at, expires_at FROM uploads WHERE id = ? AND org_id = ?`).bind(id, orgId).first<UploadRow>();
  return row ? uploadView(row) : null;
}

/**
 * A lease being created names the bundle: it holds it while the index does not show it released.
 * 404 `not_found` (`details.field: "workdir"`) for another org's, an expired or a missing one.
 */
export async function holdUpload(env: Env, orgId: string, uploadId: string, leaseId: string, now: number): Promise<void> {
  const r = await env.DB.prepare(
    `INSERT INTO upload_holds (upload_id, lease_id, created_at)
     SELECT id, ?, ? FROM uploads WHERE id = ? AND org_id = ? AND expires_at > ? ON CONFLICT DO NOTHING`,
  )
    .bind(leaseId, now, uploadId, orgId, now)
    .run();
  if (r.meta.changes !== 1) throw new ApiError(404, "not_found", `upload ${uploadId} was not found (or has expired)`, { id: uploadId, field: "workdir" });
}

/** A lease that was never made gives its hold back. */
export async function dropHold(env: Env, leaseId: string): Promise<void> {
  await env.DB.prepare(`DELETE FROM upload_holds WHERE lease_id = ?`).bind(leaseId).run();
}

/** Whether the lease holds a workdir bundle (the index `workdirOf` reads), without reading it. */
export async function holdsWorkdir(env: Pick<Env, "DB">, leaseId: string): Promise<boolean> {
  return (await env.DB.prepare(`SELECT 1 AS held FROM upload_holds WHERE lease_id = ? LIMIT 1`).bind(leaseId).first<{ held: number }>()) !== null;
}

/** The lease's bundle as the agent fetches it (`GET /v1/agent/workdir`); null: the lease has none. */
export async function workdirOf(env: Env, orgId: string, leaseId: string): Promise<{ object: R2ObjectBody; upload: UploadRow } | null> {
  const row = await env.DB.prepare(
    `SELECT u.id, u.size, u.sha256, u.created_at, u.expires_at FROM upload_holds h JOIN uploads u ON u.id = h.upload_id WHERE h.lease_id = ? AND u.org_id = ?`,
  )
    .bind(leaseId, orgId)
    .first<UploadRow>();
  if (!row) return null;
  const object = await env.ARTIFACTS.get(uploadKey(orgId, row.id));
  return object ? { object, upload: row } : null;
}

// ---- artifacts: storing -------------------------------------------------------------------------

export interface ArtifactView {
  path: string;
  size: number;
  sha256: string;
  created_at: string;
  expires_at: string | null;
}

interface Target {
  org_id: string;
  lease_id: string;
  path: string;
}

/**
 * Lists the new version of an artifact, in one D1 batch: the version before (if any) is given
 * back to the counters, its span recorded for usage, and its key answered, to be deleted from R2.
 * Two commits of one path at once are two transactions, each deleting the key it replaced.
 */
async function commitArtifact(env: Env, t: Target, key: string, size: number, sha256: string, now: number): Promise<ArtifactView> {
  const old = `(SELECT size FROM artifacts WHERE lease_id = ?1 AND path = ?2)`;
  const results = await env.DB.batch([
    env.DB.prepare(`INSERT INTO storage_spans (org_id, bytes, from_at, to_at) SELECT org_id, size, created_at, ?3 FROM artifacts WHERE lease_id = ?1 AND path = ?2`).bind(t.lease_id, t.path, now),
    env.DB.prepare(`UPDATE org_storage SET used_bytes = MAX(0, used_bytes - COALESCE(${old}, 0)) WHERE org_id = ?3`).bind(t.lease_id, t.path, t.org_id),
    env.DB.prepare(`UPDATE lease_storage SET used_bytes = MAX(0, used_bytes - COALESCE(${old}, 0)) WHERE lease_id = ?1`).bind(t.lease_id, t.path),
    env.DB.prepare(`SELECT key FROM artifacts WHERE lease_id = ? AND path = ?`).bind(t.lease_id, t.path),
    env.DB.prepare(
      `INSERT INTO artifacts (lease_id, path, org_id, key, size, sha256, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (lease_id, path) DO UPDATE SET key = excluded.key, size = excluded.size, sha256 = excluded.sha256, created_at = excluded.created_at`,
    ).bind(t.lease_id, t.path, t.org_id, key, size, sha256, now),
  ]);
  const replaced = (results[3]!.results[0] as { key: string } | undefined)?.key;
  if (replaced && replaced !== key) await env.ARTIFACTS.delete(replaced).catch((e) => console.error(JSON.stringify({ msg: "replaced artifact not deleted", key: replaced, error: String(e) })));
  return { path: t.path, size, sha256, created_at: iso(now)!, expires_at: null };
}

/** `PUT /v1/agent/artifacts/{path}`: one file of at most PART_SIZE bytes. */
export async function storeArtifact(env: Env, t: Target, body: ReadableStream<Uint8Array>, size: number, sha256: string, now: number): Promise<ArtifactView> {
  if (size > PART_SIZE) throw tooLarge("payload_too_large", `one PUT carries at most ${PART_SIZE} bytes; send a bigger file in parts (?uploads)`, PART_SIZE);
  await admitFile(env, t.org_id, t.lease_id, size);
  const key = artifactKey(t.org_id, t.lease_id, newId("obj", now));
  try {
    const stored = await hashedInto(body, size, (s) => env.ARTIFACTS.put(key, s)).catch(() => {
      throw unreadable();
    });
    if (stored.sha256 !== sha256) throw mismatch(sha256, stored.sha256);
    return await commitArtifact(env, t, key, size, sha256, now);
  } catch (e) {
    // Only this version's own key: the version before is untouched.
    await env.ARTIFACTS.delete(key).catch(() => undefined);
    await giveBack(env, t.org_id, t.lease_id, size);
    throw e;
  }
}

interface MultipartRow {
  id: string;
  org_id: string;
  lease_id: string;
  path: string;
  key: string;
  r2_upload: string;
  size: number;
  sha256: string;
  created_at: number;
}

export interface MultipartView {
  upload_id: string;
  path: string;
  size: number;
  sha256: string;
  part_size: number;
  parts: number;
  /** The parts stored so far, in order. */
  stored: { part: number; size: number; sha256: string }[];
}

async function multipartRow(env: Env, t: Target, uploadId: string): Promise<MultipartRow> {
  const row = await env.DB.prepare(`SELECT * FROM artifact_uploads WHERE id = ? AND lease_id = ? AND org_id = ? AND path = ?`)
    .bind(uploadId, t.lease_id, t.org_id, t.path)
    .first<MultipartRow>();
  if (!row) throw notFound("upload", uploadId);
  return row;
}

async function multipartView(env: Env, row: MultipartRow): Promise<MultipartView> {
  const parts = await env.DB.prepare(`SELECT part, size, sha256 FROM artifact_parts WHERE upload_id = ? ORDER BY part`).bind(row.id).all<{ part: number; size: number; sha256: string }>();
  return { upload_id: row.id, path: row.path, size: row.size, sha256: row.sha256, part_size: PART_SIZE, parts: partsOf(row.size), stored: parts.results };
}

/** `POST /v1/agent/artifacts/{path}?uploads`: a multipart upload of a file of `size` bytes, admitted whole now. */
export async function createMultipart(env: Env, t: Target, size: number, sha256: string, now: number): Promise<MultipartView> {
  await admitFile(env, t.org_id, t.lease_id, size);
  const key = artifactKey(t.org_id, t.lease_id, newId("obj", now));
  try {
    const upload = await env.ARTIFACTS.createMultipartUpload(key);
    const row: MultipartRow = { id: newId("mpu", now), ...t, key, r2_upload: upload.uploadId, size, sha256, created_at: now };
    await env.DB.prepare(`INSERT INTO artifact_uploads (id, org_id, lease_id, path, key, r2_upload, size, sha256, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .bind(row.id, row.org_id, row.lease_id, row.path, row.key, row.r2_upload, row.size, row.sha256, row.created_at)
      .run();
    return await multipartView(env, row);
  } catch (e) {
    await giveBack(env, t.org_id, t.lease_id, size);
    throw e;
  }
}

/** `GET /v1/agent/artifacts/{path}?upload_id=`: what is stored, so a restarted agent resumes. */
export async function listParts(env: Env, t: Target, uploadId: string): Promise<MultipartView> {
  return multipartView(env, await multipartRow(env, t, uploadId));
}

/** `PUT /v1/agent/artifacts/{path}?upload_id=&part=N`: one part, of exactly the size its place gives it. */
export async function storePart(env: Env, t: Target, uploadId: string, part: number, body: ReadableStream<Uint8Array>, size: number, sha256: string): Promise<MultipartView> {
  const row = await multipartRow(env, t, uploadId);
  const count = partsOf(row.size);
  if (part > count) throw new ApiError(400, "invalid_part", `a file of ${row.size} bytes has ${count} part(s)`, { parts: count });
  const expected = partSize(row.size, part);
  if (size !== expected) throw new ApiError(400, "invalid_part", `part ${part} is ${expected} bytes`, { part, size: expected });
  const upload = env.ARTIFACTS.resumeMultipartUpload(row.key, row.r2_upload);
  const stored = await hashedInto(body, size, (s) => upload.uploadPart(part, s)).catch(() => {
    throw unreadable();
  });
  // A part whose digest differs is not recorded: R2 holds it, but the completion names only the
  // parts recorded here, and the agent's next PUT of the part replaces it.
  if (stored.sha256 !== sha256) throw mismatch(sha256, stored.sha256);
  await env.DB.prepare(`INSERT INTO artifact_parts (upload_id, part, size, etag, sha256) VALUES (?, ?, ?, ?, ?) ON CONFLICT (upload_id, part) DO UPDATE SET size = excluded.size, etag = excluded.etag, sha256 = excluded.sha256`)
    .bind(row.id, part, size, stored.result.etag, sha256)
    .run();
  return multipartView(env, row);
}

const dropMultipart = (env: Env, uploadId: string) => [
  env.DB.prepare(`DELETE FROM artifact_parts WHERE upload_id = ?`).bind(uploadId),
  env.DB.prepare(`DELETE FROM artifact_uploads WHERE id = ?`).bind(uploadId),
];

/**
 * `POST /v1/agent/artifacts/{path}?upload_id=&complete`: every part stored, the whole file's size
 * and digest as the create named them. The completed object is read back through a DigestStream
 * before it is listed (the parts' digests say nothing of their order): one read of the file, its
 * bytes hashed once more (docs/artifacts.md "What the checks cost").
 */
export async function completeMultipart(env: Env, t: Target, uploadId: string, size: number, sha256: string, now: number): Promise<ArtifactView> {
  const row = await multipartRow(env, t, uploadId);
  if (size !== row.size || sha256 !== row.sha256) {
    throw new ApiError(400, "invalid_request", "size and sha256 are the ones the upload was created with", { size: row.size, sha256: row.sha256 });
  }
  const view = await multipartView(env, row);
  const have = new Set(view.stored.map((p) => p.part));
  const missing = [];
  for (let n = 1; n <= view.parts && missing.length < 100; n++) if (!have.has(n)) missing.push(n);
  if (missing.length > 0) throw new ApiError(409, "parts_missing", `${missing.length} part(s) are not stored yet`, { missing });
  const etags = await env.DB.prepare(`SELECT part, etag FROM artifact_parts WHERE upload_id = ? ORDER BY part`).bind(row.id).all<{ part: number; etag: string }>();
  await env.ARTIFACTS.resumeMultipartUpload(row.key, row.r2_upload).complete(etags.results.map((p) => ({ partNumber: p.part, etag: p.etag })));
  const actual = await storedDigest(env.ARTIFACTS, row.key);
  if (actual !== sha256) {
    await env.ARTIFACTS.delete(row.key).catch(() => undefined);
    await env.DB.batch(dropMultipart(env, row.id));
    await giveBack(env, t.org_id, t.lease_id, row.size);
    throw mismatch(sha256, actual ?? "");
  }
  const listed = await commitArtifact(env, t, row.key, size, sha256, now);
  await env.DB.batch(dropMultipart(env, row.id));
  return listed;
}

// ---- artifacts: the user's side -----------------------------------------------------------------

/** Whether the org has this lease (the index), so another org's answers 404 like a missing one. */
export async function leaseOfOrg(env: Env, orgId: string, leaseId: string): Promise<boolean> {
  return (await env.DB.prepare(`SELECT 1 AS one FROM leases WHERE id = ? AND org_id = ?`).bind(leaseId, orgId).first("one")) !== null;
}

export async function listArtifacts(env: Env, orgId: string, leaseId: string, after: string | null, limit: number): Promise<ArtifactView[]> {
  const rows = await env.DB.prepare(
    `SELECT a.path, a.size, a.sha256, a.created_at, s.expires_at FROM artifacts a LEFT JOIN lease_storage s ON s.lease_id = a.lease_id
      WHERE a.lease_id = ? AND a.org_id = ? AND a.path > ? ORDER BY a.path LIMIT ?`,
  )
    .bind(leaseId, orgId, after ?? "", limit)
    .all<{ path: string; size: number; sha256: string; created_at: number; expires_at: number | null }>();
  return rows.results.map((r) => ({ path: r.path, size: r.size, sha256: r.sha256, created_at: iso(r.created_at)!, expires_at: iso(r.expires_at) }));
}

export interface ArtifactRead {
  artifact: ArtifactView;
  key: string;
}

export async function findArtifact(env: Env, orgId: string, leaseId: string, path: string): Promise<ArtifactRead | null> {
  const r = await env.DB.prepare(
    `SELECT a.path, a.size, a.sha256, a.created_at, a.key, s.expires_at FROM artifacts a LEFT JOIN lease_storage s ON s.lease_id = a.lease_id
      WHERE a.lease_id = ? AND a.path = ? AND a.org_id = ?`,
  )
    .bind(leaseId, path, orgId)
    .first<{ path: string; size: number; sha256: string; created_at: number; key: string; expires_at: number | null }>();
  return r ? { key: r.key, artifact: { path: r.path, size: r.size, sha256: r.sha256, created_at: iso(r.created_at)!, expires_at: iso(r.expires_at) } } : null;
}

/** `DELETE /v1/leases/:id/artifacts/{path}`: the row and its bytes; false: no such artifact. */
export async function deleteArtifact(env: Env, orgId: string, leaseId: string, path: string, now: number): Promise<boolean> {
  const where = `lease_id = ?1 AND path = ?2 AND org_id = ?3`;
  const size = `COALESCE((SELECT size FROM artifacts WHERE ${where}), 0)`;
  const results = await env.DB.batch([
    env.DB.prepare(`INSERT INTO storage_spans (org_id, bytes, from_at, to_at) SELECT org_id, size, created_at, ?4 FROM artifacts WHERE ${where}`).bind(leaseId, path, orgId, now),
    env.DB.prepare(`UPDATE org_storage SET used_bytes = MAX(0, used_bytes - ${size}) WHERE org_id = ?3`).bind(leaseId, path, orgId),
    env.DB.prepare(`UPDATE lease_storage SET used_bytes = MAX(0, used_bytes - ${size}) WHERE lease_id = ?1`).bind(leaseId, path, orgId),
    env.DB.prepare(`DELETE FROM artifacts WHERE ${where} RETURNING key`).bind(leaseId, path, orgId),
  ]);
  const key = (results[3]!.results[0] as { key: string } | undefined)?.key;
  if (!key) return false;
  await env.ARTIFACTS.delete(key);
  return true;
}

// ---- retention ----------------------------------------------------------------------------------

export interface StorageRetentionReport {
  leases_stamped: number;
  artifacts_deleted: number;
  uploads_deleted: number;
  multipart_aborted: number;
}

/** Leases, bundles and stale uploads one run takes at most; each is a few statements and an R2 call. */
const RETENTION_LEASES = 20;
const RETENTION_ARTIFACTS_PER_LEASE = 1_000;
const RETENTION_UPLOADS = 100;

/**
 * The cron's storage step (docs/artifacts.md "Retention"), level-triggered and idempotent:
 * 1. a released lease's artifacts get their expiry, its release plus the org's artifact_retention
 *    (read when the cron first sees the release);
 * 2. due artifacts are deleted from R2, then their rows, their bytes given back and their spans
 *    kept for usage (an R2 delete that fails leaves the rows for the next run);
 * 3. bundles past their expires_at that no lease the index does not show released holds (a hold
 *    without an index row counts for an hour: its lease may be being created);
 * 4. multipart uploads older than MULTIPART_TTL_MS are aborted and their bytes given back.
 */
export async function runStorageRetention(env: Env, now: number): Promise<StorageRetentionReport> {
  const db = env.DB;
  const stamped = await db
    .prepare(
      `UPDATE lease_storage SET expires_at = (
         SELECT l.released_at + COALESCE(o.artifact_retention_ms, ?1) FROM leases l JOIN orgs o ON o.id = l.org_id WHERE l.id = lease_storage.lease_id)
       WHERE lease_id IN (
         SELECT s.lease_id FROM lease_storage s JOIN leases l ON l.id = s.lease_id
          WHERE s.expires_at IS NULL AND l.state = 'released' AND l.released_at IS NOT NULL LIMIT ?2)`,
    )
    .bind(DEFAULT_ARTIFACT_RETENTION_MS, 500)
    .run();

  let artifacts = 0;
  const due = await db.prepare(`SELECT lease_id, org_id FROM lease_storage WHERE expires_at <= ? ORDER BY expires_at LIMIT ?`).bind(now, RETENTION_LEASES).all<{ lease_id: string; org_id: string }>();
  for (const lease of due.results) {
    const batch = `SELECT rowid FROM artifacts WHERE lease_id = ?1 ORDER BY path LIMIT ${RETENTION_ARTIFACTS_PER_LEASE}`;
    const rows = await db.prepare(`SELECT key FROM artifacts WHERE rowid IN (${batch})`).bind(lease.lease_id).all<{ key: string }>();
    const keys = rows.results.map((r) => r.key);
    if (keys.length > 0) await env.ARTIFACTS.delete(keys);
    await db.batch([
      db.prepare(`INSERT INTO storage_spans (org_id, bytes, from_at, to_at) SELECT org_id, size, created_at, ?2 FROM artifacts WHERE rowid IN (${batch})`).bind(lease.lease_id, now),
      db.prepare(`UPDATE org_storage SET used_bytes = MAX(0, used_bytes - COALESCE((SELECT SUM(size) FROM artifacts WHERE rowid IN (${batch})), 0)) WHERE org_id = ?2`).bind(lease.lease_id, lease.org_id),
      db.prepare(`DELETE FROM artifacts WHERE rowid IN (${batch})`).bind(lease.lease_id),
      db.prepare(`DELETE FROM lease_storage WHERE lease_id = ?1 AND NOT EXISTS (SELECT 1 FROM artifacts WHERE lease_id = ?1) AND NOT EXISTS (SELECT 1 FROM artifact_uploads WHERE lease_id = ?1)`).bind(lease.lease_id),
    ]);
    artifacts += keys.length;
  }

  const uploads = await db
    .prepare(
      `SELECT u.id, u.org_id, u.size FROM uploads u WHERE u.expires_at <= ?1 AND NOT EXISTS (
         SELECT 1 FROM upload_holds h LEFT JOIN leases l ON l.id = h.lease_id
          WHERE h.upload_id = u.id AND (l.state != 'released' OR (l.id IS NULL AND h.created_at > ?1 - 3600000)))
        ORDER BY u.expires_at LIMIT ?2`,
    )
    .bind(now, RETENTION_UPLOADS)
    .all<{ id: string; org_id: string; size: number }>();
  if (uploads.results.length > 0) {
    await env.ARTIFACTS.delete(uploads.results.map((u) => uploadKey(u.org_id, u.id)));
    await db.batch(
      uploads.results.flatMap((u) => [
        db.prepare(`INSERT INTO storage_spans (org_id, bytes, from_at, to_at) SELECT org_id, size, created_at, ? FROM uploads WHERE id = ?`).bind(now, u.id),
        giveOrg(env, u.org_id, u.size),
        db.prepare(`DELETE FROM uploads WHERE id = ?`).bind(u.id),
        db.prepare(`DELETE FROM upload_holds WHERE upload_id = ?`).bind(u.id),
      ]),
    );
  }

  const stale = await db.prepare(`SELECT * FROM artifact_uploads WHERE created_at <= ? ORDER BY created_at LIMIT ?`).bind(now - MULTIPART_TTL_MS, RETENTION_UPLOADS).all<MultipartRow>();
  for (const row of stale.results) {
    await env.ARTIFACTS.resumeMultipartUpload(row.key, row.r2_upload)
      .abort()
      .catch(() => undefined); // already aborted or completed: nothing of it is listed either way
    await db.batch([...dropMultipart(env, row.id), giveOrg(env, row.org_id, row.size), giveLease(env, row.lease_id, row.size)]);
  }
  return { leases_stamped: stamped.meta.changes, artifacts_deleted: artifacts, uploads_deleted: uploads.results.length, multipart_aborted: stale.results.length };
}

// ---- usage --------------------------------------------------------------------------------------

/** R2's unit: a GB (2^30 bytes) kept for a month (30 days). */
const BYTE_MS_PER_GB_MONTH = 2 ** 30 * 30 * 86_400_000;

/**
 * The org's storage over [from, to) in GB-months: each object's bytes times the time it was kept
 * within the range, objects deleted since (their spans) and objects still stored (up to now).
 */
export async function storageGbMonths(env: Env, orgId: string, from: number, to: number, now: number): Promise<number> {
  const end = Math.min(to, now);
  if (end <= from) return 0;
  // Reals: bytes times milliseconds passes SQLite's 64-bit integers within months of 100 GiB.
  const live = (table: string) => `SELECT COALESCE(SUM(size * 1.0 * (?1 - MAX(created_at, ?2))), 0) AS v FROM ${table} WHERE org_id = ?3 AND created_at < ?1`;
  const [artifacts, uploads, spans] = await env.DB.batch<{ v: number }>([
    env.DB.prepare(live("artifacts")).bind(end, from, orgId),
    env.DB.prepare(live("uploads")).bind(end, from, orgId),
    env.DB.prepare(`SELECT COALESCE(SUM(bytes * 1.0 * (MIN(to_at, ?1) - MAX(from_at, ?2))), 0) AS v FROM storage_spans WHERE org_id = ?3 AND to_at > ?2 AND from_at < ?1`).bind(end, from, orgId),
  ]);
  const byteMs = [artifacts, uploads, spans].reduce((sum, r) => sum + Number(r!.results[0]?.v ?? 0), 0);
  return Math.round((byteMs / BYTE_MS_PER_GB_MONTH) * 1e6) / 1e6;
}
