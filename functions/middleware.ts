/** Authentication, scope checks and per-credential rate limiting, shared by every /v1 route. */
import { createMiddleware } from "hono/factory";
import { admitCredential, takeAuthFailure, takeCredentialBudget, takeOrgBudget } from "../src/auth/admission";
import { hasScope, type Scope } from "../src/auth/principal";
import type { RateDecision } from "../src/auth/token-bucket";
import { ApiError } from "../src/errors";
import { secretEquals } from "../src/ids";
import type { AppEnv } from "./context";

const unauthenticated = (message: string) =>
  new ApiError(401, "unauthenticated", message, {}, { "WWW-Authenticate": 'Bearer realm="lessor"' });

export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer +([\x21-\x7e]+) *$/i.exec(header);
  return m ? m[1]! : null;
}

/**
 * Who is calling, an API key or a trusted issuer's JWT, one unit of that credential's budget and
 * one of its org's (src/auth/admission.ts). Every failure looks the same (401), and counts against
 * the caller's address (`refusedCredential`).
 */
export const authenticate = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearerToken(c.req.header("authorization"));
  if (!token) throw unauthenticated("send `Authorization: Bearer <API key or JWT>`");
  const admission = await admitCredential(c.env, token, c.var.now);
  if (!admission) throw await refusedCredential(c.env, c.req.header("cf-connecting-ip"), unauthenticated("the credential is not valid"));
  const header = (name: string, value: string) => c.header(name, value);
  enforce(admission.decision, header);
  const org = await takeOrgBudget(c.env, admission.principal.org_id);
  if (!org.allowed) {
    throw new ApiError(
      429,
      "rate_limited",
      `over the budget of ${org.limit} requests a minute for this org (all its credentials together)`,
      { budget: "org", limit_per_minute: org.limit, retry_after_s: org.retry_after_s },
      { "Retry-After": String(org.retry_after_s) },
    );
  }
  c.set("principal", admission.principal);
  await next();
});

/**
 * A presented credential that failed (an unknown or revoked key, a JWT that does not verify, a
 * wrong bootstrap token) spends one unit of its client address's failure budget: within it the
 * answer is `refusal`, past it 429 `rate_limited` with Retry-After.
 */
export async function refusedCredential(env: AppEnv["Bindings"], connectingIp: string | undefined, refusal: ApiError): Promise<ApiError> {
  const { decision, limit } = await takeAuthFailure(env, connectingIp);
  if (decision.allowed) return refusal;
  return new ApiError(
    429,
    "rate_limited",
    `too many failed authentications from this address: at most ${limit} a minute`,
    { budget: "auth_failures", limit_per_minute: limit, retry_after_s: decision.retry_after_s },
    { "Retry-After": String(decision.retry_after_s) },
  );
}

/** The budget headers on every answer; over the budget, 429 with Retry-After. */
function enforce(decision: RateDecision, header: (n: string, v: string) => void) {
  header("RateLimit-Limit", String(decision.limit));
  header("RateLimit-Remaining", String(decision.remaining));
  if (!decision.allowed) {
    throw new ApiError(
      429,
      "rate_limited",
      `over the budget of ${decision.limit} requests a minute for this credential`,
      { limit_per_minute: decision.limit, retry_after_s: decision.retry_after_s },
      { "Retry-After": String(decision.retry_after_s) },
    );
  }
}

export function requireScope(scope: Scope) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!hasScope(c.var.principal, scope)) {
      throw new ApiError(403, "insufficient_scope", `this needs a credential with the "${scope}" scope`, {
        needed: scope,
        have: c.var.principal.scope,
      });
    }
    await next();
  });
}

/**
 * The bootstrap token check, as route middleware so it runs before the body validator: a caller
 * without the token gets 401, never a 400 that describes the schema to them.
 */
export const requireBootstrapToken = createMiddleware<AppEnv>(async (c, next) => {
  const presented = bearerToken(c.req.header("authorization"));
  const expected = c.env.LESSOR_BOOTSTRAP_TOKEN;
  if (!expected) {
    throw new ApiError(403, "bootstrap_disabled", "this installation has no bootstrap token set (LESSOR_BOOTSTRAP_TOKEN)");
  }
  if (!presented || !(await secretEquals(presented, expected))) {
    // RFC 9110 section 15.5.2: a 401 must carry WWW-Authenticate, as the other 401s do (middleware.ts).
    const refusal = new ApiError(401, "unauthenticated", "creating an org needs the installation's bootstrap token", {}, {
      "WWW-Authenticate": 'Bearer realm="lessor"',
    });
    // A wrong token is a failed authentication like a wrong key.
    throw presented ? await refusedCredential(c.env, c.req.header("cf-connecting-ip"), refusal) : refusal;
  }
  enforce(await takeCredentialBudget(c.env, "bootstrap"), (n, v) => c.header(n, v));
  await next();
});
