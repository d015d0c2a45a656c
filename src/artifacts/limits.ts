/**
 * What docs/artifacts.md fixes for bundles and artifacts: the paths a file may have, where its
 * bytes live in R2, and the caps of "Limits and money". Pure: no I/O.
 */
import { intSetting, type Env } from "../env";
import { ApiError } from "../errors";

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** A file at most this big goes up in one PUT; above it, in parts of exactly this size but the last. */
export const PART_SIZE = 8 * MiB;
/** R2's own floor for every part but the last (its multipart contract); PART_SIZE is above it. */
export const R2_MIN_PART = 5 * MiB;
/** R2 takes at most 10,000 parts: 5 GiB in 8 MiB parts is 640. */
export const MAX_PARTS = 10_000;
/** A bundle is kept this long after its upload, or while a live lease holds it. */
export const UPLOAD_TTL_MS = 24 * 3_600_000;
/** A multipart upload not completed within this long is aborted by the cron and its bytes given back. */
export const MULTIPART_TTL_MS = 24 * 3_600_000;
/** An org's `artifact_retention` when it has set none. */
export const DEFAULT_ARTIFACT_RETENTION_MS = 30 * 86_400_000;
/** Half a UTF-16 pair alone: what a JSON string may carry and UTF-8 cannot. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** A path is at most this many bytes of UTF-8. */
export const PATH_MAX_BYTES = 1024;
/** A manifest names at most this many files. */
export const MANIFEST_MAX_FILES = 10_000;

export interface StorageLimits {
  upload_bytes: number;
  file_bytes: number;
  lease_bytes: number;
  org_bytes: number;
}

export function storageLimits(env: Env): StorageLimits {
  return {
    upload_bytes: intSetting(env.LESSOR_UPLOAD_MAX_BYTES, 100 * MiB),
    file_bytes: intSetting(env.LESSOR_ARTIFACT_FILE_MAX_BYTES, 5 * GiB),
    lease_bytes: intSetting(env.LESSOR_LEASE_ARTIFACTS_MAX_BYTES, 50 * GiB),
    org_bytes: intSetting(env.LESSOR_ORG_STORAGE_MAX_BYTES, 100 * GiB),
  };
}

/**
 * Why `path` is not an artifact's path (docs/artifacts.md "Paths"), or null when it is: relative,
 * `/`-separated segments none empty, `.` or `..`, no NUL, control character or backslash, at most
 * PATH_MAX_BYTES. Nothing it admits can name a key outside the lease's own prefix.
 */
export function pathProblem(path: string): string | null {
  if (path.length === 0) return "a path is not empty";
  if (new TextEncoder().encode(path).byteLength > PATH_MAX_BYTES) return `a path is at most ${PATH_MAX_BYTES} bytes`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(path)) return "a path holds no NUL, control character or backslash";
  if (LONE_SURROGATE.test(path)) return "a path is valid UTF-8";
  if (path.startsWith("/")) return "a path is relative (no leading /)";
  for (const segment of path.split("/")) {
    if (segment === "" || segment === "." || segment === "..") return "no segment of a path is empty, `.` or `..`";
  }
  return null;
}

export function checkPath(path: string): string {
  const problem = pathProblem(path);
  if (problem) throw new ApiError(400, "invalid_path", problem, { field: "path" });
  return path;
}

export const uploadKey = (orgId: string, uploadId: string) => `orgs/${orgId}/uploads/${uploadId}`;
/** Each stored version of an artifact has a key of its own (docs/artifacts.md "The two kinds of object"). */
export const artifactKey = (orgId: string, leaseId: string, objectId: string) => `orgs/${orgId}/leases/${leaseId}/out/${objectId}`;

/** `Lessor-Sha256`: 64 hex digits, lower-cased. */
export const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/** The parts a file of `size` bytes goes up in (at least one). */
export const partsOf = (size: number) => Math.max(1, Math.ceil(size / PART_SIZE));

/** The size part `n` (from 1) of a file of `size` bytes must have. */
export function partSize(size: number, n: number): number {
  return Math.min(PART_SIZE, size - (n - 1) * PART_SIZE);
}

export const tooLarge = (code: "upload_too_large" | "file_too_large" | "lease_artifacts_full" | "payload_too_large", message: string, limit: number) =>
  new ApiError(413, code, message, { limit_bytes: limit });
