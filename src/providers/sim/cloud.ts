/**
 * `sim`: a simulated GPU cloud that runs inside the Worker as one Durable Object. It is spoken to
 * over HTTP-shaped requests, exactly as an adapter speaks to a real provider, so the adapter and
 * the core cannot tell it from one. This issue serves its market; machines, billing, webhooks and
 * fault injection join it with leases.
 */
import { DurableObject } from "cloudflare:workers";
import { intSetting, type Env } from "../../env";
import { generateSimOffers, type SimOffer } from "./offers";

export const SIM_DEFAULT_OFFERS = 400;
export const SIM_MAX_OFFERS = 200_000;

interface SimConfig {
  offers: number;
  seed: number;
}

export class SimCloud extends DurableObject<Env> {
  #market: { key: string; offers: SimOffer[] } | null = null;

  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const route = `${request.method} ${url.pathname}`;
    switch (route) {
      case "GET /v1/offers":
        return json({ offers: this.#offers(await this.#config()) });
      case "GET /v1/config":
        return json(await this.#config());
      case "PUT /v1/config":
        return this.#putConfig(request);
      default:
        return json({ error: { code: "not_found", message: `no route ${route}` } }, 404);
    }
  }

  async #config(): Promise<SimConfig> {
    const stored = await this.ctx.storage.get<SimConfig>("config");
    return stored ?? { offers: intSetting(this.env.LESSOR_SIM_OFFERS, SIM_DEFAULT_OFFERS), seed: 1 };
  }

  async #putConfig(request: Request): Promise<Response> {
    const body = (await request.json().catch(() => null)) as Partial<SimConfig> | null;
    const current = await this.#config();
    const offers = body?.offers ?? current.offers;
    const seed = body?.seed ?? current.seed;
    if (!Number.isSafeInteger(offers) || offers < 1 || offers > SIM_MAX_OFFERS || !Number.isSafeInteger(seed)) {
      return json({ error: { code: "invalid_config", message: `offers must be 1..${SIM_MAX_OFFERS}` } }, 400);
    }
    const config = { offers, seed };
    await this.ctx.storage.put("config", config);
    return json(config);
  }

  #offers(config: SimConfig): SimOffer[] {
    const key = `${config.offers}/${config.seed}`;
    if (this.#market?.key !== key) this.#market = { key, offers: generateSimOffers(config.offers, config.seed) };
    return this.#market.offers;
  }
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}
