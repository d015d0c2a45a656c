/**
 * The gateway (docs/deployments.md "The gateway"): `/v1/gateway/{deployment id}/v1/...` proxied to
 * the deployment's model server. The caller proves itself with the deployment's api_key, never an
 * org's key; lessor sends the machine's own key instead (src/lease/object.ts `modelRequest`), and
 * streams the answer back as it comes. A deployment that is stopped is started, and a request to
 * one that is starting is held up to LESSOR_GATEWAY_WAKE_WAIT, then answered 503
 * `deployment_starting` with Retry-After.
 */
import type { Db } from "../db";
import type { Env } from "../env";
import { ApiError } from "../errors";
import type { RateDecision } from "../auth/token-bucket";
import { hexEquals, sha256Hex } from "../ids";
import { gatewayRateLimit } from "./gateway-budget";
import { answeredHeaders, forwardedHeaders } from "./gateway-headers";
import { actOnLease, deploymentById, deploymentKey, leaseStub } from "./deployments";
import { GATEWAY_WAKE_WAIT_MS, wakeWaitMs } from "./wake-wait";

/** How often a held request asks again whether the deployment is ready. */
export const GATEWAY_RECHECK_MS = 500;
/** What a 503 `deployment_starting` tells the client to wait before asking again. */
export const STARTING_RETRY_AFTER_S = 10;


/** The model server's answer as the caller gets it: its status and body as they come, its headers less NOT_ANSWERED. */
function answered(res: Response): Response {
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers: answeredHeaders(res.headers) });
}

/** 429 for a request past the deployment's gateway budget (LESSOR_GATEWAY_RATE_LIMIT_PER_MINUTE). */
function overBudget(decision: RateDecision): ApiError {
  return new ApiError(
    429,
    "rate_limited",
    `over this deployment's budget of ${decision.limit} requests a minute through its gateway`,
    { budget: "deployment", limit_per_minute: decision.limit, retry_after_s: decision.retry_after_s },
    { "Retry-After": String(decision.retry_after_s) },
  );
}

/**
 * 402 for a stopped deployment its org's budget would not start: the org's caps, what it has
 * committed and what the lease would cost are the org's own (GET /v1/budget), never told to a
 * deployment key's holder.
 */
function startRefused(name: string): ApiError {
  return new ApiError(402, "over_budget", `deployment "${name}" is stopped and its org's budget does not allow starting it; the org's admins can see why`, { name });
}

const refused = () => new ApiError(401, "unauthenticated", "send `Authorization: Bearer <the deployment's api_key>`", {}, { "WWW-Authenticate": 'Bearer realm="lessor-gateway"' });

/**
 * Where each deployment's requests go, by its id, in this isolate: its lease and org. A hint, never
 * a credential: the quick path it opens is taken only when the lease holds the caller's key's
 * digest and is ready; anything else takes the full path through the deployment's row.
 */
const ROUTES = new Map<string, { lease_id: string; org_id: string }>();
const ROUTES_MAX = 1_000;

function remember(id: string, route: { lease_id: string; org_id: string }): void {
  ROUTES.delete(id);
  ROUTES.set(id, route);
  // The oldest entry goes first (a Map iterates in insertion order).
  if (ROUTES.size > ROUTES_MAX) ROUTES.delete(ROUTES.keys().next().value!);
}

/**
 * One request through the gateway. `path` begins with `/v1/`; `token` is the caller's bearer.
 * A wrong or missing key is 401 whether or not the deployment exists.
 *
 * The quick path (docs/deployments.md "The gateway"): a deployment's lease holds the SHA-256 of
 * its api_key, set when the key is rotated and before the new one is stored, and seeded by the
 * full path. A request whose key's digest the ready lease holds is sent on without reading the
 * deployment's row; any other answer (another digest, none held, not ready, no such lease) sends
 * it down the full path, which reads the row, checks the key as stored, and wakes or refuses as
 * before. A rotated key therefore stops working at once, in every isolate.
 */
export async function gatewayRequest(
  db: Db,
  env: Env,
  input: { deploymentId: string; token: string | null; path: string; method: string; headers: Headers; body: ArrayBuffer | null },
): Promise<Response> {
  if (input.token === null) throw refused();
  const digest = await sha256Hex(input.token);
  const init = { method: input.method, headers: forwardedHeaders(input.headers), body: input.body };
  const route = ROUTES.get(input.deploymentId);
  // Whether this request has spent its unit of the deployment's budget: a lease that checked the
  // key and then answered its state took it, and is not asked for another while the request waits.
  let counted = false;
  const limit = gatewayRateLimit(env);
  if (route) {
    const quick = await leaseStub(env, route.lease_id).modelRequest(route.org_id, input.path, init, { digest }, { limit_per_minute: limit, counted });
    if (quick instanceof Response) return answered(quick);
    if (quick !== null && "limited" in quick) throw overBudget(quick.limited);
    counted = quick !== null && "state" in quick;
  }
  const row = await deploymentById(db, input.deploymentId);
  const key = row ? await deploymentKey(env, row) : null;
  if (!row || key === null || !hexEquals(digest, await sha256Hex(key))) throw refused();
  remember(row.id, { lease_id: row.lease_id, org_id: row.org_id });
  const stub = leaseStub(env, row.lease_id);
  const deadline = Date.now() + (wakeWaitMs(env) ?? GATEWAY_WAKE_WAIT_MS);
  let woken = false;
  for (;;) {
    const out = await stub.modelRequest(row.org_id, input.path, init, { verified: digest }, { limit_per_minute: limit, counted });
    if (out instanceof Response) return answered(out);
    if (out !== null && "limited" in out) throw overBudget(out.limited);
    counted ||= out !== null && "state" in out;
    const state = out === null ? null : "state" in out ? out.state : null;
    if (state === null || state === "releasing" || state === "released") {
      throw new ApiError(503, "deployment_unavailable", `deployment "${row.name}" has no machine: PUT /v1/deployments/${row.name} to serve it again`, { name: row.name, state }, {}, true);
    }
    if (state === "stopped" && !woken) {
      // A request wakes a stopped deployment; a start its org's budget refuses is the answer (402),
      // without the budget's figures: the caller holds the deployment's key, not the org's.
      await actOnLease(env, row, "start").catch((e: unknown) => {
        throw e instanceof ApiError && e.status === 402 ? startRefused(row.name) : e;
      });
      woken = true;
    }
    if (Date.now() + GATEWAY_RECHECK_MS > deadline) {
      throw new ApiError(503, "deployment_starting", `deployment "${row.name}" is ${state === "unreachable" ? "not answering yet" : state}; ask again shortly`, { name: row.name, state }, { "Retry-After": String(STARTING_RETRY_AFTER_S) }, true);
    }
    await new Promise((r) => setTimeout(r, GATEWAY_RECHECK_MS));
  }
}
