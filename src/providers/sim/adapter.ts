/** The adapter for `sim`: the same shape as a real provider's adapter, over the sim's HTTP API. */
import { classifyGpu, vramOf } from "../../catalog/gpu-classes";
import type { Offer } from "../../catalog/offer";
import type { Env } from "../../env";
import { ProviderError, type OfferListing, type Provider, type ProviderCapabilities } from "../contract";
import type { SimOffer } from "./offers";

/** The one sim cloud of an installation. */
export const SIM_OBJECT_NAME = "sim";

export class SimProvider implements Provider {
  readonly name = "sim";
  readonly capabilities: ProviderCapabilities = {
    stop: true,
    start: true,
    list_by_label: true,
    billing_records: true,
    webhooks: true,
    stop_ends_billing: false,
    spot: true,
  };

  constructor(private readonly env: Env) {}

  async listOffers(): Promise<OfferListing> {
    const body = await this.#call<{ offers: SimOffer[] }>("GET", "/v1/offers");
    const offers: Offer[] = [];
    let unclassified = 0;
    for (const o of body.offers) {
      const offer = this.#normalize(o);
      if (offer) offers.push(offer);
      else unclassified++;
    }
    return { offers, unclassified };
  }

  #normalize(o: SimOffer): Offer | null {
    const base = {
      id: `sim:${o.offer_id}`,
      provider: this.name,
      provider_offer_id: o.offer_id,
      vcpu: o.vcpus,
      memory_gb: o.ram_gb,
      disk_gb: o.disk_gb,
      region: o.region,
      host_id: o.host_id,
      hourly_usd: o.price_per_hour,
      availability: o.stock,
      spot: o.interruptible,
    };
    if (o.num_gpus === 0) return { ...base, gpu: "cpu", gpu_count: 0, vram_gb: 0 };
    const gpu = classifyGpu(o.gpu_name, o.gpu_memory_gb);
    if (!gpu) return null;
    return { ...base, gpu, gpu_count: o.num_gpus, vram_gb: vramOf(gpu) };
  }

  async #call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const stub = this.env.SIM.get(this.env.SIM.idFromName(SIM_OBJECT_NAME));
    const init: RequestInit = { method, headers: { "content-type": "application/json" } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const res = await stub.fetch(`https://sim.internal${path}`, init);
    if (res.status === 429) {
      const retry = Number(res.headers.get("retry-after") ?? "1");
      throw new ProviderError(this.name, "rate_limited", "sim: rate limited", retry * 1000);
    }
    if (res.status >= 500) throw new ProviderError(this.name, "unavailable", `sim: ${res.status}`);
    if (res.status === 404) throw new ProviderError(this.name, "not_found", `sim: ${method} ${path} not found`);
    if (!res.ok) throw new ProviderError(this.name, "unavailable", `sim: unexpected ${res.status}`);
    return (await res.json()) as T;
  }
}
