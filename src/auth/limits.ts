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
export const MAX_ISSUERS = 10;
/** Outbound webhook endpoints (docs/events.md). */
export const MAX_WEBHOOK_ENDPOINTS = 20;

export const ORG_LIMITS = {
  api_keys: MAX_LIVE_API_KEYS,
  issuers: MAX_ISSUERS,
  webhook_endpoints: MAX_WEBHOOK_ENDPOINTS,
} as const;
export type OrgLimit = keyof typeof ORG_LIMITS;

const WHAT: Record<OrgLimit, string> = {
  api_keys: "live API keys",
  issuers: "trusted issuers",
  webhook_endpoints: "webhook endpoints",
};

export function limitReached(limit: OrgLimit): ApiError {
  const max = ORG_LIMITS[limit];
  return new ApiError(409, "limit_reached", `an org may hold at most ${max} ${WHAT[limit]}; remove one first`, { limit, max });
}

/** Revoked keys do not count: an org that rotates keys is never stuck. */
const INSERT_KEY = `
  INSERT INTO api_keys (id, org_id, name, prefix, hash, scope, created_at, revoked_at)
  SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL
  WHERE (SELECT COUNT(*) FROM api_keys WHERE org_id = ?2 AND revoked_at IS NULL) < ?8`;

/** Inserts a new key unless its org already has MAX_LIVE_API_KEYS live ones; false when it has. */
export async function insertKeyWithinLimit(d1: D1Database, row: ApiKeyRow): Promise<boolean> {
  const res = await d1
    .prepare(INSERT_KEY)
    .bind(row.id, row.org_id, row.name, row.prefix, row.hash, row.scope, row.created_at, MAX_LIVE_API_KEYS)
    .run();
  return res.meta.changes === 1;
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
