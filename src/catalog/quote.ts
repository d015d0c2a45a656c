/**
 * Quotes: an immutable, short-lived answer to a spec (docs/design.md, "quote"). Built from the offer
 * cache by the pure selector, stored once, never changed.
 *
 * A quote reads its offers from this isolate's snapshot of the offer cache (offers-repo.ts
 * `OfferSnapshots`) and the org's bad hosts from what this isolate last read of them (bad-hosts.ts
 * `rememberedBadHosts`), and is stored with one D1 statement that inserts it only if the
 * snapshot's catalog generation is still current and the org has as many bad hosts in force as it
 * was chosen without. So a quote costs one D1 round trip, not reads of every fitting offer and of
 * the bad hosts and then a write, and it is never built from offers a refresh has replaced nor
 * placed on a host that failed one of the org's leases.
 */
import { z } from "@hono/zod-openapi";
import { sql } from "kysely";
import type { Db } from "../db";
import type { Env } from "../env";
import { formatDuration } from "../duration";
import { ApiError } from "../errors";
import { idFloor, newId } from "../ids";
import { capReached, creationCaps, CREATION_WINDOW_MS, retryAfterS } from "../db/creation-caps";
import { cappedDurationMs, outputsWaitMs, ttlWaitMs, LEASE_KINDS, PolicyInputSchema, resolvePolicy, type LeaseKind, type Policy } from "../lease/policy";
import { providersForSpec } from "./eligible-providers";
import { candidateOffers, catalogGeneration, fittingOffers, offerSnapshots, renderOffer, type Narrowing } from "./offers-repo";
import { OFFER_MAX_AGE_MS, type Offer } from "./offer";
import { BANDWIDTH_GB_PER_HOUR, bandwidthHourlyUsd } from "../billing/bandwidth";
import { stoppedDiskMicros } from "../billing/ceiling";
import { microsToUsd } from "../billing/money";
import { defaultImageMinCuda } from "../providers/registry";
import { offerRetriesMicros, priced, QUOTE_DRIFT_TOLERANCE } from "../lease/rent";
import { readBadHosts, rememberedBadHosts, type BadHosts } from "./bad-hosts";
import { BAD_HOSTS, constraintsOf, MAX_STARTUP, OFFER_AGE, selectOffer, staleCandidates, startupCandidates, type Constraint, type Placement, type Selection } from "./selector";
import { boundToVolumes, MountsSchema, resolveMounts, withVolumesNamed } from "../volumes/volumes";
import { assertSpecAsksForSomething, parseGpuToken, SpecSchema, type GpuToken, type Spec } from "./spec";

/** How long a quote may be used to lease (docs/design.md: five minutes). */
export const QUOTE_TTL_MS = 5 * 60_000;

export const QuoteRequestSchema = z
  .strictObject({
    spec: SpecSchema,
    kind: z.enum(LEASE_KINDS).default("scratch").optional(),
    policy: PolicyInputSchema.optional(),
    volumes: MountsSchema.optional(),
  })
  .openapi("QuoteRequest");

export type QuoteRequest = z.infer<typeof QuoteRequestSchema>;

const usd = (x: number) => Math.round(x * 10_000) / 10_000;

/** How many snapshots a quote tries before it stores what a fresh read gives it unconditionally. */
const QUOTE_ATTEMPTS = 3;

function narrowingOf(spec: Spec): { token: GpuToken | null; narrowing: Narrowing } {
  assertSpecAsksForSomething(spec);
  const token = spec.gpu !== undefined ? parseGpuToken(spec.gpu) : null;
  const narrowing = token
    ? token.gpu
    : spec.cpu !== undefined
      ? "cpu"
      : spec.min_vram_gb !== undefined || spec.min_gpus !== undefined
        ? "any-gpu"
        : null;
  return { token, narrowing };
}

/**
 * 409 `no_capacity` naming the constraint. When only stale offers met the spec, it says so: which
 * providers, and when each market was last read. When only offers on the org's bad hosts did, it
 * says how many (`excluded_bad_hosts`).
 */
export function noCapacity(selection: Extract<Selection, { ok: false }>, offers: readonly Offer[], constraints: readonly Constraint[]): ApiError {
  const details: Record<string, unknown> = { constraint: selection.constraint, candidates_before: selection.candidates_before };
  if (selection.constraint === BAD_HOSTS) {
    const n = selection.candidates_before;
    return new ApiError(409, "no_capacity", `${n} offer(s) fit, but each is on a host that failed one of this org's leases and is left out of its selections for now`, {
      ...details,
      excluded_bad_hosts: n,
    });
  }
  if (selection.constraint === MAX_STARTUP) {
    // No real provider states a startup time: say whether none was stated, or all stated were slower.
    const { stating, fastest_s } = startupCandidates(offers, constraints);
    const why =
      stating === 0
        ? "none states a startup time, and max_startup_s passes only offers that state one"
        : `none states a startup time at or below max_startup_s: ${stating} state one, the fastest ${fastest_s} s`;
    return new ApiError(409, "no_capacity", `${selection.candidates_before} offer(s) fit, but ${why}`, { ...details, stating_startup: stating, fastest_startup_s: fastest_s });
  }
  if (selection.constraint !== OFFER_AGE) {
    return new ApiError(409, "no_capacity", `no offer fits: the "${selection.constraint}" constraint removed the last candidates`, details);
  }
  const stale = staleCandidates(offers, constraints);
  return new ApiError(
    409,
    "no_capacity",
    `${selection.candidates_before} offer(s) fit, but all are stale: ${stale.map((s) => s.provider).join(", ")} could not be read for more than ${OFFER_MAX_AGE_MS / 60_000} minutes`,
    {
      ...details,
      stale: true,
      max_offer_age_s: OFFER_MAX_AGE_MS / 1000,
      stale_providers: stale.map((s) => ({ provider: s.provider, refreshed_at: s.refreshed_at === null ? null : new Date(s.refreshed_at).toISOString() })),
    },
  );
}

/**
 * What a lease under `policy` running `image` (null: each provider's default image) asks of a
 * host: that its market keeps it for the lease's ttl (else its max_lifetime), and that it runs the
 * CUDA the image needs. A default image states its need (registry.ts `defaultImageMinCuda`); an
 * image of the user's needs only what the spec's `min_cuda` says.
 */
export function placementFor(policy: Pick<Policy, "ttl" | "max_lifetime">, image: string | null): Placement {
  return { hold_ms: policy.ttl ?? policy.max_lifetime, cuda_need: image === null ? defaultImageMinCuda : () => null };
}

/**
 * The chosen offer and its ranked fallbacks for a spec, read from D1, or 409 `no_capacity` naming
 * why not; never on one of `badHosts` (the org's, `badHostsOf`).
 */
export async function chooseOffers(db: Db, spec: Spec, providers: readonly string[], now: number, options: { placement?: Placement; badHosts?: BadHosts } = {}) {
  const { token, narrowing } = narrowingOf(spec);
  const constraints = constraintsOf(spec, token, providers, { now, ...options });
  let selection = selectOffer(await fittingOffers(db, narrowing, spec, token, providers, now), constraints);
  if (selection.ok) return selection;
  // Nothing fits: read the wider set once more, only to say which constraint removed the last.
  const candidates = await candidateOffers(db, narrowing);
  selection = selectOffer(candidates, constraints);
  if (!selection.ok) throw noCapacity(selection, candidates, constraints);
  return selection;
}

/**
 * A new quote for the org: chosen among the providers its spec may use for this org
 * (eligible-providers.ts), never on the org's bad hosts (remembered per isolate, and read
 * alongside the providers when not, so no slower).
 */
export async function quoteFor(db: Db, env: Env, orgId: string, req: QuoteRequest, now: number): Promise<Quote> {
  // Volumes bind the spec to where they live, and the quote's spec says so (docs/volumes.md).
  const volumes = req.volumes?.length ? await resolveMounts(db, orgId, req.volumes) : [];
  const spec = boundToVolumes(req.spec, volumes);
  const [providers, badHosts] = await Promise.all([providersForSpec(env, db, orgId, spec), rememberedBadHosts(db, orgId, now)]);
  return createQuote(db, orgId, { ...req, spec }, providers, badHosts, creationCaps(env).quotes, now).catch((e: unknown) => {
    throw withVolumesNamed(e, volumes);
  });
}

async function createQuote(db: Db, orgId: string, req: QuoteRequest, providers: readonly string[], remembered: BadHosts, cap: number, now: number) {
  const kind = req.kind ?? "scratch";
  const caps = resolvePolicy(kind, req.policy);
  const { token, narrowing } = narrowingOf(req.spec);
  let badHosts = remembered;
  for (let attempt = 1; ; attempt++) {
    // A snapshot may be remembered for minutes: the age of its offers is judged at `now`.
    // A quote names no image: the lease it makes runs each provider's default one unless it brings its own.
    const constraints = constraintsOf(req.spec, token, providers, { now, placement: placementFor(caps, null), badHosts });
    const snapshot = await offerSnapshots.get(db, narrowing);
    const selection = selectOffer(snapshot.offers, constraints);
    if (!selection.ok) {
      // Say no_capacity only about current offers: a remembered snapshot is checked first.
      if (snapshot.fresh || attempt === QUOTE_ATTEMPTS || (await catalogGeneration(db)) === snapshot.generation) {
        throw noCapacity(selection, snapshot.offers, constraints);
      }
      offerSnapshots.forget(snapshot.generation);
      continue;
    }
    const quote = renderQuote(req.spec, kind, caps, selection, now);
    // The last attempt, after refreshes that raced every earlier one, stores what its fresh read
    // gave, as a quote read from D1 directly would be.
    const current = attempt === QUOTE_ATTEMPTS ? null : { generation: snapshot.generation, badHosts: badHosts.size };
    if (await storeQuote(db, orgId, quote, now, cap, current)) return quote;
    // Not stored: the org is at its cap, a refresh replaced the offers, or the org's bad hosts
    // changed. Read all three again; the cap's is the only refusal that ends the attempts.
    const [held, generation, fresh] = await Promise.all([quotesInWindow(db, orgId, now, cap), catalogGeneration(db), readBadHosts(db, orgId, now)]);
    // The last attempt is refused by nothing but the cap, so a failed one is the cap's however
    // the count reads now.
    if (held.count >= cap || attempt >= QUOTE_ATTEMPTS) throw capReached("quotes", cap, retryAfterS(held.oldest_at, now));
    if (generation !== snapshot.generation) offerSnapshots.forget(snapshot.generation);
    badHosts = fresh;
  }
}

/** The org's quotes made in the creation window (src/db/creation-caps.ts), through `quotes_org`, up to `cap` of them. */
function recentQuotes(db: Db, orgId: string, now: number, cap: number) {
  return db.selectFrom("quotes").select(["id", "created_at"]).where("org_id", "=", orgId).where("id", ">=", idFloor("qt", now - CREATION_WINDOW_MS)).orderBy("id").limit(cap);
}

/** How many quotes the cap counts for the org now (at most `cap`), and when the oldest of them was made. */
async function quotesInWindow(db: Db, orgId: string, now: number, cap: number): Promise<{ count: number; oldest_at: number | null }> {
  const row = await db
    .selectFrom(recentQuotes(db, orgId, now, cap).as("recent"))
    .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.min<number>("created_at").as("oldest")])
    .executeTakeFirst();
  return { count: Number(row?.n ?? 0), oldest_at: row?.oldest ?? null };
}

/**
 * Inserts the quote while the org has made fewer than `cap` in the creation window (issue 28 item
 * 4: counted in the insert, up to `cap` entries of `quotes_org`); with `current`, also only while
 * its generation is the catalog's current one and the org has `badHosts` bad hosts in force at
 * `now`. One statement: `INSERT ... SELECT ... [FROM catalog WHERE generation = ? AND (SELECT
 * COUNT(*) FROM bad_hosts ...) = ? AND] (SELECT COUNT(*) FROM (the org's recent quotes LIMIT cap))
 * < cap`. False when any of them fails.
 */
async function storeQuote(db: Db, orgId: string, quote: Quote, now: number, cap: number, current: { generation: string; badHosts: number } | null): Promise<boolean> {
  const row = { id: quote.id, org_id: orgId, body: JSON.stringify(quote), created_at: now, expires_at: now + QUOTE_TTL_MS };
  const values = [
    sql.val(row.id).as("id"),
    sql.val(row.org_id).as("org_id"),
    sql.val(row.body).as("body"),
    sql.val(row.created_at).as("created_at"),
    sql.val(row.expires_at).as("expires_at"),
  ];
  const counted = db.selectFrom(recentQuotes(db, orgId, now, cap).as("recent")).select((c) => c.fn.countAll<number>().as("n"));
  const select =
    current === null
      ? db.selectNoFrom(values).where(() => counted, "<", cap)
      : db
          .selectFrom("catalog")
          .select(values)
          .where("id", "=", 1)
          .where("generation", "=", current.generation)
          .where(
            (w) => w.selectFrom("bad_hosts").select((c) => c.fn.countAll<number>().as("n")).where("org_id", "=", orgId).where("until", ">", now),
            "=",
            current.badHosts,
          )
          .where(() => counted, "<", cap);
  const stored = await db.insertInto("quotes").columns(["id", "org_id", "body", "created_at", "expires_at"]).expression(select).returning("id").executeTakeFirst();
  return stored !== undefined;
}

function renderQuote(spec: Spec, kind: LeaseKind, caps: Policy, selection: Extract<Selection, { ok: true }>, now: number) {
  const capped = cappedDurationMs(caps);
  const hourly = selection.chosen.hourly_usd;
  // Bandwidth is its own part: billed per GB where the provider bills it, counted at a stated
  // allowance (src/billing/bandwidth.ts), and part of the ceiling the lease is admitted under.
  const bandwidth = bandwidthHourlyUsd(selection.chosen);
  const hours = capped ? capped.ms / 3_600_000 : null;
  // A release at the ttl may hold the machine past it for the command's outputs (policy.ts
  // `ttlWaitMs`), and admission reserves that too.
  const waitHours = ttlWaitMs(caps, outputsWaitMs(kind, caps)) / 3_600_000;
  // What the kept disk may bill while stopped (src/billing/ceiling.ts), the same figure admission reserves.
  const stoppedMicros = stoppedDiskMicros(selection.chosen.stopped_hourly_usd, caps.stopped_ttl);
  const stopped = stoppedMicros === null ? null : microsToUsd(stoppedMicros);
  // What replacing failed hosts may add (ceiling.ts `retriesMicros`), the same figure admission reserves.
  const retries = microsToUsd(offerRetriesMicros(selection.chosen, caps));
  // A lease made from the quote may rent its offer up to QUOTE_DRIFT_TOLERANCE above its price, and
  // admission reserves that too (rent.ts `priced`): the rise of the compute and of the retries.
  const drifted = priced(selection.chosen, QUOTE_DRIFT_TOLERANCE);
  const drift = hours === null ? 0 : (drifted.hourly_usd - hourly) * (hours + waitHours) + microsToUsd(offerRetriesMicros(drifted, caps)) - retries;
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
    estimate: {
      label: "estimate" as const,
      hourly_usd: usd(hourly + bandwidth),
      parts: { compute_usd: hourly, bandwidth_usd: bandwidth },
      bandwidth_gb_per_hour: { ...BANDWIDTH_GB_PER_HOUR },
    },
    ceiling_usd: hours === null || stopped === null ? null : usd((hourly + bandwidth) * (hours + waitHours) + stopped + retries + drift),
    ceiling_parts:
      hours === null
        ? null
        : {
            compute_usd: usd(hourly * hours),
            bandwidth_usd: usd(bandwidth * hours),
            outputs_wait_usd: usd((hourly + bandwidth) * waitHours),
            stopped_disk_usd: stopped,
            retries_usd: usd(retries),
            drift_usd: usd(drift),
          },
    ceiling_basis: capped ? capped.basis : null,
  };
  return quote;
}

export type Quote = ReturnType<typeof renderQuote>;

export async function getQuote(db: Db, orgId: string, id: string): Promise<Quote | null> {
  const row = await db
    .selectFrom("quotes")
    .select("body")
    .where("id", "=", id)
    .where("org_id", "=", orgId)
    .executeTakeFirst();
  return row ? (JSON.parse(row.body) as Quote) : null;
}
