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
import { authenticateJwt, looksLikeJwt } from "./jwt";
import type { Admission } from "./key-object";
import { admitKey, KEY_PREFIX } from "./keys";
import type { RateDecision } from "./rate-limiter";

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
  const principal = await authenticateJwt(database(env.DB), token, now);
  return principal ? { principal, decision: await takeBudget(env, `${principal.kind}:${principal.subject}`, limit) } : null;
}

/**
 * One unit of the org's budget. An org's credentials may be used from any isolate at once, so only
 * one object can count them all; it is asked only once the credential's own budget has admitted
 * the request.
 */
export function takeOrgBudget(env: Env, orgId: string): Promise<RateDecision> {
  return takeBudget(env, `org:${orgId}`, intSetting(env.LESSOR_ORG_RATE_LIMIT_PER_MINUTE, DEFAULT_ORG_RATE_LIMIT_PER_MINUTE));
}

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
