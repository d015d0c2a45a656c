/** `POST /v1/quotes`, `GET /v1/quotes/:id`. */
import { createRoute, z } from "@hono/zod-openapi";
import { quoteFor, QuoteRequestSchema, readQuote, type Quote } from "../../src/catalog/quote";
import { OfferSchema } from "../../src/catalog/offer-schema";
import { idempotent } from "../../src/idempotency";
import { SpecSchema } from "../../src/catalog/spec";
import { database } from "../../src/db";
import { notFound } from "../../src/errors";
import { LEASE_KINDS } from "../../src/lease/policy";
import { BEARER, COMMON_ERRORS, errorResponse, IdParam, jsonBody, jsonResponse, router } from "../context";
import { requireScope } from "../middleware";
import { sameShape } from "../../src/same-shape";

const QuoteSchema = z
  .object({
    id: z.string(),
    created_at: z.string(),
    expires_at: z.string().describe("at most five minutes after created_at"),
    kind: z.enum(LEASE_KINDS),
    spec: SpecSchema,
    policy: z.object({ ttl: z.string().nullable(), max_lifetime: z.string().nullable() }),
    offer: OfferSchema,
    fallbacks: z.array(OfferSchema).max(3),
    candidates: z.number().int().describe("offers that met every constraint"),
    hourly_usd: z.number(),
    estimate: z
      .object({
        label: z.literal("estimate"),
        hourly_usd: z.number().describe("compute and bandwidth, per hour"),
        parts: z.object({ compute_usd: z.number().describe("the offer's price, per hour"), bandwidth_usd: z.number().describe("the bandwidth allowance at the offer's $/GB, per hour; 0 where not billed") }),
        bandwidth_gb_per_hour: z.object({ down: z.number(), up: z.number() }).describe("the assumed GB moved per hour, each way"),
      })
      .describe("what the lease is estimated to cost per hour, by part"),
    ceiling_usd: z
      .number()
      .nullable()
      .describe("the most the lease may cost, what its budget admission reserves: the sum of ceiling_parts; null when its hard caps leave it uncapped, or its stopped disk bills with no stopped_ttl"),
    ceiling_parts: z
      .object({
        compute_usd: z.number().describe("the machine's rate until the hard cap"),
        bandwidth_usd: z.number().describe("the egress estimate: the bandwidth allowance at the offer's per-GB prices until the hard cap (0 where the provider bills no bandwidth)"),
        outputs_wait_usd: z
          .number()
          .describe("what a release at the ttl may bill past it while it waits for the command's outputs: the rate (compute and bandwidth) for up to policy.outputs_wait, but not past max_lifetime; 0 for a deployment, or when max_lifetime ends the lease first (its release never waits)"),
        stopped_disk_usd: z.number().nullable().describe("what the kept disk may bill while stopped: the offer's stopped_hourly_usd for up to stopped_ttl (0 where a stop ends billing); null: no stopped_ttl ends it"),
        retries_usd: z
          .number()
          .describe(
            "what replacing failed hosts may add (up to host_attempts - 1 of them): under a ttl, each one's rounding up to its provider's billing increment; under max_lifetime, which a replacement begins afresh, each failed boot's boot_timeout and a minute to destroy it, rounded up to the increment",
          ),
        drift_usd: z
          .number()
          .describe("the 5% price rise a lease made from this quote may rent at (more is quote_drift), on the compute and retries"),
      })
      .nullable()
      .describe("null when the hard caps leave the lease uncapped"),
    ceiling_basis: z.enum(["ttl", "max_lifetime"]).nullable(),
  })
  .openapi("Quote");

sameShape<z.infer<typeof QuoteSchema>, Quote>(true);

export const quoteRoutes = router()
  .openapi(
    createRoute({
      method: "post",
      path: "/quotes",
      summary: "Choose the offer that fits a spec, with fallbacks, rate and cost ceiling (Idempotency-Key honoured)",
      security: BEARER,
      middleware: [requireScope("write")] as const,
      request: { headers: z.object({ "idempotency-key": z.string().optional() }), ...jsonBody(QuoteRequestSchema) },
      responses: {
        201: jsonResponse(QuoteSchema, "The quote"),
        409: errorResponse(
          "no_capacity: nothing fits; details name the constraint (and the volumes, where it names some). provider_not_configured: the spec names only providers this org has no working key for. volume_busy: a volume it names is being made or deleted. idempotency_in_progress: a request with this Idempotency-Key is still running",
          ["no_capacity", "provider_not_configured", "volume_busy", "idempotency_in_progress"],
        ),
        422: errorResponse("idempotency_mismatch: this Idempotency-Key was used with a different body", ["idempotency_mismatch"]),
        ...COMMON_ERRORS,
      },
    }),
    async (c) => {
      const db = database(c.env.DB);
      const orgId = c.var.principal.org_id;
      const body = c.req.valid("json");
      const answer = await idempotent(db, { org_id: orgId, route: "POST /v1/quotes" }, c.req.header("idempotency-key"), body, c.var.now, async () => ({
        status: 201,
        body: await quoteFor(db, c.env, orgId, body, c.var.now, (work) => c.executionCtx.waitUntil(work)),
      }));
      if (answer.replayed) c.header("Idempotent-Replayed", "true");
      return c.json(answer.body as Quote, 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/quotes/{id}",
      summary: "A quote, exactly as it was answered",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      request: { params: IdParam("qt") },
      responses: { 200: jsonResponse(QuoteSchema, "The quote"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const found = await readQuote(c.env, database(c.env.DB), c.var.principal.org_id, id);
      if (!found) throw notFound("quote", id);
      return c.json(found.quote, 200);
    },
  );
