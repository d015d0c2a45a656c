/**
 * Quotes read offers from the isolate's snapshot (src/catalog/offers-repo.ts `OfferSnapshots`),
 * and a quote is stored only while the snapshot's catalog generation is current: after a refresh,
 * the next quote is built from the refreshed offers, never from what the isolate held before.
 */
import { env } from "cloudflare:test";
import { beforeAll, expect, it } from "vitest";
import type { Offer } from "../../src/catalog/offer";
import { replaceProviderOffers } from "../../src/catalog/offers-repo";
import { database } from "../../src/db";
import { call, createKey, createOrg, expectError, json } from "./helpers";

let key: string;

beforeAll(async () => {
  key = (await createKey(await createOrg(), "write")).secret;
});

function offer(id: string, hourly_usd: number, gpu_count = 8): Offer {
  return {
    id: `sim:${id}`,
    provider: "sim",
    provider_offer_id: id,
    gpu: "h100",
    gpu_count,
    vram_gb: 80,
    vcpu: 64,
    memory_gb: 512,
    disk_gb: 1000,
    region: "us-east",
    host_id: `host-${id}`,
    hourly_usd,
    availability: "high",
    spot: false,
  };
}

let clock = Date.now();
const market = (offers: Offer[]) => replaceProviderOffers(database(env.DB), env.DB, "sim", offers, ++clock);
const quote = () => call("POST", "/v1/quotes", { key, body: { spec: { gpu: "h100:8" } } });

it("a quote after a refresh is built from the refreshed offers", async () => {
  await market([offer("a", 30), offer("b", 31)]);
  const first = await json(await quote());
  expect(first.offer.id).toBe("sim:a");
  // Served from the snapshot the first quote read.
  expect((await json(await quote())).offer.id).toBe("sim:a");

  await market([offer("a", 30), offer("b", 31), offer("c", 10)]);
  const after = await json(await quote());
  expect(after.offer.id).toBe("sim:c");
  expect(after.candidates).toBe(3);
  // What was stored is what was answered.
  expect(await json(await call("GET", `/v1/quotes/${after.id}`, { key }))).toEqual(after);
});

it("no_capacity is said about the current offers, not a remembered snapshot", async () => {
  await market([offer("d", 20)]);
  expect((await json(await quote())).offer.id).toBe("sim:d");
  await market([offer("e", 20, 4)]);
  const err = await expectError(await quote(), 409, "no_capacity");
  expect(err.details).toMatchObject({ constraint: "gpu" });
  await market([offer("f", 25)]);
  expect((await json(await quote())).offer.id).toBe("sim:f");
});
