/**
 * Offer selection: pure, no I/O and no clock (STYLE.md rule 1).
 *
 * The cheapest offer that meets every constraint wins, except that among offers within 5% of the
 * cheapest the best availability hint wins. Fallbacks are ranked by the same rule over what is
 * left, one per host, so that a failed host is never retried through its fallback.
 */
import { badHostKey, type BadHosts } from "./bad-hosts";
import type { Offer } from "./offer";
import { AVAILABILITY_RANK, isStale } from "./offer";
import type { GpuToken, Spec } from "./spec";

/** Offers priced within this factor of the cheapest compete on availability. */
export const PRICE_BAND = 1.05;
export const MAX_FALLBACKS = 3;

export interface Constraint {
  /** The spec field that states it, named in `no_capacity`. */
  name: string;
  test: (offer: Offer) => boolean;
}

/**
 * The constraint that keeps stale offers out (docs/design.md "Markets"). It comes after every
 * constraint of the spec, so when it is the one that removed the last candidates, every offer that
 * met the spec was stale.
 */
export const OFFER_AGE = "offer_age";

/**
 * The constraint that keeps the org's bad hosts out (docs/design.md "Placement"). It comes last, so
 * when it is the one that removed the last candidates, fresh offers met the whole spec and every
 * one of them was on a host that failed one of the org's leases.
 */
export const BAD_HOSTS = "bad_hosts";

/** The constraints named in `no_capacity` when the host's market would not let the lease run there. */
export const HOST_DURATION = "host_duration";
export const CUDA = "cuda";

/** What the lease asks of the host beyond the spec: how long it stays, and what its image runs on. */
export interface Placement {
  /**
   * How long the lease may hold its host, ms: its ttl, else its max_lifetime; null: neither caps
   * it, and no host's contract end is asked about.
   */
  hold_ms: number | null;
  /** The CUDA version the lease's image needs at an offer's provider; null: no need. */
  cuda_need: (provider: string) => number | null;
}

/**
 * Whether the host's contract with its market outlasts `holdMs` from `now`: an offer of a provider
 * that ends no rental on its own always does; one that states how long its host stays counts from
 * when it was read.
 */
export function hostOutlasts(o: Offer, holdMs: number, now: number | undefined): boolean {
  if (o.host_duration_s === undefined || o.host_duration_s === null) return true;
  const readAt = o.refreshed_at ?? now ?? 0;
  return readAt + o.host_duration_s * 1000 >= (now ?? readAt) + holdMs;
}

/** The spec's minimums of facts only some providers state, and the offer field each is judged on. */
const STATED_MINIMUMS = [
  ["min_reliability", "reliability"],
  ["min_inet_down_mbps", "inet_down_mbps"],
  ["min_inet_up_mbps", "inet_up_mbps"],
] as const satisfies ReadonlyArray<readonly [keyof Spec, keyof Offer]>;

/** The spec's maximums of facts only some providers state, and the offer field each is judged on. */
export const STATED_MAXIMUMS = [["max_startup_s", "startup_s"]] as const satisfies ReadonlyArray<readonly [keyof Spec, keyof Offer]>;
export const MAX_STARTUP = "max_startup_s";

/** Whether a stated fact is at most `max`: one not stated never is (never guessed). */
export function atMost(value: number | undefined, max: number): boolean {
  return value !== undefined && value <= max;
}

/** Whether a stated fact reaches `min`: one not stated never does (never guessed). */
export function atLeast(value: number | undefined, min: number): boolean {
  return value !== undefined && value >= min;
}

/** Whether the host runs CUDA `need` (null: no need): an offer that does not say never does. */
export function runsCuda(o: Offer, need: number | null): boolean {
  if (need === null) return true;
  return o.cuda_max !== undefined && o.cuda_max !== null && o.cuda_max >= need;
}

/**
 * The constraints of a spec, in the order they are applied (and reported). With `now`, offers
 * whose provider's market was last read more than OFFER_MAX_AGE_MS before it are left out; with
 * `badHosts`, offers on the org's bad hosts.
 */
export function constraintsOf(
  spec: Spec,
  token: GpuToken | null,
  configuredProviders: readonly string[],
  options: { now?: number; placement?: Placement; badHosts?: BadHosts } = {},
): Constraint[] {
  const out: Constraint[] = [];
  const lower = (xs: readonly string[] | undefined) => (xs ? new Set(xs.map((x) => x.toLowerCase())) : null);
  if (token) {
    out.push({ name: "gpu", test: (o) => o.gpu === token.gpu && o.gpu_count === token.count });
  } else if (spec.cpu !== undefined) {
    const cpu = spec.cpu;
    out.push({ name: "cpu", test: (o) => o.gpu === "cpu" && o.vcpu >= cpu });
  } else if (spec.min_vram_gb !== undefined || spec.min_gpus !== undefined) {
    out.push({ name: spec.min_gpus !== undefined ? "min_gpus" : "min_vram_gb", test: (o) => o.gpu !== "cpu" });
  }
  const configured = new Set(configuredProviders);
  out.push({ name: "providers_configured", test: (o) => configured.has(o.provider) });
  if (token?.provider) {
    const pinned = token.provider;
    out.push({ name: "gpu", test: (o) => o.provider === pinned });
  }
  const providers = lower(spec.providers);
  if (providers) out.push({ name: "providers", test: (o) => providers.has(o.provider) });
  const excludedProviders = lower(spec.exclude_providers);
  if (excludedProviders) out.push({ name: "exclude_providers", test: (o) => !excludedProviders.has(o.provider) });
  const regions = lower(spec.regions);
  if (regions) out.push({ name: "regions", test: (o) => regions.has(o.region) });
  const spot = spec.spot ?? false;
  out.push({ name: "spot", test: (o) => o.spot === spot });
  const { min_gpus, min_vram_gb, min_cpu, min_memory_gb, min_disk_gb, max_hourly_usd } = spec;
  if (min_gpus !== undefined) out.push({ name: "min_gpus", test: (o) => o.gpu_count >= min_gpus });
  if (min_vram_gb !== undefined) out.push({ name: "min_vram_gb", test: (o) => o.vram_gb >= min_vram_gb });
  if (min_cpu !== undefined) out.push({ name: "min_cpu", test: (o) => o.vcpu >= min_cpu });
  if (min_memory_gb !== undefined) out.push({ name: "min_memory_gb", test: (o) => o.memory_gb >= min_memory_gb });
  if (min_disk_gb !== undefined) out.push({ name: "min_disk_gb", test: (o) => o.disk_gb >= min_disk_gb });
  const excludedHosts = spec.exclude_hosts ? new Set(spec.exclude_hosts) : null;
  if (excludedHosts) out.push({ name: "exclude_hosts", test: (o) => !excludedHosts.has(o.host_id) });
  if (max_hourly_usd !== undefined) out.push({ name: "max_hourly_usd", test: (o) => o.hourly_usd <= max_hourly_usd });
  for (const [name, fact] of STATED_MINIMUMS) {
    const min = spec[name];
    if (min !== undefined) out.push({ name, test: (o) => atLeast(o[fact], min) });
  }
  for (const [name, fact] of STATED_MAXIMUMS) {
    const max = spec[name];
    if (max !== undefined) out.push({ name, test: (o) => atMost(o[fact], max) });
  }
  const now = options.now;
  const hold = options.placement?.hold_ms ?? null;
  if (hold !== null) out.push({ name: HOST_DURATION, test: (o) => hostOutlasts(o, hold, now) });
  // The spec's own need, and where the lease brings no image, the provider's default image's.
  const needOf = options.placement?.cuda_need;
  if (spec.min_cuda !== undefined || needOf) {
    const stated = spec.min_cuda ?? null;
    const need = (o: Offer) => {
      const image = needOf ? needOf(o.provider) : null;
      return stated === null ? image : image === null ? stated : Math.max(stated, image);
    };
    out.push({ name: CUDA, test: (o) => runsCuda(o, need(o)) });
  }
  if (now !== undefined) out.push({ name: OFFER_AGE, test: (o) => !isStale(o.refreshed_at, now) });
  const bad = options.badHosts;
  if (bad && bad.size > 0) out.push({ name: BAD_HOSTS, test: (o) => !bad.has(badHostKey(o.provider, o.host_id)) });
  return out;
}

export type Selection =
  | { ok: true; chosen: Offer; fallbacks: Offer[]; candidates: number }
  | {
      ok: false;
      /** The constraint that removed the last candidates, and how many it was given. */
      constraint: string;
      candidates_before: number;
    };

export function selectOffer(offers: readonly Offer[], constraints: readonly Constraint[]): Selection {
  if (offers.length === 0) return { ok: false, constraint: constraints[0]?.name ?? "catalog", candidates_before: 0 };
  // One pass: how many of the constraints, in order, each offer meets. An offer that meets all of
  // them is a candidate; otherwise the furthest any offer got names the constraint that removed
  // the last candidates, and how many offers were still in the running before it.
  const pool: Offer[] = [];
  const reached = new Array<number>(constraints.length + 1).fill(0);
  for (const o of offers) {
    let k = 0;
    while (k < constraints.length && constraints[k]!.test(o)) k++;
    reached[k]!++;
    if (k === constraints.length) pool.push(o);
  }
  if (pool.length === 0) {
    let furthest = constraints.length - 1;
    while (furthest > 0 && reached[furthest] === 0) furthest--;
    let before = 0;
    for (let i = furthest; i < reached.length; i++) before += reached[i]!;
    return { ok: false, constraint: constraints[furthest]!.name, candidates_before: before };
  }
  const ranked = rank(pool, 1 + MAX_FALLBACKS);
  const [chosen, ...fallbacks] = ranked;
  return { ok: true, chosen: chosen!, fallbacks, candidates: pool.length };
}

/**
 * Takes up to `n` offers, one per host, each the best of what remains by the band rule. Linear
 * passes, no sort: a quote over 100,000 offers must not pay for ordering all of them.
 */
function rank(pool: readonly Offer[], n: number): Offer[] {
  const hosts = new Set<string>();
  const picked: Offer[] = [];
  while (picked.length < n) {
    const best = bestInBand(pool, hosts);
    if (!best) break;
    picked.push(best);
    hosts.add(hostKey(best));
  }
  return picked;
}

/**
 * Of the offers not on a used host: the cheapest price, then, within PRICE_BAND of it, the best
 * availability (ties: cheaper, then the smaller id, so the answer never depends on input order).
 */
function bestInBand(pool: readonly Offer[], usedHosts: ReadonlySet<string>): Offer | null {
  const usable = (o: Offer) => usedHosts.size === 0 || !usedHosts.has(hostKey(o));
  let cheapest = Infinity;
  for (const o of pool) if (o.hourly_usd < cheapest && usable(o)) cheapest = o.hourly_usd;
  if (cheapest === Infinity) return null;
  const limit = cheapest * PRICE_BAND;
  let best: Offer | null = null;
  for (const o of pool) {
    if (o.hourly_usd > limit || !usable(o)) continue;
    if (!best || better(o, best)) best = o;
  }
  return best;
}

function better(a: Offer, b: Offer): boolean {
  const byAvailability = AVAILABILITY_RANK[a.availability] - AVAILABILITY_RANK[b.availability];
  if (byAvailability !== 0) return byAvailability > 0;
  if (a.hourly_usd !== b.hourly_usd) return a.hourly_usd < b.hourly_usd;
  return a.id < b.id;
}

const hostKey = (o: Offer) => badHostKey(o.provider, o.host_id);

/** The offers that met every constraint before the one named `name` (all of them when none is). */
function metBefore(offers: readonly Offer[], constraints: readonly Constraint[], name: string): Offer[] {
  const at = constraints.findIndex((c) => c.name === name);
  const before = at < 0 ? constraints : constraints.slice(0, at);
  return offers.filter((o) => before.every((c) => c.test(o)));
}

/**
 * When MAX_STARTUP removed the last candidates: how many of the offers that met every constraint
 * before it state a startup time at all, and the fastest one stated (null: none states one).
 */
export function startupCandidates(offers: readonly Offer[], constraints: readonly Constraint[]): { stating: number; fastest_s: number | null } {
  const stated = metBefore(offers, constraints, MAX_STARTUP).flatMap((o) => (o.startup_s === undefined ? [] : [o.startup_s]));
  return { stating: stated.length, fastest_s: stated.length === 0 ? null : stated.reduce((a, b) => Math.min(a, b)) };
}

/**
 * When OFFER_AGE removed the last candidates: the providers of the offers that met every other
 * constraint, each with when its market was last read (null: never), for `no_capacity` to name.
 */
export function staleCandidates(offers: readonly Offer[], constraints: readonly Constraint[]): Array<{ provider: string; refreshed_at: number | null }> {
  // The constraints before it: the spec's own.
  const byProvider = new Map<string, number | null>();
  for (const o of metBefore(offers, constraints, OFFER_AGE)) {
    const seen = byProvider.get(o.provider);
    const at = o.refreshed_at ?? null;
    if (seen === undefined || (at !== null && (seen === null || at > seen))) byProvider.set(o.provider, at);
  }
  return [...byProvider].map(([provider, refreshed_at]) => ({ provider, refreshed_at })).sort((a, b) => a.provider.localeCompare(b.provider));
}
