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
    host_duration_s: z.number().nullable().describe("how long the host stays rentable, seconds from when the offer was read; null: the provider ends no rental on its own"),
    cuda_max: z.number().nullable().describe("the newest CUDA version the host is known to run; null: not stated"),
    inet_down_usd_per_gb: z.number().nullable().describe("download billed, $ per GB; null: not billed"),
    inet_up_usd_per_gb: z.number().nullable().describe("upload billed, $ per GB; null: not billed"),
    stopped_hourly_usd: z.number().nullable().describe("what a stopped machine of this offer bills per hour for its kept disk; null: nothing (a stop ends billing, or no stop), or not stated"),
    reliability: z.number().nullable().describe("the host's reliability score as its provider states it, 0 to 1; null: not stated"),
    inet_down_mbps: z.number().nullable().describe("the host's measured download speed, Mbps; null: not stated"),
    inet_up_mbps: z.number().nullable().describe("the host's measured upload speed, Mbps; null: not stated"),
    startup_s: z
      .number()
      .int()
      .nullable()
      .describe("how long a machine of this offer takes from create to running, seconds, as its provider states it; null: not stated (no real provider states one; the sim states its boot model's)"),
    on_demand_hourly_usd: z
      .number()
      .nullable()
      .describe("a spot offer's on-demand price beside it, where its provider states one for the same machine; null: on-demand, or not stated (docs/providers.md \"Spot\")"),
  })
  .openapi("Offer");

sameShape<z.infer<typeof OfferSchema>, ReturnType<typeof renderOffer>>(true);
