/** An offer as the API answers it (`renderOffer`), as a schema for the OpenAPI document. */
import { z } from "@hono/zod-openapi";
import { sameShape } from "../same-shape";
import { AVAILABILITY } from "./offer";
import type { renderOffer } from "./offers-repo";

export const OfferSchema = z
  .object({
    id: z.string(),
    provider: z.string(),
    provider_offer_id: z.string().describe("the provider's own id for the offer"),
    gpu: z.string().describe("GPU class, or `cpu` for a machine without GPUs"),
    gpu_count: z.number().int(),
    vram_gb: z.number().describe("memory of one GPU"),
    vcpu: z.number().int(),
    memory_gb: z.number(),
    disk_gb: z.number(),
    region: z.string(),
    host_id: z.string(),
    hourly_usd: z.number(),
    availability: z.enum(AVAILABILITY),
    spot: z.boolean(),
  })
  .openapi("Offer");

sameShape<z.infer<typeof OfferSchema>, ReturnType<typeof renderOffer>>(true);
