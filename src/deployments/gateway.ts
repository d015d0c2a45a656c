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
import { hexEquals, sha256Hex } from "../ids";
import { actOnLease, deploymentById, deploymentKey, leaseStub } from "./deployments";
import { GATEWAY_WAKE_WAIT_MS, wakeWaitMs } from "./wake-wait";

/** How often a held request asks again whether the deployment is ready. */
export const GATEWAY_RECHECK_MS = 500;
/** What a 503 `deployment_starting` tells the client to wait before asking again. */
export const STARTING_RETRY_AFTER_S = 10;

/** Headers that describe one hop, or the caller's own credentials and address: never sent on. */
const NOT_FORWARDED = new Set(["authorization", "host", "connection", "keep-alive", "transfer-encoding", "te", "upgrade", "proxy-authorization", "content-length", "cookie"]);

/** The headers sent on to the model server: the caller's, less one hop's and its credentials (`cf-*`, `x-forwarded-*` too). */
export function forwardedHeaders(headers: Headers): [string, string][] {
  return [...headers].filter(([name]) => !NOT_FORWARDED.has(name) && !name.startsWith("cf-") && !name.startsWith("x-forwarded-") && name !== "x-real-ip");
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
  if (route) {
    const quick = await leaseStub(env, route.lease_id).modelRequest(route.org_id, input.path, init, { digest });
    if (quick instanceof Response) return quick;
  }
  const row = await deploymentById(db, input.deploymentId);
  const key = row ? await deploymentKey(env, row) : null;
  if (!row || key === null || !hexEquals(digest, await sha256Hex(key))) throw refused();
  remember(row.id, { lease_id: row.lease_id, org_id: row.org_id });
  const stub = leaseStub(env, row.lease_id);
  const deadline = Date.now() + (wakeWaitMs(env) ?? GATEWAY_WAKE_WAIT_MS);
  let woken = false;
  for (;;) {
    const out = await stub.modelRequest(row.org_id, input.path, init, { verified: digest });
    if (out instanceof Response) return out;
    const state = out === null ? null : "state" in out ? out.state : null;
    if (state === null || state === "releasing" || state === "released") {
      throw new ApiError(503, "deployment_unavailable", `deployment "${row.name}" has no machine: PUT /v1/deployments/${row.name} to serve it again`, { name: row.name, state }, {}, true);
    }
    if (state === "stopped" && !woken) {
      // A request wakes a stopped deployment; a start its budget refuses is the answer (402).
      await actOnLease(env, row, "start");
      woken = true;
    }
    if (Date.now() + GATEWAY_RECHECK_MS > deadline) {
      throw new ApiError(503, "deployment_starting", `deployment "${row.name}" is ${state === "unreachable" ? "not answering yet" : state}; ask again shortly`, { name: row.name, state }, { "Retry-After": String(STARTING_RETRY_AFTER_S) }, true);
    }
    await new Promise((r) => setTimeout(r, GATEWAY_RECHECK_MS));
  }
}
