/**
 * `/v1/gateway/:id/v1/*`: a deployment's OpenAI-compatible API (src/deployments/gateway.ts,
 * docs/deployments.md). Authenticated by the deployment's own api_key, so mounted before the org
 * authentication; every method, every path under it, answers streamed as they come. Not in the
 * OpenAPI document: what it answers is the model server's (OpenAI's API).
 */
import { database } from "../../src/db";
import { ApiError } from "../../src/errors";
import { gatewayRequest } from "../../src/deployments/gateway";
import { router } from "../context";
import { bearerToken, refusedCredential } from "../middleware";

const PREFIX = /^\/v1\/gateway\/([^/]+)(\/v1\/.*)$/;

/** Every method, every path under a deployment's base URL. */
const GATEWAY = { path: "/gateway/:id/v1/*" } as const;

export const gatewayRoutes = router().all(GATEWAY.path, async (c) => {
  const url = new URL(c.req.url);
  const [, id, path] = PREFIX.exec(url.pathname) ?? [];
  const method = c.req.method;
  const body = method === "GET" || method === "HEAD" ? null : await c.req.arrayBuffer();
  const token = bearerToken(c.req.header("authorization"));
  try {
    return await gatewayRequest(database(c.env.DB), c.env, { deploymentId: decodeURIComponent(id!), token, path: `${path!}${url.search}`, method, headers: c.req.raw.headers, body });
  } catch (e) {
    // A wrong key is a failed authentication like a wrong API key: it spends its client address's
    // failure budget, and past it the answer is 429 (docs/security.md, hardening item 13).
    if (token !== null && e instanceof ApiError && e.status === 401) throw await refusedCredential(c.env, c.req.header("cf-connecting-ip"), e);
    throw e;
  }
});
