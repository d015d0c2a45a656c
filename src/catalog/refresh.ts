/**
 * Catalog refresh (cron): every configured provider's offers replace that provider's cached ones.
 *
 * Providers are read side by side, so one slow market never holds up another. A provider that
 * needs a key is read with the keys orgs stored for it, most recently verified first, each tried
 * in turn until one reads the market (registry.ts `catalogProviders`; docs/design.md "Markets"): one
 * org's revoked or rate-limited key never stops the market from being read for everyone. A
 * provider whose market cannot be read keeps its previous offers, and the failure is recorded in
 * `offer_markets`; its offers turn stale OFFER_MAX_AGE_MS after the last successful read, and are
 * then never quoted. A provider no org has a key for yet is reported and not read.
 */
import { database, type Db } from "../db";
import type { Env } from "../env";
import { errorText } from "../errors";
import { ProviderError } from "../providers/contract";
import { catalogProviders, type MarketReaders } from "../providers/registry";
import type { OfferListing } from "../providers/contract";
import { recordMarketFailure, replaceProviderOffers } from "./offers-repo";

/**
 * After this long trying one provider's keys, no further key is tried this run: the next run (a
 * minute later) starts again with the first. Each adapter call has its own timeout (http.ts).
 */
export const MARKET_REFRESH_BUDGET_MS = 45_000;

export interface RefreshReport {
  provider: string;
  ok: boolean;
  offers: number;
  unclassified: number;
  /** How many keys were tried (1 for a keyless provider that answered). */
  attempts: number;
  error?: string;
}

export async function refreshOffers(env: Env, now: number): Promise<RefreshReport[]> {
  const db = database(env.DB);
  const { markets, keyless } = await catalogProviders(env, db);
  const reports = await Promise.all(markets.map((market) => refreshMarket(env, db, market, now)));
  for (const provider of keyless) {
    await recordMarketFailure(db, provider, "no_key", now);
    reports.push({ provider, ok: false, offers: 0, unclassified: 0, attempts: 0, error: "no org has stored a usable key for this provider" });
  }
  return reports;
}

async function refreshMarket(env: Env, db: Db, market: MarketReaders, now: number): Promise<RefreshReport> {
  const provider = market.name;
  const started = Date.now();
  const kinds: string[] = [];
  let lastError = "";
  let listing: OfferListing | null = null;
  for (const reader of market.readers) {
    if (kinds.length > 0 && Date.now() - started > MARKET_REFRESH_BUDGET_MS) break;
    try {
      listing = await reader.listOffers();
      break;
    } catch (e) {
      kinds.push(e instanceof ProviderError ? e.kind : "error");
      lastError = errorText(e);
      console.error(JSON.stringify({ msg: "offer refresh failed with one key; trying the next", provider, attempt: kinds.length, error: lastError }));
    }
  }
  const attempts = kinds.length + (listing ? 1 : 0);
  if (!listing) {
    // Kinds only: every org reads this in GET /v1/providers, and the words came through one org's key.
    const error = `${[...new Set(kinds)].join(", ")} (${attempts} key${attempts === 1 ? "" : "s"} tried)`;
    await recordMarketFailure(db, provider, error, now);
    return { provider, ok: false, offers: 0, unclassified: 0, attempts, error: lastError };
  }
  try {
    await replaceProviderOffers(db, env.DB, provider, listing.offers, now);
  } catch (e) {
    const error = errorText(e);
    console.error(JSON.stringify({ msg: "offer refresh failed to store", provider, error }));
    return { provider, ok: false, offers: 0, unclassified: 0, attempts, error };
  }
  if (listing.unclassified > 0) {
    console.log(JSON.stringify({ msg: "offers left out: GPU matched no class", provider, unclassified: listing.unclassified }));
  }
  return { provider, ok: true, offers: listing.offers.length, unclassified: listing.unclassified, attempts };
}
