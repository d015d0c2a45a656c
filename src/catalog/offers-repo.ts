/**
 * The offer cache in D1: replaced per provider by each refresh, read by listings and quotes. Each
 * refresh also writes a new catalog generation, which quotes use to keep offers in memory
 * (`OfferSnapshots` below).
 */
import { batch, D1_MAX_PARAMS, type Db } from "../db";
import { sql, type SelectQueryBuilder } from "kysely";
import type { Database, NewOfferRow, OfferRow } from "../db/schema";
import type { GpuClass } from "./gpu-classes";
import type { GpuToken, Spec } from "./spec";
import { OFFER_MAX_AGE_MS, OFFER_OPTIONAL_FIELDS, OFFER_SHARED_FIELDS, type Offer, type OfferOptionalField, type OfferSharedField } from "./offer";

/** A row's columns besides the shared and optional fields: the class and spot flag in SQL's forms, and when its market was read. */
const ROW_OWN = ["gpu_class", "spot", "refreshed_at"] as const;
const COLUMNS = OFFER_SHARED_FIELDS.length + ROW_OWN.length + OFFER_OPTIONAL_FIELDS.length;
const ROWS_PER_INSERT = Math.floor(D1_MAX_PARAMS / COLUMNS);
/** What a refresh rewrites of an offer it already holds: every column but the id and what the id names. */
const UPDATED_COLUMNS = [...OFFER_SHARED_FIELDS.filter((f) => f !== "id" && f !== "provider" && f !== "provider_offer_id"), ...ROW_OWN, ...OFFER_OPTIONAL_FIELDS];

type Shared = Pick<Offer, OfferSharedField>;

function sharedOf(o: Shared): Shared {
  return Object.fromEntries(OFFER_SHARED_FIELDS.map((field) => [field, o[field]])) as Shared;
}

type Optional = { [K in OfferOptionalField]: number | null };

function optionalOf(o: Offer): Optional {
  return Object.fromEntries(OFFER_OPTIONAL_FIELDS.map((field) => [field, o[field] ?? null])) as Optional;
}

export function offerToRow(o: Offer, now: number): NewOfferRow {
  return { ...sharedOf(o), gpu_class: o.gpu, spot: o.spot ? 1 : 0, refreshed_at: now, ...optionalOf(o) };
}

export function rowToOffer(r: OfferRow): Offer {
  return { ...sharedOf(r), gpu: r.gpu_class as GpuClass | "cpu", spot: r.spot === 1, refreshed_at: r.refreshed_at, ...placementOf(r) };
}

/** The optional fields a row holds, each left out of the offer where the row has none. */
function placementOf(r: Pick<OfferRow, OfferOptionalField>): Partial<Offer> {
  const out: Partial<Offer> = {};
  for (const field of OFFER_OPTIONAL_FIELDS) {
    const value = r[field];
    if (value !== null) out[field] = value;
  }
  return out;
}

/**
 * Replaces one provider's offers in one D1 batch (one transaction): upsert what the provider has
 * now, then delete what it no longer has, and write a new catalog generation. Readers see the old
 * set or the new one, never a gap, and the generation names the set they see.
 */
export async function replaceProviderOffers(db: Db, d1: D1Database, provider: string, offers: Offer[], now: number) {
  const rows = offers.map((o) => offerToRow(o, now));
  const queries = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const chunk = rows.slice(i, i + ROWS_PER_INSERT);
    queries.push(
      db
        .insertInto("offers")
        .values(chunk)
        .onConflict((oc) =>
          oc.column("id").doUpdateSet((eb) => Object.fromEntries(UPDATED_COLUMNS.map((c) => [c, eb.ref(`excluded.${c}`)]))),
        ),
    );
  }
  queries.push(db.deleteFrom("offers").where("provider", "=", provider).where("refreshed_at", "<", now));
  // Random, not a counter: a counter could come back to a value an isolate still holds offers
  // under (a database restored or recreated, tests' storage reset) and make it trust them.
  const generation = crypto.randomUUID();
  queries.push(
    db
      .insertInto("catalog")
      .values({ id: 1, generation })
      .onConflict((oc) => oc.column("id").doUpdateSet({ generation })),
  );
  // The market was read now: in the same batch, so its time is always its offers' time.
  queries.push(
    db
      .insertInto("offer_markets")
      .values({ provider, refreshed_at: now, attempted_at: now, error: null })
      .onConflict((oc) => oc.column("provider").doUpdateSet({ refreshed_at: now, attempted_at: now, error: null })),
  );
  await batch(d1, queries);
  // This isolate's quotes use the new offers from now on; the others' learn of it within SNAPSHOT_TRUST_MS.
  offerSnapshots.refreshed(generation);
}

/**
 * A refresh could not read the provider's market: its offers stay as they were (and turn stale
 * OFFER_MAX_AGE_MS after the last read). `error` is an error kind, never a provider's words: every
 * org sees it in `GET /v1/providers`, and the words came through one org's key.
 */
export async function recordMarketFailure(db: Db, provider: string, error: string, now: number): Promise<void> {
  await db
    .insertInto("offer_markets")
    .values({ provider, refreshed_at: null, attempted_at: now, error })
    .onConflict((oc) => oc.column("provider").doUpdateSet({ attempted_at: now, error }))
    .execute();
}

export interface MarketState {
  refreshed_at: number | null;
  attempted_at: number;
  error: string | null;
}

/** When each provider's market was last read and tried (one row per provider, a small table). */
export async function marketStates(db: Db): Promise<Map<string, MarketState>> {
  const rows = await db.selectFrom("offer_markets").selectAll().execute();
  return new Map(rows.map((r) => [r.provider, { refreshed_at: r.refreshed_at, attempted_at: r.attempted_at, error: r.error }]));
}

/** The generation of the offers in D1 now (migrations/0005_catalog_generation.sql). */
export async function catalogGeneration(db: Db): Promise<string> {
  const row = await db.selectFrom("catalog").select("generation").where("id", "=", 1).executeTakeFirst();
  return row?.generation ?? "";
}

/** What a spec is narrowed to in SQL: one GPU class, CPU-only, any GPU, or everything (null). */
export type Narrowing = GpuClass | "cpu" | "any-gpu" | null;

export interface OfferSnapshot {
  /** The catalog generation these offers were read under. */
  generation: string;
  offers: readonly Offer[];
}

/**
 * How long after this isolate last read the catalog generation from D1 (`OfferSnapshots`) a quote
 * uses its snapshots without asking again. Past it, a quote asks D1 in the background
 * (`waitUntil`) and is answered from the snapshot meanwhile.
 */
export const SNAPSHOT_CONFIRM_MS = 2_000;
/**
 * Past this, a quote waits for D1's answer before it uses a snapshot: the most a quote's offers
 * can be behind the catalog, on an isolate whose last quote came that long ago. A busy isolate's
 * are at most SNAPSHOT_CONFIRM_MS and one read behind.
 */
export const SNAPSHOT_TRUST_MS = 15_000;

/** Hands work to the request's `waitUntil`, so that it finishes after the answer. */
export type Background = (work: Promise<unknown>) => void;

/**
 * This isolate's copy of the offer cache, one snapshot per narrowing, each labelled with the
 * catalog generation it was read under, so a quote reads no offer rows from D1. A snapshot is
 * used only while its generation is the one D1 last answered this isolate (`#confirmed`), asked
 * again in the background once that answer is SNAPSHOT_CONFIRM_MS old and waited for once it is
 * SNAPSHOT_TRUST_MS old; a refresh run in this isolate tells it at once (`refreshed`). So a quote
 * is never built from offers a refresh replaced more than SNAPSHOT_TRUST_MS before (on a busy
 * isolate, about SNAPSHOT_CONFIRM_MS), and a quote costs no D1 statement of its own
 * (docs/performance.md). Memory: each offer at most three times (its class, any GPU, all).
 */
export class OfferSnapshots {
  readonly #entries = new Map<string, OfferSnapshot>();
  readonly #loading = new Map<string, Promise<OfferSnapshot>>();
  /** The generation D1 last answered, and when it was asked (the caller's `now`). */
  #confirmed: { generation: string; at: number } | null = null;
  #confirming: Promise<string> | null = null;

  /**
   * The snapshot for `narrowing` under the current generation. `fresh`: read from D1 for this call
   * (or by one it joined), rather than remembered. `background`: where a confirmation that need
   * not be waited for goes; without it, it is waited for.
   */
  async get(db: Db, narrowing: Narrowing, now: number, background?: Background): Promise<OfferSnapshot & { fresh: boolean }> {
    // Before the first read there is nothing to confirm: the read learns the generation.
    const age = this.#confirmed === null ? 0 : now - this.#confirmed.at;
    if (age >= SNAPSHOT_TRUST_MS) await this.confirm(db, now);
    else if (age >= SNAPSHOT_CONFIRM_MS) {
      const confirming = this.confirm(db, now);
      if (background) background(confirming.catch(() => undefined));
      else await confirming;
    }
    const key = narrowing ?? "*";
    for (let read = 1; ; read++) {
      const hit = this.#entries.get(key);
      if (hit && hit.generation === this.#confirmed?.generation) return { ...hit, fresh: false };
      let loading = this.#loading.get(key);
      if (!loading) {
        loading = readSnapshot(db, narrowing)
          .then((snapshot) => {
            this.#learn(snapshot.generation, now);
            this.#entries.set(key, snapshot);
            return snapshot;
          })
          .finally(() => this.#loading.delete(key));
        this.#loading.set(key, loading);
      }
      const snapshot = await loading;
      // A read joined from before a refresh this isolate learned of is read again, once.
      if (snapshot.generation === this.#confirmed?.generation || read === 2) return { ...snapshot, fresh: true };
    }
  }

  /** Asks D1 for the current generation (one statement, shared by concurrent callers) and drops snapshots of any other. */
  confirm(db: Db, now: number): Promise<string> {
    this.#confirming ??= catalogGeneration(db)
      .then((generation) => {
        this.#learn(generation, now);
        return generation;
      })
      .finally(() => (this.#confirming = null));
    return this.#confirming;
  }

  /** A refresh in this isolate wrote `generation`: the newest there is, now. */
  refreshed(generation: string): void {
    this.#confirmed = null;
    this.#learn(generation, Date.now());
  }

  /** D1 held `generation` at `at`; an answer older than the one held changes nothing. */
  #learn(generation: string, at: number): void {
    if (this.#confirmed && at < this.#confirmed.at) return;
    if (this.#confirmed?.generation !== generation) {
      for (const [key, snapshot] of this.#entries) if (snapshot.generation !== generation) this.#entries.delete(key);
    }
    this.#confirmed = { generation, at };
  }
}

export const offerSnapshots = new OfferSnapshots();

/**
 * The generation first, then the offers: a refresh between the two labels the snapshot older than
 * what it holds, which costs one more read when it is found out; the other order could label old
 * offers with the new generation, which nothing would catch.
 */
async function readSnapshot(db: Db, narrowing: Narrowing): Promise<OfferSnapshot> {
  const generation = await catalogGeneration(db);
  return { generation, offers: await candidateOffers(db, narrowing) };
}

export interface OfferFilters {
  gpu?: string | undefined;
  min_vram_gb?: number | undefined;
  min_gpus?: number | undefined;
  region?: string | undefined;
  provider?: string | undefined;
  max_hourly_usd?: number | undefined;
  spot?: boolean | undefined;
  min_cuda?: number | undefined;
  min_reliability?: number | undefined;
  min_inet_down_mbps?: number | undefined;
  min_inet_up_mbps?: number | undefined;
  max_startup_s?: number | undefined;
}

/**
 * The numeric bounds a listing's filters and a spec share, as SQL. The last four are on facts only
 * some providers state (the selector's `STATED_MINIMUMS` and `STATED_MAXIMUMS`): a host that does
 * not state one (NULL) never passes, since neither `NULL >= x` nor `NULL <= x` is true.
 */
const BOUNDS = [
  ["min_vram_gb", "vram_gb", ">="],
  ["min_gpus", "gpu_count", ">="],
  ["min_cpu", "vcpu", ">="],
  ["min_memory_gb", "memory_gb", ">="],
  ["min_disk_gb", "disk_gb", ">="],
  ["max_hourly_usd", "hourly_usd", "<="],
  ["min_reliability", "reliability", ">="],
  ["min_inet_down_mbps", "inet_down_mbps", ">="],
  ["min_inet_up_mbps", "inet_up_mbps", ">="],
  ["max_startup_s", "startup_s", "<="],
] as const;

type OffersQuery = SelectQueryBuilder<Database, "offers", OfferRow>;

function whereBounds(q: OffersQuery, f: { [K in (typeof BOUNDS)[number][0]]?: number | undefined }): OffersQuery {
  for (const [filter, column, op] of BOUNDS) {
    const value = f[filter];
    if (value !== undefined) q = q.where(column, op, value);
  }
  return q;
}

/** A page of offers in price order, filtered in SQL. */
export async function listOffers(
  db: Db,
  f: OfferFilters,
  providers: readonly string[],
  limit: number,
  after: { k: number; id: string } | null,
): Promise<OfferRow[]> {
  let q = db.selectFrom("offers").selectAll().where("provider", "in", providers.length ? [...providers] : [""]);
  if (f.gpu !== undefined) q = q.where("gpu_class", "=", f.gpu);
  if (f.region !== undefined) q = q.where("region", "=", f.region);
  if (f.provider !== undefined) q = q.where("provider", "=", f.provider);
  if (f.spot !== undefined) q = q.where("spot", "=", f.spot ? 1 : 0);
  if (f.min_cuda !== undefined) q = q.where("cuda_max", ">=", f.min_cuda);
  q = whereBounds(q, f);
  if (after) {
    q = q.where((eb) =>
      eb.or([eb("hourly_usd", ">", after.k), eb.and([eb("hourly_usd", "=", after.k), eb("id", ">", after.id)])]),
    );
  }
  return q.orderBy("hourly_usd").orderBy("id").limit(limit + 1).execute();
}

/**
 * The offers a spec could possibly use, narrowed in SQL by the one indexed, always-present
 * dimension (the GPU class, or CPU-only); every other constraint is applied by the selector so
 * that `no_capacity` can name the one that removed the last candidates.
 */
export async function candidateOffers(db: Db, gpuClass: Narrowing): Promise<Offer[]> {
  let q = db.selectFrom("offers").selectAll();
  if (gpuClass === "any-gpu") q = q.where("gpu_class", "!=", "cpu");
  else if (gpuClass !== null) q = q.where("gpu_class", "=", gpuClass);
  const rows = await q.execute();
  return rows.map(rowToOffer);
}

/**
 * The offers that can meet a spec, with every constraint SQL can state pushed into the query, so
 * a quote reads tens of rows, not every offer of a class. The selector applies all constraints
 * again; when this finds nothing, the quote asks `candidateOffers` to learn which one removed the
 * last candidates.
 */
export function fittingOffersQuery(
  db: Db,
  narrowing: Narrowing,
  spec: Spec,
  token: GpuToken | null,
  providers: readonly string[],
  now: number,
): OffersQuery {
  // Only offers no older than OFFER_MAX_AGE_MS (docs/design.md "Markets"): all of a provider's offers
  // carry the time of its last read.
  let q = db.selectFrom("offers").selectAll().where("refreshed_at", ">=", now - OFFER_MAX_AGE_MS);
  if (narrowing === "any-gpu") q = q.where("gpu_class", "!=", "cpu");
  else if (narrowing !== null) q = q.where("gpu_class", "=", narrowing);
  const allowed = providers.filter((p) => (token?.provider ? p === token.provider : true));
  // With a class to narrow by, `+provider` keeps SQLite off the provider index: with one provider
  // allowed (the common case) it would prefer `offers_provider (provider, refreshed_at)` and read
  // every offer of that provider, where `offers_class_price` reads one class's.
  const byClass = narrowing !== null && narrowing !== "any-gpu";
  q = q.where(byClass ? sql<string>`+provider` : "provider", "in", allowed.length ? allowed : [""]);
  if (token) q = q.where("gpu_count", "=", token.count);
  if (spec.cpu !== undefined) q = q.where("vcpu", ">=", spec.cpu);
  q = q.where("spot", "=", spec.spot ? 1 : 0);
  q = whereBounds(q, spec);
  return q;
}

export async function fittingOffers(...args: Parameters<typeof fittingOffersQuery>): Promise<Offer[]> {
  const rows = await fittingOffersQuery(...args).execute();
  return rows.map(rowToOffer);
}

export interface ClassSummary {
  gpu_class: string;
  offers: number;
  cheapest: number | null;
}

export async function summarizeClasses(db: Db, providers: readonly string[]): Promise<ClassSummary[]> {
  const rows = await db
    .selectFrom("offers")
    .select((eb) => ["gpu_class", eb.fn.countAll<number>().as("offers"), eb.fn.min<number>("hourly_usd").as("cheapest")])
    .where("provider", "in", providers.length ? [...providers] : [""])
    .groupBy("gpu_class")
    .execute();
  return rows.map((r) => ({ gpu_class: r.gpu_class, offers: Number(r.offers), cheapest: r.cheapest }));
}

export function renderOffer(o: Offer) {
  return { ...sharedOf(o), gpu: o.gpu, spot: o.spot, ...optionalOf(o) };
}
