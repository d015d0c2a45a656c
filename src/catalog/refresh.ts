/**
 * Catalog refresh (cron): every configured provider's offers replace that provider's cached ones.
 * A provider that fails keeps its previous offers and is reported; the others still refresh. A
 * provider that needs a key is read with one org's key (registry.ts `catalogProviders`); one that
 * no org has a key for yet is reported and not read.
 */
import { database } from "../db";
import type { Env } from "../env";
import { catalogProviders } from "../providers/registry";
import { replaceProviderOffers } from "./offers-repo";

export interface RefreshReport {
  provider: string;
  ok: boolean;
  offers: number;
  unclassified: number;
  error?: string;
}

export async function refreshOffers(env: Env, now: number): Promise<RefreshReport[]> {
  const db = database(env.DB);
  const reports: RefreshReport[] = [];
  const { readers, keyless } = await catalogProviders(env, db);
  for (const provider of keyless) reports.push({ provider, ok: false, offers: 0, unclassified: 0, error: "no org has stored a key for this provider" });
  for (const provider of readers) {
    try {
      const { offers, unclassified } = await provider.listOffers();
      await replaceProviderOffers(db, env.DB, provider.name, offers, now);
      if (unclassified > 0) {
        console.log(JSON.stringify({ msg: "offers left out: GPU matched no class", provider: provider.name, unclassified }));
      }
      reports.push({ provider: provider.name, ok: true, offers: offers.length, unclassified });
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      console.error(JSON.stringify({ msg: "offer refresh failed", provider: provider.name, error }));
      reports.push({ provider: provider.name, ok: false, offers: 0, unclassified: 0, error });
    }
  }
  return reports;
}
