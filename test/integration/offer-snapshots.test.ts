/**
 * Quotes read offers from the isolate's snapshot (src/catalog/offers-repo.ts `OfferSnapshots`),
 * used only while its catalog generation is the one D1 last answered: after a refresh in the same
 * isolate, the next quote is built from the refreshed offers; after one in another isolate, within
 * SNAPSHOT_TRUST_MS (SNAPSHOT_CONFIRM_MS and a background read on a busy isolate).
 */
import { env } from "cloudflare:test";
import { beforeAll, expect, it } from "vitest";
import type { Offer } from "../../src/catalog/offer";
import { OfferSnapshots, replaceProviderOffers, SNAPSHOT_CONFIRM_MS, SNAPSHOT_TRUST_MS, type Background } from "../../src/catalog/offers-repo";
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

it("another isolate's refresh is seen within SNAPSHOT_TRUST_MS: asked in the background after SNAPSHOT_CONFIRM_MS, waited for after SNAPSHOT_TRUST_MS", async () => {
  // A snapshot cache of its own, which the refreshes below do not tell (as another isolate's).
  const snapshots = new OfferSnapshots();
  const db = database(env.DB);
  const ids = async (now: number, background?: Background) => (await snapshots.get(db, "h100", now, background)).offers.map((o) => o.id).filter((id) => id.startsWith("sim:t"));
  await market([offer("t1", 30)]);
  const t0 = Date.now();
  expect(await ids(t0)).toEqual(["sim:t1"]);

  await market([offer("t2", 30)]);
  // Within SNAPSHOT_CONFIRM_MS: the snapshot as it was, and nothing asked of D1.
  const pending: Promise<unknown>[] = [];
  expect(await ids(t0 + SNAPSHOT_CONFIRM_MS - 1, (w) => pending.push(w))).toEqual(["sim:t1"]);
  expect(pending).toHaveLength(0);
  // After it: still answered from the snapshot, while the generation is asked in the background...
  expect(await ids(t0 + SNAPSHOT_CONFIRM_MS, (w) => pending.push(w))).toEqual(["sim:t1"]);
  expect(pending).toHaveLength(1);
  await Promise.all(pending);
  // ... and the next is built from the refreshed offers.
  expect(await ids(t0 + SNAPSHOT_CONFIRM_MS + 1)).toEqual(["sim:t2"]);

  // After SNAPSHOT_TRUST_MS the confirmation is waited for, even when it could go to the background.
  await market([offer("t3", 30)]);
  const late = t0 + SNAPSHOT_CONFIRM_MS + 1 + SNAPSHOT_TRUST_MS;
  expect(await ids(late, () => {
    throw new Error("not in the background");
  })).toEqual(["sim:t3"]);
});
