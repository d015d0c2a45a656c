/**
 * `/v1/gateway/:id/v1/*`: a deployment's OpenAI-compatible API (src/deployments/gateway.ts,
 * docs/deployments.md). Authenticated by the deployment's own api_key, so mounted before the org
 * authentication; every method, every path under it, answers streamed as they come. Not in the
 * OpenAPI document: what it answers is the model server's (OpenAI's API).
 */
import { database } from "../../src/db";
import { gatewayRequest } from "../../src/deployments/gateway";
import { router } from "../context";
import { bearerToken } from "../middleware";

const PREFIX = /^\/v1\/gateway\/([^/]+)(\/v1\/.*)$/;

/** Every method, every path under a deployment's base URL. */
const GATEWAY = { path: "/gateway/:id/v1/*" } as const;

export const gatewayRoutes = router().all(GATEWAY.path, async (c) => {
  const url = new URL(c.req.url);
  const [, id, path] = PREFIX.exec(url.pathname) ?? [];
  const method = c.req.method;
  const body = method === "GET" || method === "HEAD" ? null : await c.req.arrayBuffer();
  return gatewayRequest(database(c.env.DB), c.env, {
    deploymentId: decodeURIComponent(id!),
    token: bearerToken(c.req.header("authorization")),
    path: `${path!}${url.search}`,
    method,
    headers: c.req.raw.headers,
    body,
  });
});
