/** `GET /v1/catalog/gpus`, `GET /v1/catalog/offers`, `GET /v1/catalog/models`. */
import { createRoute, z } from "@hono/zod-openapi";
import { GPU_CLASS_NAMES } from "../../src/catalog/gpu-classes";
import { gpuClassesFor, offersFor } from "../../src/catalog/listing";
import { CPU_MAX_PARAMS_B, GPU_MEMORY_UTILIZATION, MAX_MODEL_LEN_CAP, MODEL_VARIANTS, MODELS, TENSOR_PARALLEL_SIZES, type Model } from "../../src/catalog/models";
import { isStale, OFFER_MAX_AGE_MS } from "../../src/catalog/offer";
import { OfferSchema } from "../../src/catalog/offer-schema";
import type { OfferRow } from "../../src/db/schema";
import { renderOffer, rowToOffer } from "../../src/catalog/offers-repo";
import { renderBadHost } from "../../src/catalog/bad-hosts";
import { BAD_HOST_REASONS } from "../../src/lease/bad-host";
import { database } from "../../src/db";
import { badRequest } from "../../src/errors";
import { decodeCursor, DEFAULT_PAGE, pageOf, PageQuery } from "../../src/pagination";
import { BEARER, COMMON_ERRORS, jsonResponse, router } from "../context";
import { requireScope } from "../middleware";

/** An offer as the catalog lists it: with the age of what lessor knows of it (docs/storage.md, `offer_markets`). */
const CatalogOfferSchema = OfferSchema.extend({
  refreshed_at: z.string().describe("when lessor last read this offer's provider market: the same for every offer of a provider"),
  stale: z
    .boolean()
    .describe(`the provider's market has not been read for more than ${OFFER_MAX_AGE_MS / 60_000} minutes: the offer may be gone, and no quote picks it`),
  bad_host: z
    .object({
      reason: z.enum(BAD_HOST_REASONS).describe("how the host failed one of this org's leases"),
      until: z.string().describe("when this org's quotes and leases may pick it again"),
    })
    .nullable()
    .describe("the offer's host failed one of this org's leases: no quote or lease of the org picks it until `until`; null: it did not"),
}).openapi("CatalogOffer");

const GpuClassSchema = z
  .object({
    name: z.string(),
    vram_gb: z.number(),
    offers: z.number().int(),
    cheapest_hourly_usd: z.number().nullable(),
  })
  .openapi("GpuClass");

const ModelSchema = z
  .object({
    id: z.string().describe("the Hugging Face repository, which is also the name the model is served under"),
    variant: z.enum(MODEL_VARIANTS).describe("the weights' precision: `bf16`, or `awq-int4` (4-bit AWQ)"),
    params_b: z.number().describe("parameters, in billions"),
    max_model_len: z
      .number()
      .int()
      .describe(`the context length, in tokens, the floors are computed for: the model's own, at most ${MAX_MODEL_LEN_CAP}`),
    min_vram_gb: z
      .number()
      .int()
      .describe(`GPU memory the model needs in all: its weights and a cache for one full sequence, over the ${GPU_MEMORY_UTILIZATION * 100}% of each GPU vLLM takes`),
    min_host_ram_gb: z.number().int().describe("machine memory the model needs"),
    fits: z
      .array(z.string())
      .describe(`GPU specs (\`class:count\`) that hold it: for each GPU class, the fewest GPUs (${TENSOR_PARALLEL_SIZES.join(", ")}) whose memory reaches \`min_vram_gb\` and over which the model splits; smallest total memory first`),
    cpu_cores: z
      .number()
      .int()
      .nullable()
      .describe(`vCPUs of a CPU-only machine that serves it; null: it is not served on CPU (only models of at most ${CPU_MAX_PARAMS_B}B parameters are)`),
  })
  .openapi("Model");

function renderModel(m: Model): z.infer<typeof ModelSchema> {
  const { id, variant, params_b, max_model_len, min_vram_gb, min_host_ram_gb, fits, cpu_cores } = m;
  return { id, variant, params_b, max_model_len, min_vram_gb, min_host_ram_gb, fits, cpu_cores };
}

const num = z.coerce.number().finite().min(0);
const OfferQuery = z.object({
  gpu: z.string().max(64).optional(),
  min_vram_gb: num.optional(),
  min_gpus: z.coerce.number().int().min(1).optional(),
  region: z.string().max(64).optional(),
  provider: z.string().max(64).optional(),
  max_hourly_usd: num.optional(),
  spot: z.enum(["true", "false"]).optional(),
  // Facts only some providers state: an offer that does not state one is never listed under a filter on it.
  min_cuda: z.coerce.number().finite().min(1).max(100).optional(),
  min_reliability: z.coerce.number().finite().min(0).max(1).optional(),
  min_inet_down_mbps: num.optional(),
  min_inet_up_mbps: num.optional(),
  max_startup_s: z.coerce.number().int().min(1).max(86_400).optional(),
  ...PageQuery,
});

export const catalogRoutes = router()
  .openapi(
    createRoute({
      method: "get",
      path: "/catalog/gpus",
      summary: "GPU classes with their offer counts and cheapest price",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      responses: { 200: jsonResponse(z.object({ data: z.array(GpuClassSchema) }), "Every GPU class"), ...COMMON_ERRORS },
    }),
    async (c) => {
      return c.json({ data: await gpuClassesFor(database(c.env.DB), c.env, c.var.principal.org_id) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/catalog/offers",
      summary: "Offers from every provider this org can rent from, cheapest first",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      request: { query: OfferQuery },
      responses: {
        200: jsonResponse(z.object({ data: z.array(CatalogOfferSchema), next_cursor: z.string().nullable() }), "A page of offers"),
        ...COMMON_ERRORS,
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const gpu = q.gpu?.toLowerCase();
      if (gpu !== undefined && gpu !== "cpu" && !(GPU_CLASS_NAMES as string[]).includes(gpu)) {
        throw badRequest("unknown_gpu", `"${q.gpu}" is not a GPU class`, { known_classes: GPU_CLASS_NAMES });
      }
      const cursor = decodeCursor(q.cursor);
      if (cursor && typeof cursor.k !== "number") throw badRequest("invalid_cursor", "the cursor is not one this service issued");
      const limit = q.limit ?? DEFAULT_PAGE;
      const now = c.var.now;
      const { rows, badHosts } = await offersFor(
        database(c.env.DB),
        c.env,
        c.var.principal.org_id,
        {
          gpu,
          min_vram_gb: q.min_vram_gb,
          min_gpus: q.min_gpus,
          region: q.region?.toLowerCase(),
          provider: q.provider?.toLowerCase(),
          max_hourly_usd: q.max_hourly_usd,
          spot: q.spot === undefined ? undefined : q.spot === "true",
          min_cuda: q.min_cuda,
          min_reliability: q.min_reliability,
          min_inet_down_mbps: q.min_inet_down_mbps,
          min_inet_up_mbps: q.min_inet_up_mbps,
          max_startup_s: q.max_startup_s,
        },
        { after: cursor as { k: number; id: string } | null, limit },
        now,
      );
      const render = (r: OfferRow) => ({
        ...renderOffer(rowToOffer(r)),
        refreshed_at: new Date(r.refreshed_at).toISOString(),
        stale: isStale(r.refreshed_at, now),
        bad_host: renderBadHost(badHosts, r.provider, r.host_id),
      });
      return c.json(pageOf(rows, limit, (r) => ({ k: r.hourly_usd, id: r.id }), render), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/catalog/models",
      summary: "Open models lessor serves, with the memory each needs and the GPU specs it fits",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      responses: { 200: jsonResponse(z.object({ data: z.array(ModelSchema) }), "Every model, smallest first"), ...COMMON_ERRORS },
    }),
    (c) => c.json({ data: MODELS.map(renderModel) }, 200),
  );
