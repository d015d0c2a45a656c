/**
 * What the catalog lists for one org: only offers of the providers it can rent from
 * (src/providers/registry.ts `usableProviderNames`), so the catalog never shows a machine a quote
 * for the org could not choose. The routes are functions/v1/catalog.ts.
 */
import type { Db } from "../db";
import type { OfferRow } from "../db/schema";
import type { Env } from "../env";
import { usableProviderNames } from "../providers/registry";
import { badHostsOf, type BadHosts } from "./bad-hosts";
import { GPU_CLASS_NAMES, GPU_CLASSES } from "./gpu-classes";
import { listOffers, summarizeClasses, type OfferFilters } from "./offers-repo";

/** Every GPU class, with how many offers the org can rent of it and the cheapest one's price. */
export async function gpuClassesFor(db: Db, env: Env, orgId: string) {
  const summary = new Map((await summarizeClasses(db, await usableProviderNames(env, db, orgId))).map((s) => [s.gpu_class, s]));
  return GPU_CLASS_NAMES.map((name) => ({
    name,
    vram_gb: GPU_CLASSES[name].vram_gb,
    offers: summary.get(name)?.offers ?? 0,
    cheapest_hourly_usd: summary.get(name)?.cheapest ?? null,
  }));
}

/**
 * A page of the offers the org can rent, cheapest first (one row more than `limit`), and the org's
 * bad hosts at `now`: their offers are listed, marked, since no selection of the org picks them.
 */
export async function offersFor(
  db: Db,
  env: Env,
  orgId: string,
  filters: OfferFilters,
  page: { after: { k: number; id: string } | null; limit: number },
  now: number,
): Promise<{ rows: OfferRow[]; badHosts: BadHosts }> {
  const [providers, badHosts] = await Promise.all([usableProviderNames(env, db, orgId), badHostsOf(db, orgId, now)]);
  return { rows: await listOffers(db, filters, providers, page.limit, page.after), badHosts };
}
