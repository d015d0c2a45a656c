/**
 * How many of a thing one org may hold (docs/design.md "Limits"), and the inserts that keep to it.
 *
 * Each insert is one conditional `INSERT ... SELECT ... WHERE (SELECT COUNT(*) ...) < max`: D1 runs
 * one statement at a time, so two concurrent creates cannot both pass the count (the same way
 * src/billing/budget.ts admits a lease). Past a limit the answer is 409 `limit_reached`, naming it.
 */
import type { ApiKeyRow, IssuerRow } from "../db/schema";
import { ApiError } from "../errors";

export const MAX_LIVE_API_KEYS = 100;
/**
 * API key rows, revoked ones included: a revoked key's row is kept REVOKED_KEY_RETENTION_MS for
 * the list, then deleted (src/db/retention.ts), so creating and revoking keys cannot grow the table
 * without bound (issue 28 item 4).
 */
export const MAX_API_KEY_ROWS = 1_000;
/** How long a revoked key's row is kept before retention deletes it. */
export const REVOKED_KEY_RETENTION_MS = 30 * 24 * 3_600_000;
export const MAX_ISSUERS = 10;
/** Outbound webhook endpoints (docs/events.md). */
export const MAX_WEBHOOK_ENDPOINTS = 20;
/** Deployments (docs/deployments.md): each is a row until it is deleted, whatever its lease. */
export const MAX_DEPLOYMENTS = 100;
/** Volumes (docs/volumes.md): each is a row until it is deleted. */
export const MAX_VOLUMES = 100;

export const ORG_LIMITS = {
  api_keys: MAX_LIVE_API_KEYS,
  api_key_rows: MAX_API_KEY_ROWS,
  issuers: MAX_ISSUERS,
  webhook_endpoints: MAX_WEBHOOK_ENDPOINTS,
  deployments: MAX_DEPLOYMENTS,
  volumes: MAX_VOLUMES,
} as const;
export type OrgLimit = keyof typeof ORG_LIMITS;

const WHAT: Record<OrgLimit, string> = {
  api_keys: "live API keys",
  api_key_rows: `API keys with the revoked ones (kept ${REVOKED_KEY_RETENTION_MS / 86_400_000} days)`,
  issuers: "trusted issuers",
  webhook_endpoints: "webhook endpoints",
  deployments: "deployments",
  volumes: "volumes",
};

export function limitReached(limit: OrgLimit): ApiError {
  const max = ORG_LIMITS[limit];
  return new ApiError(409, "limit_reached", `an org may hold at most ${max} ${WHAT[limit]}; remove one first`, { limit, max });
}

/**
 * Revoked keys do not count against the live keys: an org that rotates keys is not stuck while
 * its revoked rows are kept. They count against the rows, at most MAX_API_KEY_ROWS, which the
 * count reads at most that many of (`api_keys_org`).
 */
const INSERT_KEY = `
  INSERT INTO api_keys (id, org_id, name, prefix, hash, scope, created_at, revoked_at)
  SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL
  WHERE (SELECT COUNT(*) FROM api_keys WHERE org_id = ?2 AND revoked_at IS NULL) < ?8
    AND (SELECT COUNT(*) FROM (SELECT 1 FROM api_keys WHERE org_id = ?2 LIMIT ?9)) < ?9`;

/**
 * Inserts a new key unless its org already has MAX_LIVE_API_KEYS live ones or MAX_API_KEY_ROWS
 * rows; null when inserted, else the limit it met.
 */
export async function insertKeyWithinLimit(d1: D1Database, row: ApiKeyRow): Promise<"api_keys" | "api_key_rows" | null> {
  const res = await d1
    .prepare(INSERT_KEY)
    .bind(row.id, row.org_id, row.name, row.prefix, row.hash, row.scope, row.created_at, MAX_LIVE_API_KEYS, MAX_API_KEY_ROWS)
    .run();
  if (res.meta.changes === 1) return null;
  const live = await d1.prepare("SELECT COUNT(*) AS n FROM api_keys WHERE org_id = ? AND revoked_at IS NULL").bind(row.org_id).first<{ n: number }>();
  return (live?.n ?? 0) >= MAX_LIVE_API_KEYS ? "api_keys" : "api_key_rows";
}

const INSERT_ISSUER = `
  INSERT INTO issuers (id, org_id, jwks_url, iss, aud, created_at)
  SELECT ?1, ?2, ?3, ?4, ?5, ?6
  WHERE (SELECT COUNT(*) FROM issuers WHERE org_id = ?2) < ?7`;

/**
 * Inserts a trusted issuer unless its org has MAX_ISSUERS already (`limit`) or some org holds its
 * `(iss, aud)` (`pair_held`: the unique index of migrations/0006_issuer_pairs.sql said so, which
 * is what decides when two orgs register one pair at once).
 */
export async function insertIssuerWithinLimit(d1: D1Database, row: IssuerRow): Promise<"inserted" | "limit" | "pair_held"> {
  try {
    const res = await d1
      .prepare(INSERT_ISSUER)
      .bind(row.id, row.org_id, row.jwks_url, row.iss, row.aud, row.created_at, MAX_ISSUERS)
      .run();
    return res.meta.changes === 1 ? "inserted" : "limit";
  } catch (e) {
    if (/UNIQUE constraint failed/i.test(String((e as Error)?.message ?? e))) return "pair_held";
    throw e;
  }
}
