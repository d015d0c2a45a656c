/**
 * A quote used by a lease is checked again when it is used: not expired, its providers still
 * rentable by the org, and its price not risen beyond a tolerance since it was answered.
 */
import type { Db } from "../db";
import type { Env } from "../env";
import { ApiError, notFound } from "../errors";
import { usableProviderNames } from "../providers/registry";
import type { Offer } from "./offer";
import { readQuote, type Quote } from "./quote";
import { QUOTE_DRIFT_TOLERANCE } from "../lease/rent";

/** A quote's price may have risen this much by the time it is used; more is `quote_drift` (and up to it is reserved). */
export { QUOTE_DRIFT_TOLERANCE };

/** Rebuilds the offers a quote answered (the quote stores them as rendered). */
function quotedOffers(rendered: Array<Record<string, unknown>>): Offer[] {
  return rendered.map((o) => ({ ...(o as unknown as Offer), gpu: o.gpu as Offer["gpu"] }));
}

/**
 * The quote's offers this org may still rent, in the quote's order, the quote itself, and where it
 * is kept (`readQuote`).
 */
export async function offersOfQuote(env: Env, db: Db, orgId: string, quoteId: string, now: number): Promise<{ quote: Quote; offers: Offer[]; held: "object" | "d1" }> {
  const found = await readQuote(env, db, orgId, quoteId);
  if (!found) throw notFound("quote", quoteId);
  const { quote, held } = found;
  if (Date.parse(quote.expires_at) <= now) {
    throw new ApiError(409, "quote_expired", "the quote has expired; ask for a new one", { expires_at: quote.expires_at });
  }
  // Only providers the org can still rent from (a key deleted since the quote is not used).
  const usable = await usableProviderNames(env, db, orgId, { fresh: true });
  const quoted = quotedOffers([quote.offer, ...quote.fallbacks] as unknown as Array<Record<string, unknown>>);
  const offers = quoted.filter((o) => usable.includes(o.provider));
  if (offers.length === 0) {
    const providers = [...new Set(quoted.map((o) => o.provider))];
    throw new ApiError(409, "provider_not_configured", `this org can no longer rent from ${providers.join(", ")}; store a working key or ask for a new quote`, { providers });
  }
  const live = await db.selectFrom("offers").select("hourly_usd").where("id", "=", quote.offer.id).executeTakeFirst();
  if (live && live.hourly_usd > quote.hourly_usd * (1 + QUOTE_DRIFT_TOLERANCE)) {
    throw new ApiError(409, "quote_drift", "the offer's price has risen beyond the quote's tolerance", {
      quoted_hourly_usd: quote.hourly_usd,
      live_hourly_usd: live.hourly_usd,
      tolerance: QUOTE_DRIFT_TOLERANCE,
    });
  }
  return { quote, offers, held };
}
