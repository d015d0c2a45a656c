/**
 * The /v1 HTTP surface: one Hono app, one sub-app per URL area, one error envelope built in
 * `onError` (STYLE.md rule 2). Public routes are registered before `authenticate`, so they are the
 * only ones reachable without a credential.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { configProblemsCached } from "../src/config";
import { ApiError, HIDDEN_MESSAGE } from "../src/errors";
import { newId } from "../src/ids";
import { jsonResponse, router, type AppEnv } from "./context";
import { authenticate } from "./middleware";
import { agentRoutes } from "./v1/agent";
import { issuerRoutes } from "./v1/auth";
import { catalogRoutes } from "./v1/catalog";
import { deploymentRoutes } from "./v1/deployments";
import { volumeRoutes } from "./v1/volumes";
import { eventRoutes } from "./v1/events";
import { gatewayRoutes } from "./v1/gateway";
import { ingressRoutes } from "./v1/ingress";
import { keyRoutes } from "./v1/keys";
import { leaseRoutes } from "./v1/leases";
import { uploadRoutes } from "./v1/uploads";
import { machineRoutes } from "./v1/machines";
import { meterRoutes } from "./v1/meter";
import { budgetRoutes } from "./v1/budget";
import { quotaRoutes } from "./v1/quota";
import { orgRoutes } from "./v1/org";
import { bootstrapRoutes } from "./v1/orgs";
import { providerRoutes } from "./v1/providers";
import { quoteRoutes } from "./v1/quotes";
import { receiptRoutes } from "./v1/receipts";
import { simRoutes } from "./v1/sim";
import { usageRoutes } from "./v1/usage";
import { webhookRoutes } from "./v1/webhooks";
import type { Context } from "hono";
import { MAX_BODY_BYTES, streamsOwnBody } from "../src/body-limit";

/** How much of an oversized body is read (and dropped) before its 413 is answered. */
const DRAIN_MAX_BYTES = 16 * 1024 * 1024;
export const VERSION = "0.1.0";

/**
 * The body's bytes when it is at most MAX_BODY_BYTES; past that it is read on and dropped, up to
 * DRAIN_MAX_BYTES, and "too_large" is the answer.
 */
async function readLimited(stream: ReadableStream<Uint8Array>): Promise<Uint8Array | "too_large"> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size <= MAX_BODY_BYTES) chunks.push(value);
      else if (size > DRAIN_MAX_BYTES) break;
    }
  } finally {
    reader.releaseLock();
  }
  if (size > MAX_BODY_BYTES) return "too_large";
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.length;
  }
  return body;
}

const STATUS_CODES: Record<number, string> = {
  400: "invalid_request",
  401: "unauthenticated",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  413: "payload_too_large",
  415: "unsupported_media_type",
  429: "rate_limited",
};

function envelope(c: Context<AppEnv>, err: ApiError) {
  for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
  // A 500 never shows its own text (STYLE.md rule 2): only the code and the request id.
  const shown = err.expose && err.status !== 500;
  return c.json(
    {
      error: { code: err.code, message: shown ? err.message : HIDDEN_MESSAGE, details: shown ? err.details : {} },
      request_id: c.var.requestId,
    },
    err.status as ContentfulStatusCode,
  );
}

export function toApiError(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (err instanceof HTTPException && err.status < 500) {
    const message = err.status === 400 && /JSON/i.test(err.message) ? "the body is not valid JSON" : err.message;
    return new ApiError(err.status, STATUS_CODES[err.status] ?? "invalid_request", message || "invalid request");
  }
  // A path with a malformed percent-escape fails to decode deep inside routing.
  if (err instanceof URIError) return new ApiError(400, "invalid_path", "the path is not valid percent-encoded UTF-8");
  return null;
}

export function createApp() {
  const app = router();

  app.use("*", async (c, next) => {
    c.set("requestId", newId("req"));
    c.set("now", Date.now());
    await next();
    c.header("X-Request-Id", c.var.requestId);
  });

  app.onError((err, c) => {
    const known = toApiError(err);
    if (known) return envelope(c, known);
    console.error(JSON.stringify({ msg: "unhandled error", request_id: c.var.requestId, error: String(err), stack: (err as Error)?.stack }));
    return envelope(c, new ApiError(500, "internal", HIDDEN_MESSAGE));
  });

  // An installation that is not configured to run safely serves nothing, healthz included, so a
  // load balancer or `wrangler tail` shows it at once (src/config.ts).
  app.use("*", async (c, next) => {
    const problems = configProblemsCached(c.env);
    if (problems.length > 0) {
      console.error(JSON.stringify({ msg: "refusing to serve: installation misconfigured", problems }));
      // Shown: it names settings, never their values, and an operator reads it at the door.
      throw new ApiError(503, "misconfigured", `this installation is not configured to serve: ${problems.join("; ")}`, { problems }, {}, true);
    }
    await next();
  });

  app.notFound((c) => envelope(c, new ApiError(404, "not_found", `no route for ${c.req.method} ${new URL(c.req.url).pathname}`)));

  /**
   * Every /v1 body is held to MAX_BODY_BYTES here, in one place. A body over the limit is read on
   * to its end, up to DRAIN_MAX_BYTES, before the 413 is answered, whether it declared its size or
   * was sent chunked: a server that answers while the client is still sending leaves the answer to
   * race the upload, and a proxy in between (wrangler dev's) was seen to deliver the 413's headers
   * without its body. A declared Content-Length does not shorten that race, so it is no reason to
   * answer sooner; one past DRAIN_MAX_BYTES (and a chunked body that grows past it) is answered at
   * once. A sized body within the limit goes on unread: the runtime delivers no more than declared.
   */
  app.use("/v1/*", async (c, next) => {
    const raw = c.req.raw;
    const declared = raw.headers.has("transfer-encoding") ? null : raw.headers.get("content-length");
    const size = declared === null ? null : Number(declared);
    if (!raw.body || (size !== null && size <= MAX_BODY_BYTES) || streamsOwnBody(raw.method, new URL(raw.url).pathname)) return next();
    let body: Uint8Array | "too_large";
    try {
      body = size !== null && size > DRAIN_MAX_BYTES ? "too_large" : await readLimited(raw.body);
    } catch {
      // A client that goes away mid-upload makes the read throw whatever its stream failed with,
      // which was a 500 (guarantee 12; found by test/integration/fuzz.test.ts). It is the
      // client's fault: 400.
      throw new ApiError(400, "invalid_request", "the request body could not be read to its end");
    }
    if (body === "too_large") {
      throw new ApiError(413, "payload_too_large", `request bodies are limited to ${MAX_BODY_BYTES} bytes`, { max_bytes: MAX_BODY_BYTES });
    }
    const headers = new Headers(raw.headers);
    headers.delete("transfer-encoding");
    headers.set("content-length", String(body.length));
    c.req.raw = new Request(raw, { body, headers });
    await next();
  });

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/healthz",
      summary: "Liveness (no authentication)",
      responses: { 200: jsonResponse(z.object({ ok: z.boolean(), version: z.string() }), "Serving") },
    }),
    (c) => c.json({ ok: true, version: VERSION }, 200),
  );

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "An API key (`lsr_...`) or a JWT from one of the org's trusted issuers",
  });
  app.doc31("/v1/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "lessor",
      version: VERSION,
      description: "GPU lease control plane. Every error is `{error: {code, message, details}, request_id}`.",
    },
  });

  // The interactive reference of the document above, `/docs/`, is not the Worker's: it is a static
  // page of wrangler.toml's [assets] (scripts/build-console.mjs `referenceFiles`), whose scripts
  // are this origin's own files (docs/security.md, hardening item 12).

  app.route("/v1", bootstrapRoutes);
  app.route("/v1", simRoutes);
  app.route("/v1", meterRoutes);
  // The machine agent authenticates with its lease token, never with a key (functions/v1/agent.ts).
  app.route("/v1", agentRoutes);
  // Providers' webhooks prove themselves by the installation's ingress token and their signature.
  app.route("/v1", ingressRoutes);
  // A deployment's gateway authenticates with the deployment's own api_key (functions/v1/gateway.ts).
  app.route("/v1", gatewayRoutes);
  app.use("/v1/*", authenticate);
  app.route("/v1", orgRoutes);
  app.route("/v1", keyRoutes);
  app.route("/v1", issuerRoutes);
  app.route("/v1", providerRoutes);
  app.route("/v1", catalogRoutes);
  app.route("/v1", quoteRoutes);
  app.route("/v1", leaseRoutes);
  app.route("/v1", uploadRoutes);
  app.route("/v1", deploymentRoutes);
  app.route("/v1", volumeRoutes);
  app.route("/v1", machineRoutes);
  app.route("/v1", budgetRoutes);
  app.route("/v1", quotaRoutes);
  app.route("/v1", usageRoutes);
  app.route("/v1", receiptRoutes);
  app.route("/v1", eventRoutes);
  app.route("/v1", webhookRoutes);
  return app;
}
