/**
 * An org's trusted JWT issuers (docs/storage.md, `issuers`). A token names its org by its
 * `(iss, aud)`, so a pair is held by one org across the installation: the unique index of
 * migrations/0006_issuer_pairs.sql keeps it so, and registering a pair another org holds is 409
 * `issuer_taken` (docs/design.md). No registration can change whether another org's tokens verify
 * (a token's pair reaches the one org that holds it; src/auth/jwt.ts).
 *
 * The other design, lessor generating each issuer's audience, was not taken: it makes every
 * registration two steps (register, then configure the IdP with lessor's value), cannot be used
 * with IdPs whose audience is fixed (an OAuth client id), and would invalidate every registration
 * made before it, where this one keeps them all but the duplicates migration 0006 settles. What it
 * leaves open: an org may register a pair first that another org wanted later (first come, first
 * served, answered 409 to the second, never a lock-out of tokens that worked); docs/api.md
 * ("Authentication and scopes") asks admins to name their org in the audience, which makes that moot.
 */
import type { Db } from "../db";
import type { IssuerRow } from "../db/schema";
import type { Env } from "../env";
import { ApiError } from "../errors";
import { newId } from "../ids";
import { acceptedTarget } from "../outbound/dns";
import { insertIssuerWithinLimit, limitReached } from "./limits";

/**
 * 409 when some registration holds the pair: `issuer_exists` (with its id) when it is this org's,
 * `issuer_taken` when another's (whose id is not named: docs/design.md, guarantee 8).
 */
async function refuseHeldPair(db: Db, orgId: string, pair: { iss: string; aud: string }): Promise<void> {
  const held = await db.selectFrom("issuers").select(["id", "org_id"]).where("iss", "=", pair.iss).where("aud", "=", pair.aud).executeTakeFirst();
  if (!held) return;
  if (held.org_id === orgId) throw new ApiError(409, "issuer_exists", "this org already trusts that iss and aud", { id: held.id });
  throw new ApiError(409, "issuer_taken", "another org has registered that iss and aud; a token must name one org", { iss: pair.iss, aud: pair.aud });
}

/**
 * Trusts an issuer as the org, within the org's limit and only while no org holds its pair; the
 * row stored. Its JWKS URL is held to the outbound guard webhooks have (src/outbound/), without
 * their development allowance for loopback: 400 `invalid_jwks_url`; every fetch checks it again
 * (src/auth/jwt.ts `jwksGuard`).
 */
export async function registerIssuer(
  env: Pick<Env, "DB" | "LESSOR_OUTBOUND_PORTS" | "LESSOR_DNS_RESOLVER">,
  db: Db,
  orgId: string,
  issuer: Pick<IssuerRow, "jwks_url" | "iss" | "aud">,
  now: number,
): Promise<IssuerRow> {
  const jwks_url = await acceptedTarget(env, issuer.jwks_url, "jwks");
  await refuseHeldPair(db, orgId, issuer);
  const row: IssuerRow = { id: newId("iss", now), org_id: orgId, ...issuer, jwks_url, created_at: now };
  const outcome = await insertIssuerWithinLimit(env.DB, row);
  if (outcome === "limit") throw limitReached("issuers");
  if (outcome === "pair_held") {
    // Another registration of the pair landed between the check and the insert.
    await refuseHeldPair(db, orgId, issuer);
    throw new ApiError(409, "issuer_taken", "that iss and aud are already registered", { iss: issuer.iss, aud: issuer.aud });
  }
  return row;
}

/** A page of the org's issuers, oldest first, after the one `after` names; one row more than `limit`. */
export async function listIssuers(db: Db, orgId: string, page: { after?: { id: string } | null; limit: number }): Promise<IssuerRow[]> {
  let q = db.selectFrom("issuers").selectAll().where("org_id", "=", orgId);
  if (page.after) q = q.where("id", ">", page.after.id);
  // One more than asked, so the page knows whether another follows.
  return q.orderBy("id").limit(page.limit + 1).execute();
}

/** Stops trusting one of the org's issuers; the row as it was, or null when the org has no such issuer. */
export async function deleteIssuer(db: Db, orgId: string, id: string): Promise<IssuerRow | null> {
  const row = await db.deleteFrom("issuers").where("id", "=", id).where("org_id", "=", orgId).returningAll().executeTakeFirst();
  return row ?? null;
}
