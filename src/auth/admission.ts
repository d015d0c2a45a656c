/**
 * Who is calling, and the request budgets a call spends: its credential's, its org's (all the
 * org's credentials together), and, for a credential that failed, its client address's. Budgets
 * without an object of their own are `RateLimiter`s named by what they count (docs/storage.md);
 * an API key's is in its own `ApiKeyObject`. The edge (functions/middleware.ts) sets the headers
 * and answers 401 or 429.
 */
import { database } from "../db";
import { intSetting, type Env } from "../env";
import { authFailureBucket } from "./client-address";
import { authenticateJwt, jwksCache, looksLikeJwt } from "./jwt";
import type { Admission } from "./key-object";
import { admitKey, KEY_PREFIX } from "./keys";
import type { RateDecision } from "./token-bucket";

export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;
/** An org's budget, all its credentials together. */
export const DEFAULT_ORG_RATE_LIMIT_PER_MINUTE = 6000;
/** Failed authentications a minute from one client address. */
export const DEFAULT_AUTH_FAILURES_PER_MINUTE = 60;

const credentialLimit = (env: Env) => intSetting(env.LESSOR_RATE_LIMIT_PER_MINUTE, DEFAULT_RATE_LIMIT_PER_MINUTE);

function takeBudget(env: Env, subject: string, limit: number): Promise<RateDecision> {
  return env.LIMITER.get(env.LIMITER.idFromName(subject)).take(limit);
}

/**
 * The principal of an API key or a trusted issuer's JWT, with one unit of that credential's budget
 * taken; null when the token is neither or does not verify. A key costs one call to its own object
 * (src/auth/key-object.ts), which checks it and takes its budget together; a JWT costs a D1 read of
 * its issuer and a call to its subject's RateLimiter.
 */
export async function admitCredential(env: Env, token: string, now: number): Promise<Admission | null> {
  const limit = credentialLimit(env);
  if (token.startsWith(KEY_PREFIX)) return admitKey(env, token, limit);
  if (!looksLikeJwt(token)) return null;
  const principal = await authenticateJwt(database(env.DB), token, now, jwksCache(env));
  return principal ? { principal, decision: await takeBudget(env, `${principal.kind}:${principal.subject}`, limit) } : null;
}

/**
 * One unit of the org's budget. An org's credentials may be used from any isolate at once, so only
 * one object can count them all; it is asked only once the credential's own budget has admitted
 * the request. It is asked for ORG_BUDGET_BATCH units at a time, as many as its bucket holds: the
 * isolate spends the rest itself within ORG_BUDGET_HOLD_MS, so a busy org's requests make one call
 * to it in ten. Units are never made up here, only spent from what the object granted; units an
 * isolate did not spend in time are dropped, so an org at its limit may be refused up to that many
 * requests early per isolate, never served beyond it (docs/design.md "Limits").
 */
export async function takeOrgBudget(env: Env, orgId: string): Promise<RateDecision> {
  const limit = intSetting(env.LESSOR_ORG_RATE_LIMIT_PER_MINUTE, DEFAULT_ORG_RATE_LIMIT_PER_MINUTE);
  const now = Date.now();
  const held = orgUnits.get(orgId);
  if (held && held.units > 0 && held.limit === limit && now >= held.from && now - held.from < ORG_BUDGET_HOLD_MS) {
    held.units--;
    return { allowed: true, limit, remaining: held.units, retry_after_s: 0 };
  }
  const { granted, ...decision } = await env.LIMITER.get(env.LIMITER.idFromName(`org:${orgId}`)).take(limit, ORG_BUDGET_BATCH - 1);
  if (granted > 1) {
    if (orgUnits.size >= ORG_UNITS_MAX) orgUnits.clear();
    orgUnits.set(orgId, { units: granted - 1, limit, from: now });
  } else orgUnits.delete(orgId);
  return decision;
}

/** Units of an org's budget taken at once (`takeOrgBudget`). */
export const ORG_BUDGET_BATCH = 10;
/** How long an isolate may spend units it took; the rest are dropped. */
export const ORG_BUDGET_HOLD_MS = 1_000;
/** Units each isolate holds, by org; bounded, starting again when full. */
const orgUnits = new Map<string, { units: number; limit: number; from: number }>();
const ORG_UNITS_MAX = 10_000;

/** One unit of the budget of a credential that has no object of its own (the bootstrap token). */
export function takeCredentialBudget(env: Env, subject: string): Promise<RateDecision> {
  return takeBudget(env, subject, credentialLimit(env));
}

/**
 * A presented credential that failed spends one unit of its client address's failure budget (the
 * bucket of src/auth/client-address.ts, memory only: failures create no storage, and a valid
 * credential never pays for this call). The decision, and the limit it was taken against.
 */
export async function takeAuthFailure(env: Env, connectingIp: string | undefined): Promise<{ decision: RateDecision; limit: number }> {
  const limit = intSetting(env.LESSOR_AUTH_FAILURES_PER_MINUTE, DEFAULT_AUTH_FAILURES_PER_MINUTE);
  return { decision: await takeBudget(env, authFailureBucket(connectingIp), limit), limit };
}
