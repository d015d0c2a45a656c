/**
 * The gateway (docs/deployments.md "The gateway"): `/v1/gateway/{deployment id}/v1/...` proxied to
 * the deployment's model server. The caller proves itself with the deployment's api_key, never an
 * org's key; lessor sends the machine's own key instead (src/deployments/object.ts `request`), and
 * streams the answer back as it comes. The deployment's object (object.ts) picks the replica (the
 * ready one with the fewest requests in flight) and sends the request there itself: one call per
 * request, answered from its memory. A deployment that is stopped is started, and a request to one
 * that is starting is held up to LESSOR_GATEWAY_WAKE_WAIT, then answered 503 `deployment_starting`
 * with Retry-After.
 */
import type { Db } from "../db";
import type { Env } from "../env";
import { ApiError } from "../errors";
import type { RateDecision } from "../auth/token-bucket";
import { hexEquals, sha256Hex } from "../ids";
import { gatewayRateLimit } from "./gateway-budget";
import { answeredHeaders, forwardedHeaders } from "./gateway-headers";
import { deploymentById, deploymentKey, deploymentStub, objectSummary } from "./deployments";
import type { DeploymentKeyCheck, RequestAnswer } from "./object";
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
 * The deployments whose key this isolate has checked against the row: only for them is the quick
 * path (the deployment's object first) taken, so a request for an id nobody holds a key to reads
 * D1 and never makes an object. A hint, never a credential: the object lets through only the very
 * digest it holds.
 */
const KNOWN = new Set<string>();
const KNOWN_MAX = 1_000;

function remember(id: string): void {
  KNOWN.delete(id);
  KNOWN.add(id);
  // The oldest entry goes first (a Set iterates in insertion order).
  if (KNOWN.size > KNOWN_MAX) KNOWN.delete(KNOWN.values().next().value!);
}

/**
 * One request through the gateway. `path` begins with `/v1/`; `token` is the caller's bearer.
 * A wrong or missing key is 401 whether or not the deployment exists.
 *
 * The quick path: the deployment's object holds the SHA-256 of its api_key (seeded by the full
 * path, replaced by `rotate-key` before the new key is stored); a request whose key's digest it
 * holds is sent on without reading the deployment's row. Any other answer sends it down the full
 * path, which reads the row, checks the key as stored, and hands the object the row and the digest.
 * A rotated key therefore stops working at once, in every isolate.
 */
export async function gatewayRequest(
  db: Db,
  env: Env,
  input: { deploymentId: string; token: string | null; path: string; method: string; headers: Headers; body: ArrayBuffer | null },
): Promise<Response> {
  if (input.token === null) throw refused();
  const digest = await sha256Hex(input.token);
  const init = { method: input.method, headers: forwardedHeaders(input.headers), body: input.body };
  const stub = deploymentStub(env, input.deploymentId);
  const waitId = crypto.randomUUID();
  const limit = gatewayRateLimit(env);
  // Whether this request has spent its unit of the deployment's budget: an object that checked the
  // key and then answered a state took it, and is not asked for another while the request waits.
  let counted = false;
  let out: RequestAnswer | null = null;
  let proof: DeploymentKeyCheck = { digest };
  if (KNOWN.has(input.deploymentId)) {
    out = await stub.request(input.path, init, { digest }, { limit_per_minute: limit, counted }, waitId);
    if (out instanceof Response) return answered(out);
    if ("limited" in out) throw overBudget(out.limited);
  }
  if (out === null || "check" in out) {
    const row = await deploymentById(db, input.deploymentId);
    const key = row ? await deploymentKey(env, row) : null;
    if (!row || key === null || !hexEquals(digest, await sha256Hex(key))) throw refused();
    remember(row.id);
    proof = { verified: digest, summary: objectSummary(row) };
    out = await stub.request(input.path, init, proof, { limit_per_minute: limit, counted }, waitId);
  }
  const deadline = Date.now() + (wakeWaitMs(env) ?? GATEWAY_WAKE_WAIT_MS);
  let woken = false;
  for (;;) {
    if (out instanceof Response) return answered(out);
    if ("limited" in out) throw overBudget(out.limited);
    if ("check" in out) throw refused();
    counted = true;
    const { state, name } = out;
    if (state === "releasing" || state === "released") {
      throw new ApiError(503, "deployment_unavailable", `deployment "${name}" has no machine: PUT /v1/deployments/${name} to serve it again`, { name, state }, {}, true);
    }
    if (state === "stopped" && !woken) {
      // A request wakes a stopped deployment; a start its org's budget refuses is the answer (402),
      // without the budget's figures: the caller holds the deployment's key, not the org's.
      const woke = await stub.wake();
      if (woke === "over_budget") throw startRefused(name);
      woken = true;
    }
    if (Date.now() + GATEWAY_RECHECK_MS > deadline) {
      throw new ApiError(503, "deployment_starting", `deployment "${name}" is ${state === "unreachable" ? "not answering yet" : state}; ask again shortly`, { name, state }, { "Retry-After": String(STARTING_RETRY_AFTER_S) }, true);
    }
    await new Promise((r) => setTimeout(r, GATEWAY_RECHECK_MS));
    out = await stub.request(input.path, init, proof, { limit_per_minute: limit, counted }, waitId);
  }
}
