/**
 * Quotes: an immutable, short-lived answer to a spec (docs/design.md, "quote"). Built from the offer
 * cache by the pure selector, stored once, never changed.
 *
 * A quote reads its offers from this isolate's snapshot of the offer cache (offers-repo.ts
 * `OfferSnapshots`, used only while its catalog generation is the one D1 last answered, asked
 * again in the background every SNAPSHOT_CONFIRM_MS), the providers the org may use and its bad
 * hosts from what this isolate last read of them (eligible-providers.ts, bad-hosts.ts
 * `rememberedBadHosts`), and is stored by the org's own object (quote-store.ts), which counts the
 * org's daily cap and refuses a quote on a host the org's leases marked bad since. So a quote is
 * the key's object and the org's object, and no D1 statement (issue 34; docs/performance.md).
 * Quotes made before were stored in D1 `quotes`: they are still read there (`readQuote`).
 */
import { z } from "@hono/zod-openapi";
import type { Db } from "../db";
import type { Env } from "../env";
import { formatDuration } from "../duration";
import { ApiError } from "../errors";
import { newId } from "../ids";
import { capReached, creationCaps, retryAfterS } from "../db/creation-caps";
import { cappedDurationMs, outputsWaitMs, ttlWaitMs, LEASE_KINDS, PolicyInputSchema, resolvePolicy, type LeaseKind, type Policy } from "../lease/policy";
import { providersForSpec } from "./eligible-providers";
import { candidateOffers, fittingOffers, offerSnapshots, renderOffer, type Background, type Narrowing } from "./offers-repo";
import { OFFER_MAX_AGE_MS, type Offer } from "./offer";
import { BANDWIDTH_GB_PER_HOUR, bandwidthHourlyUsd } from "../billing/bandwidth";
import { stoppedDiskMicros } from "../billing/ceiling";
import { microsToUsd } from "../billing/money";
import { defaultImageMinCuda } from "../providers/registry";
import { offerRetriesMicros, priced, QUOTE_DRIFT_TOLERANCE } from "../lease/rent";
import { badHostKey, rememberedBadHosts, rememberMarks, type BadHosts } from "./bad-hosts";
import { orgQuotes, QUOTE_TTL_MS } from "./quote-store";
import { BAD_HOSTS, constraintsOf, MAX_STARTUP, OFFER_AGE, selectOffer, staleCandidates, startupCandidates, type Constraint, type Placement, type Selection } from "./selector";
import { boundToVolumes, MountsSchema, resolveMounts, withVolumesNamed } from "../volumes/volumes";
import { assertSpecAsksForSomething, parseGpuToken, SpecSchema, type GpuToken, type Spec } from "./spec";

export { QUOTE_TTL_MS };

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

/** How many selections a quote tries before it stores what the last one chose whatever its hosts. */
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
 * (eligible-providers.ts), never on the org's bad hosts (remembered per isolate, and those its
 * object was told of since). `background` takes the snapshot's confirmation off the answer's path.
 */
export async function quoteFor(db: Db, env: Env, orgId: string, req: QuoteRequest, now: number, background?: Background): Promise<Quote> {
  // Volumes bind the spec to where they live, and the quote's spec says so (docs/volumes.md).
  const volumes = req.volumes?.length ? await resolveMounts(db, orgId, req.volumes) : [];
  const spec = boundToVolumes(req.spec, volumes);
  const [providers, badHosts] = await Promise.all([providersForSpec(env, db, orgId, spec), rememberedBadHosts(db, orgId, now)]);
  return createQuote(db, env, orgId, { ...req, spec }, providers, badHosts, creationCaps(env).quotes, now, background).catch((e: unknown) => {
    throw withVolumesNamed(e, volumes);
  });
}

async function createQuote(db: Db, env: Env, orgId: string, req: QuoteRequest, providers: readonly string[], remembered: BadHosts, cap: number, now: number, background?: Background) {
  const kind = req.kind ?? "scratch";
  const caps = resolvePolicy(kind, req.policy);
  const { token, narrowing } = narrowingOf(req.spec);
  let badHosts = remembered;
  for (let attempt = 1; ; attempt++) {
    // A snapshot may be remembered for seconds: the age of its offers is judged at `now`.
    // A quote names no image: the lease it makes runs each provider's default one unless it brings its own.
    const constraints = constraintsOf(req.spec, token, providers, { now, placement: placementFor(caps, null), badHosts });
    const snapshot = await offerSnapshots.get(db, narrowing, now, background);
    const selection = selectOffer(snapshot.offers, constraints);
    if (!selection.ok) {
      // Say no_capacity only about current offers: a remembered snapshot is confirmed first.
      if (snapshot.fresh || attempt === QUOTE_ATTEMPTS || (await offerSnapshots.confirm(db, now)) === snapshot.generation) {
        throw noCapacity(selection, snapshot.offers, constraints);
      }
      continue;
    }
    const quote = renderQuote(req.spec, kind, caps, selection, now);
    // The last attempt, after marks that raced every earlier one, is stored whatever its hosts.
    const hosts = attempt === QUOTE_ATTEMPTS ? [] : [selection.chosen, ...selection.fallbacks].filter((o) => o.host_id !== "").map((o) => badHostKey(o.provider, o.host_id));
    const stored = await orgQuotes(env, orgId).storeQuote({ id: quote.id, created_at: now, body: JSON.stringify(quote) }, hosts, cap);
    if (stored.ok) return quote;
    if (stored.refused === "cap") throw capReached("quotes", cap, retryAfterS(stored.oldest_at, now));
    // A host the org's leases marked bad since this isolate read them: choose again without.
    badHosts = rememberMarks(orgId, badHosts, stored.bad_hosts, now);
  }
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

/**
 * A quote of the org's as it was answered, and where it is kept: in the org's object, or, for a
 * quote made before quotes moved there, in D1 `quotes` (kept there while a lease refers to it,
 * src/db/retention.ts). Another org's quote is not found.
 */
export async function readQuote(env: Env, db: Db, orgId: string, id: string): Promise<{ quote: Quote; held: "object" | "d1" } | null> {
  const body = await orgQuotes(env, orgId).quote(id);
  if (body !== null) return { quote: JSON.parse(body) as Quote, held: "object" };
  const row = await db.selectFrom("quotes").select("body").where("id", "=", id).where("org_id", "=", orgId).executeTakeFirst();
  return row ? { quote: JSON.parse(row.body) as Quote, held: "d1" } : null;
}
