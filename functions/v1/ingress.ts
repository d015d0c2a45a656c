/**
 * `POST /v1/ingress/:provider/:token`: providers' webhooks (docs/ingress.md). Public: the token in
 * the path and the provider's own signature are the proof, never an org credential. The rules are
 * in src/ingress/; this reads the raw body (signatures cover its exact bytes), answers at once, and
 * leaves the pokes it decided on to run after the answer.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { ApiError } from "../../src/errors";
import { pokeLeases, receiveIngress } from "../../src/ingress/receive";
import { errorResponse, jsonResponse, router } from "../context";
import { refusedCredential } from "../middleware";

const IngressAnswerSchema = z
  .object({
    result: z.enum(["accepted", "ignored", "duplicate"]).describe("accepted: the lease holding the machine reads it back now; ignored: see reason; duplicate: this event id was taken in within 24 h, nothing done"),
    event_id: z.string().nullable().describe("the provider's id for the event; null when it gives none (RunPod)"),
    reason: z.enum(["no_machine", "unknown_machine"]).nullable().describe("why it was ignored: the payload names no machine, or no live lease holds the one it names"),
  })
  .openapi("IngressAnswer");

const PathParams = z.object({
  provider: z.string().openapi({ param: { name: "provider", in: "path" }, example: "vast" }),
  token: z.string().openapi({ param: { name: "token", in: "path" }, description: "the provider account's ingress token" }),
});

export const ingressRoutes = router().openapi(
  createRoute({
    method: "post",
    path: "/ingress/{provider}/{token}",
    summary: "A provider's webhook: a hint that one of its machines changed; the lease holding it reads it back",
    request: {
      params: PathParams,
      // Not validated here: the signature covers the raw bytes, which src/ingress/ reads as sent.
      body: { content: { "application/json": { schema: { type: "object", description: "the provider's own payload" } } }, required: false },
    },
    responses: {
      200: jsonResponse(IngressAnswerSchema, "A delivery of an event already taken in: nothing done"),
      202: jsonResponse(IngressAnswerSchema, "Taken in; a lease that holds the machine is poked after this answer"),
      400: errorResponse("invalid_request: the body is not JSON, or the event id is longer than 256 characters", ["invalid_request"]),
      401: errorResponse("unauthenticated: the token or the provider's signature is wrong, or its timestamp more than 5 minutes off", ["unauthenticated"]),
      404: errorResponse("not_found: no webhooks from this provider, or (sim) no LESSOR_INGRESS_TOKEN", ["not_found"]),
      410: errorResponse("ingress_url_retired: the installation's token on vast or runpod", ["ingress_url_retired"]),
      413: errorResponse("payload_too_large: the body is over the limit (details.max_bytes)", ["payload_too_large"]),
      429: errorResponse("rate_limited: see details.budget (auth_failures, ingress_events) and Retry-After", ["rate_limited"]),
    },
  }),
  async (c) => {
    const { provider, token } = c.req.valid("param");
    let body: string;
    try {
      body = await c.req.text();
    } catch {
      throw new ApiError(400, "invalid_request", "the request body could not be read to its end");
    }
    let outcome;
    try {
      outcome = await receiveIngress(c.env, { provider, token, headers: c.req.raw.headers, body }, c.var.now);
    } catch (e) {
      // A wrong token or signature is a failed authentication like a wrong key.
      if (e instanceof ApiError && e.status === 401) throw await refusedCredential(c.env, c.req.header("cf-connecting-ip"), e);
      throw e;
    }
    if (outcome.leases.length > 0) c.executionCtx.waitUntil(pokeLeases(c.env, outcome.leases, outcome.told_at));
    return c.json(outcome.answer, outcome.status);
  },
);
