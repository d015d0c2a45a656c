/**
 * Quotes: an immutable, short-lived answer to a spec (DESIGN.md "quote"). Built from the offer
 * cache by the pure selector, stored once, never changed.
 */
import { z } from "@hono/zod-openapi";
import type { Db } from "../db";
import { formatDuration } from "../duration";
import { ApiError } from "../errors";
import { newId } from "../ids";
import { cappedDurationMs, LEASE_KINDS, PolicyInputSchema, resolvePolicy } from "../lease/policy";
import { candidateOffers, fittingOffers, renderOffer } from "./offers-repo";
import { constraintsOf, selectOffer } from "./selector";
import { assertSpecAsksForSomething, parseGpuToken, SpecSchema, type Spec } from "./spec";

/** How long a quote may be used to lease (DESIGN.md: at most five minutes). */
export const QUOTE_TTL_MS = 5 * 60_000;

export const QuoteRequestSchema = z
  .strictObject({
    spec: SpecSchema,
    kind: z.enum(LEASE_KINDS).default("scratch").optional(),
    policy: PolicyInputSchema.optional(),
  })
  .openapi("QuoteRequest");

export type QuoteRequest = z.infer<typeof QuoteRequestSchema>;

const usd = (x: number) => Math.round(x * 10_000) / 10_000;

/** The chosen offer and its ranked fallbacks for a spec, or 409 `no_capacity` naming why not. */
export async function chooseOffers(db: Db, spec: Spec, providers: readonly string[]) {
  assertSpecAsksForSomething(spec);
  const token = spec.gpu !== undefined ? parseGpuToken(spec.gpu) : null;
  const narrowing = token
    ? token.gpu
    : spec.cpu !== undefined
      ? "cpu"
      : spec.min_vram_gb !== undefined || spec.min_gpus !== undefined
        ? "any-gpu"
        : null;
  const constraints = constraintsOf(spec, token, providers);
  let selection = selectOffer(await fittingOffers(db, narrowing, spec, token, providers), constraints);
  // Nothing fits: read the wider set once more, only to say which constraint removed the last.
  if (!selection.ok) selection = selectOffer(await candidateOffers(db, narrowing), constraints);
  if (!selection.ok) {
    throw new ApiError(409, "no_capacity", `no offer fits: the "${selection.constraint}" constraint removed the last candidates`, {
      constraint: selection.constraint,
      candidates_before: selection.candidates_before,
    });
  }
  return selection;
}

export async function createQuote(db: Db, orgId: string, req: QuoteRequest, providers: readonly string[], now: number) {
  const { spec } = req;
  const kind = req.kind ?? "scratch";
  const caps = resolvePolicy(kind, req.policy);
  const selection = await chooseOffers(db, spec, providers);
  const capped = cappedDurationMs(caps);
  const hourly = selection.chosen.hourly_usd;
  const quote = {
    id: newId("qt", now),
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + QUOTE_TTL_MS).toISOString(),
    kind,
    spec,
    policy: {
      ttl: caps.ttl === null ? null : formatDuration(caps.ttl),
      max_lifetime: caps.max_lifetime === null ? null : formatDuration(caps.max_lifetime),
    },
    offer: renderOffer(selection.chosen),
    fallbacks: selection.fallbacks.map(renderOffer),
    candidates: selection.candidates,
    hourly_usd: hourly,
    ceiling_usd: capped ? usd((hourly * capped.ms) / 3_600_000) : null,
    ceiling_basis: capped ? capped.basis : null,
  };
  await db
    .insertInto("quotes")
    .values({ id: quote.id, org_id: orgId, body: JSON.stringify(quote), created_at: now, expires_at: now + QUOTE_TTL_MS })
    .execute();
  return quote;
}

export type Quote = Awaited<ReturnType<typeof createQuote>>;

export async function getQuote(db: Db, orgId: string, id: string): Promise<Quote | null> {
  const row = await db
    .selectFrom("quotes")
    .select("body")
    .where("id", "=", id)
    .where("org_id", "=", orgId)
    .executeTakeFirst();
  return row ? (JSON.parse(row.body) as Quote) : null;
}
