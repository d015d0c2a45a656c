/**
 * Volumes (docs/volumes.md): storage at a provider that outlives a lease. A volume is a D1 row
 * (migrations/0028) named within its org, bound to one provider and one region; a lease that mounts
 * it holds a `volume_mounts` row, and is placed only where the volume lives (`boundToVolumes`).
 *
 * `POST` is idempotent by name, as a deployment's `PUT` is (src/deployments/deployments.ts): the
 * row is inserted with `ON CONFLICT DO NOTHING` before the provider is asked, and only the caller
 * whose insert landed creates the volume. A create whose outcome is unknown leaves the row
 * `creating`; a later `POST` of the name finds the volume by its label before creating anything.
 *
 * A volume is in use while a lease that mounts it is not released (its machine may hold it): a
 * delete marks the row `deleting` only where no such mount exists, in one statement, and a lease
 * mounts only a `ready` volume, in one statement too, so the two never both win.
 */
import { z } from "@hono/zod-openapi";
import { sql } from "kysely";
import { limitReached, MAX_VOLUMES } from "../auth/limits";
import { PENDING_MS, volumeFitsSql, volumeRefusal, volumeReservation } from "../billing/budget";
import { microsToUsd, usdToMicros } from "../billing/money";
import type { Spec } from "../catalog/spec";
import { installationId } from "../config";
import { batch, type Db } from "../db";
import type { VolumesTable } from "../db/schema";
import type { Env } from "../env";
import { ApiError, conflict, notFound } from "../errors";
import { newId } from "../ids";
import { volumeLabel } from "../lease/label";
import { LEASE_NAME } from "../lease/names";
import { ProviderError, type CreateVolumeInput, type Provider, type Volume } from "../providers/contract";
import { providerCapabilities, providerFor, usableProviderNames } from "../providers/registry";
import { iso } from "../time";
import { idleSince } from "./idle";

export type VolumeRow = VolumesTable;

/** Where a machine sees a volume: an absolute path, as the sim's command language writes one. */
export const MOUNT_PATH = /^(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)+$/;
/** A lease mounts at most this many volumes. */
export const MAX_MOUNTS = 8;
/** Hours in a month, as GB-month prices are turned into hourly ones (365 * 24 / 12). */
export const HOURS_PER_MONTH = 730;

export const VolumeNameSchema = z.string().regex(LEASE_NAME, "a volume name is 1 to 63 lowercase letters, digits and '-', beginning with a letter or digit");

export const CreateVolumeSchema = z
  .strictObject({
    name: VolumeNameSchema,
    size_gb: z.number().int().min(1).max(100_000),
    region: z.string().min(1).max(64).optional().describe("default: the provider's region with the most offers"),
    provider: z.string().min(1).max(32).optional().describe("default: the first the org may use that sells volumes"),
  })
  .openapi("CreateVolume");
export type CreateVolume = z.infer<typeof CreateVolumeSchema>;

/** A lease's request to mount a volume of its org at a path. */
export const MountSchema = z
  .strictObject({
    name: VolumeNameSchema,
    path: z.string().max(256).regex(MOUNT_PATH, "an absolute path of letters, digits and . _ - /").refine((p) => !p.split("/").some((s) => s === "." || s === ".."), "no . or .. segment"),
  })
  .openapi("VolumeMount");
export const MountsSchema = z
  .array(MountSchema)
  .max(MAX_MOUNTS)
  .refine((m) => new Set(m.map((x) => x.name)).size === m.length && new Set(m.map((x) => x.path)).size === m.length, "each volume and each path at most once")
  .describe("volumes to mount; the lease is placed where they live (docs/volumes.md)");
export type MountRequest = z.infer<typeof MountSchema>;

/** A volume a lease mounts, as its record keeps it. */
export interface LeaseVolume {
  name: string;
  /** lessor's id (`vol_...`). */
  id: string;
  provider: string;
  region: string;
  /** The provider's id, what the machine's create names. */
  provider_volume_id: string;
  path: string;
}

/** `lastRelease`: the latest release of a lease that mounted it (src/volumes/idle.ts `lastReleases`). */
export function renderVolume(row: VolumeRow, mountedBy: readonly string[], lastRelease: number | null) {
  const idle = idleSince(row, mountedBy, lastRelease);
  const perGbMonth = row.gb_month_micro_usd === null ? null : microsToUsd(row.gb_month_micro_usd);
  return {
    id: row.id,
    name: row.name,
    provider: row.provider,
    region: row.region,
    size_gb: row.size_gb,
    state: row.state,
    usd_per_gb_month: perGbMonth,
    monthly_usd: perGbMonth === null ? null : Math.round(perGbMonth * row.size_gb * 10_000) / 10_000,
    mounted_by: [...mountedBy],
    idle_since: idle === null ? null : iso(idle)!,
    created_at: iso(row.created_at)!,
  };
}
export type VolumeView = ReturnType<typeof renderVolume>;

export async function volumeByName(db: Db, orgId: string, name: string): Promise<VolumeRow | null> {
  return (await db.selectFrom("volumes").selectAll().where("org_id", "=", orgId).where("name", "=", name).executeTakeFirst()) ?? null;
}

export async function volumeById(db: Db, orgId: string, id: string): Promise<VolumeRow | null> {
  return (await db.selectFrom("volumes").selectAll().where("org_id", "=", orgId).where("id", "=", id).executeTakeFirst()) ?? null;
}

/** A page of the org's volumes by name, after `after`. */
export async function listVolumes(db: Db, orgId: string, after: string | null, limit: number): Promise<VolumeRow[]> {
  let q = db.selectFrom("volumes").selectAll().where("org_id", "=", orgId);
  if (after !== null) q = q.where("name", ">", after);
  return q.orderBy("name").limit(limit + 1).execute();
}

/**
 * The leases that keep each of `volumeIds` in use at `now`: their lease is not released, or (its
 * index row not yet written) was made less than PENDING_MS ago.
 */
export async function mountedBy(db: Db, volumeIds: readonly string[], now: number): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(volumeIds.map((id) => [id, []]));
  if (volumeIds.length === 0) return out;
  const rows = await db
    .selectFrom("volume_mounts as m")
    .leftJoin("leases as l", "l.id", "m.lease_id")
    .select(["m.volume_id", "m.lease_id"])
    .where("m.volume_id", "in", volumeIds)
    .where((eb) => eb.or([eb.and([eb("l.id", "is", null), eb("m.created_at", ">", now - PENDING_MS)]), eb.and([eb("l.state", "is not", null), eb("l.state", "!=", "released")])]))
    .orderBy("m.lease_id")
    .execute();
  for (const r of rows) out.get(r.volume_id)?.push(r.lease_id);
  return out;
}

/** The provider a new volume goes to: the one asked for, else the first the org may use that sells volumes. */
async function providerForVolume(env: Env, db: Db, orgId: string, asked: string | undefined): Promise<string> {
  const usable = await usableProviderNames(env, db, orgId, { fresh: true });
  const able = usable.filter((p) => providerCapabilities(p).volumes);
  if (asked !== undefined) {
    const name = asked.toLowerCase();
    if (!usable.includes(name)) throw conflict("provider_not_configured", `this org cannot use provider "${asked}" (not enabled here, or no working key stored)`, { provider: asked });
    if (!able.includes(name)) throw conflict("capability_missing", `provider "${name}" sells no volumes lessor can make`, { provider: name, capabilities: ["volumes"] });
    return name;
  }
  const first = [...able].sort()[0];
  if (!first) throw conflict("capability_missing", "no provider this org may use sells volumes lessor can make", { providers: usable, capabilities: ["volumes"] });
  return first;
}

/** Where a volume goes when no region is asked for: the provider's region with the most offers now. */
async function defaultRegion(db: Db, provider: string): Promise<string> {
  const row = await db
    .selectFrom("offers")
    .select(["region", (eb) => eb.fn.countAll<number>().as("n")])
    .where("provider", "=", provider)
    .groupBy("region")
    .orderBy("n", "desc")
    .orderBy("region")
    .executeTakeFirst();
  if (!row) throw conflict("no_capacity", `provider "${provider}" offers nothing now, so no region can be chosen for the volume: name one`, { provider, constraint: "region" });
  return row.region;
}

/**
 * ?1 id, ?2 org, ?3 name, ?4 provider, ?5 region, ?6 size, ?7 the budget's pending cutoff, ?8 now,
 * ?9 MAX_VOLUMES, ?10 label, ?11 the month, ?12 what the volume bills from now to its end, ?13 its
 * rate an hour. Lands only within the org's volume limit and its budget (src/billing/budget.ts
 * `volumeFitsSql`), counted in the same statement, so two creates never both pass a cap.
 */
const INSERT_VOLUME = `
  INSERT INTO volumes (id, org_id, name, provider, region, size_gb, label, provider_volume_id, state, gb_month_micro_usd, created_at, updated_at)
  SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?10, NULL, 'creating', NULL, ?8, ?8
  WHERE (SELECT COUNT(*) FROM (SELECT 1 FROM volumes WHERE org_id = ?2 LIMIT ?9)) < ?9
    AND ${volumeFitsSql("?11", "?12", "?13")}
  ON CONFLICT (org_id, name) DO NOTHING`;

/** The volume's bill, from its creation (migrations/0029): written with its row, in the same batch, only where the row landed. */
const INSERT_BILL = `
  INSERT INTO volume_bills (volume_id, org_id, name, provider, provider_volume_id, size_gb, gb_month_micro_usd, billed_from, deleted_at, settled_through)
  SELECT id, org_id, name, provider, NULL, size_gb, ?2, created_at, NULL, created_at FROM volumes WHERE id = ?1 AND created_at = ?3
  ON CONFLICT (volume_id) DO NOTHING`;

/** How long a `creating` row is left to the caller that inserted it before another may finish it. */
const CREATE_GRACE_MS = 60_000;

export interface PutVolumeOutcome {
  /** 201: this call created the volume; 200: it was there. */
  status: 200 | 201;
  row: VolumeRow;
}

/**
 * `POST /v1/volumes`: the volume of this name, made or found. The same name with another size,
 * provider or region is 409 `volume_exists`; one being deleted is 409 `volume_busy`.
 */
export async function putVolume(db: Db, env: Env, orgId: string, req: CreateVolume, now: number): Promise<PutVolumeOutcome> {
  const existing = await volumeByName(db, orgId, req.name);
  if (existing) return { status: 200, row: await found(db, env, existing, req, now) };
  const provider = await providerForVolume(env, db, orgId, req.provider);
  const region = req.region ?? (await defaultRegion(db, provider));
  const id = newId("vol", now);
  const row: VolumeRow = {
    id, org_id: orgId, name: req.name, provider, region, size_gb: req.size_gb, label: volumeLabel(installationId(env), id),
    provider_volume_id: null, state: "creating", gb_month_micro_usd: null, created_at: now, updated_at: now,
  };
  // The price the provider's document states, reserved from the creation (null: none stated, nothing reserved).
  const price = await expectedPrice(env, db, orgId, provider, region);
  const gbMonthMicros = price === null ? null : usdToMicros(price);
  const need = volumeReservation(row.size_gb, gbMonthMicros, now);
  const [month, ask] = Object.entries(need.months)[0]!;
  const [res] = await env.DB.batch([
    env.DB.prepare(INSERT_VOLUME).bind(row.id, orgId, row.name, provider, region, row.size_gb, now - PENDING_MS, now, MAX_VOLUMES, row.label, month, ask, need.hourly_micro_usd),
    env.DB.prepare(INSERT_BILL).bind(row.id, gbMonthMicros, now),
  ]);
  if (res!.meta.changes !== 1) {
    const other = await volumeByName(db, orgId, req.name);
    if (other) return { status: 200, row: await found(db, env, other, req, now) };
    const held = await db.selectFrom("volumes").select((eb) => eb.fn.countAll<number>().as("n")).where("org_id", "=", orgId).executeTakeFirst();
    if (Number(held?.n ?? 0) >= MAX_VOLUMES) throw limitReached("volumes");
    throw await volumeRefusal(env.DB, db, { volume_id: id, org_id: orgId, need }, now);
  }
  return { status: 201, row: await finishCreate(db, env, row, now, { fresh: true }) };
}

/** What the provider states a new volume in `region` bills a GB a month; a provider that cannot be reached now is answered as a create would be. */
async function expectedPrice(env: Env, db: Db, orgId: string, name: string, region: string): Promise<number | null> {
  try {
    const provider = await providerFor(env, db, orgId, name);
    return provider.volumePrice?.(region) ?? null;
  } catch (e) {
    if (!(e instanceof ProviderError)) throw e;
    throw providerRefusal(e, name, "nothing was made");
  }
}

/** A volume of the name exists: it is answered as it is, its create finished when that was left undone. */
async function found(db: Db, env: Env, row: VolumeRow, req: CreateVolume, now: number): Promise<VolumeRow> {
  const differs = row.size_gb !== req.size_gb || (req.provider !== undefined && req.provider.toLowerCase() !== row.provider) || (req.region !== undefined && req.region !== row.region);
  if (differs) {
    throw conflict("volume_exists", `volume "${row.name}" exists with another size, provider or region`, { name: row.name, size_gb: row.size_gb, provider: row.provider, region: row.region });
  }
  if (row.state === "deleting") throw conflict("volume_busy", `volume "${row.name}" is being deleted`, { name: row.name });
  if (row.state === "ready" || row.updated_at > now - CREATE_GRACE_MS) return row;
  // A create left undone (its outcome unknown, or its caller gone): this caller takes it over, once.
  const taken = await db.updateTable("volumes").set({ updated_at: now }).where("id", "=", row.id).where("state", "=", "creating").where("updated_at", "=", row.updated_at).returningAll().executeTakeFirst();
  return taken ? finishCreate(db, env, taken, now, { fresh: false }) : ((await volumeById(db, row.org_id, row.id)) ?? row);
}

/**
 * Creates the row's volume at its provider: after an earlier attempt (`fresh` false) it lists by
 * the label first and adopts what it finds (never two volumes for one row). A definite refusal
 * deletes the row; an unknown outcome keeps it `creating` and answers 503.
 */
async function finishCreate(db: Db, env: Env, row: VolumeRow, now: number, options: { fresh: boolean }): Promise<VolumeRow> {
  let provider: Provider;
  try {
    provider = await providerFor(env, db, row.org_id, row.provider);
    const made =
      (!options.fresh ? (await provider.listVolumes!(row.label)).find((v) => v.label === row.label) : undefined) ??
      (await createRefusedForNow(provider, { label: row.label, size_gb: row.size_gb, region: row.region }));
    const [ready] = await batch(env.DB, [
      db
        .updateTable("volumes")
        .set({ provider_volume_id: made.id, region: made.region, state: "ready", gb_month_micro_usd: made.usd_per_gb_month === null ? null : usdToMicros(made.usd_per_gb_month), updated_at: now })
        .where("id", "=", row.id)
        .returningAll(),
      billMade(db, row.id, made),
    ]);
    return (ready?.[0] as VolumeRow | undefined) ?? row;
  } catch (e) {
    if (!(e instanceof ProviderError)) throw e;
    const unknown = e.kind === "ambiguous";
    // Refused: nothing was made, so nothing bills either.
    if (!unknown) await batch(env.DB, [db.deleteFrom("volumes").where("id", "=", row.id).where("state", "=", "creating"), db.deleteFrom("volume_bills").where("volume_id", "=", row.id).where("provider_volume_id", "is", null)]);
    throw providerRefusal(e, row.provider, unknown ? "its outcome is unknown; send the same request again to finish it" : "nothing was made");
  }
}

/** Tries a create refused for now (a 429, or a 503 that did nothing) this many times in all. */
const CREATE_TRIES = 4;
const CREATE_WAIT_CAP_MS = 2_000;

/**
 * The create, sent again only after an answer that says nothing was made (`rate_limited` after
 * its Retry-After, capped; `unavailable`), never after one whose outcome is unknown (`ambiguous`).
 */
async function createRefusedForNow(provider: Provider, input: CreateVolumeInput): Promise<Volume> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await provider.createVolume!(input);
    } catch (e) {
      const forNow = e instanceof ProviderError && (e.kind === "rate_limited" || e.kind === "unavailable");
      if (!forNow || attempt >= CREATE_TRIES) throw e;
      await new Promise((r) => setTimeout(r, Math.min(CREATE_WAIT_CAP_MS, e.retryAfterMs ?? 100 * 2 ** attempt)));
    }
  }
}

/** A provider's failure as the API answers it: 503 when it may pass, 409 `provider_refused` when not. The provider's own words are not shown. */
function providerRefusal(e: ProviderError, provider: string, what: string): ApiError {
  const passing = e.kind === "ambiguous" || e.kind === "unavailable" || e.kind === "rate_limited";
  if (passing) return new ApiError(503, "provider_unavailable", `${provider} did not answer the volume's call (${e.kind}); ${what}`, { provider, error: e.kind }, { "retry-after": "5" }, true);
  return conflict("provider_refused", `${provider} refused the volume's call (${e.kind}); ${what}`, { provider, error: e.kind });
}

/**
 * `DELETE /v1/volumes/:id`: the volume and its data, gone at the provider and here. 409
 * `volume_in_use` while a lease that mounts it is not released (details: leases).
 */
export async function deleteVolume(db: Db, env: Env, orgId: string, id: string, now: number): Promise<VolumeRow> {
  const row = await volumeById(db, orgId, id);
  if (!row) throw notFound("volume", id);
  // Marked deleting only where no mount keeps it in use, in one statement (a lease mounts only a ready volume).
  const marked = await env.DB.prepare(
    `UPDATE volumes SET state = 'deleting', updated_at = ?1 WHERE id = ?2 AND org_id = ?3 AND NOT EXISTS (
       SELECT 1 FROM volume_mounts m LEFT JOIN leases l ON l.id = m.lease_id
       WHERE m.volume_id = ?2 AND ((l.id IS NULL AND m.created_at > ?4) OR (l.state IS NOT NULL AND l.state != 'released')))`,
  )
    .bind(now, id, orgId, now - PENDING_MS)
    .run();
  if (marked.meta.changes !== 1) throw inUse(row, (await mountedBy(db, [id], now)).get(id) ?? []);
  try {
    const provider = await providerFor(env, db, orgId, row.provider);
    const ids = row.provider_volume_id !== null ? [row.provider_volume_id] : (await provider.listVolumes!(row.label)).filter((v) => v.label === row.label).map((v) => v.id);
    for (const pid of ids) await provider.deleteVolume!(pid);
  } catch (e) {
    if (!(e instanceof ProviderError)) throw e;
    // Refused (a machine lessor does not know of still mounts it): the volume stays, ready again.
    if (e.kind === "refused" && row.provider_volume_id !== null) {
      await db.updateTable("volumes").set({ state: "ready", updated_at: now }).where("id", "=", id).execute();
      throw inUse(row, []);
    }
    throw providerRefusal(e, row.provider, "the volume is left `deleting`; send the delete again");
  }
  // Its bill ends here; the bill itself stays for the settle step's receipt (migrations/0029).
  await batch(env.DB, [
    db.deleteFrom("volume_mounts").where("volume_id", "=", id),
    db.deleteFrom("volumes").where("id", "=", id),
    db.updateTable("volume_bills").set({ deleted_at: now }).where("volume_id", "=", id).where("deleted_at", "is", null),
  ]);
  return { ...row, state: "deleting" };
}

/** 409 `no_capacity` naming the volumes a lease mounts and the constraint that cannot be met with them. */
function noCapacityFor(volumes: readonly LeaseVolume[], constraint: string, why: string): ApiError {
  return new ApiError(409, "no_capacity", `no offer can mount the lease's volumes: ${why}`, { constraint, volumes: volumes.map(placeOf) });
}

const placeOf = (v: LeaseVolume) => ({ name: v.name, provider: v.provider, region: v.region });

/**
 * 409 `no_capacity` for a spec bound to its volumes that no offer meets: the selector's answer,
 * with the volumes named in its message and details.
 */
export function withVolumesNamed(e: unknown, volumes: readonly LeaseVolume[]): unknown {
  if (volumes.length === 0 || !(e instanceof ApiError) || e.code !== "no_capacity") return e;
  const where = volumes.map((v) => `"${v.name}" (${v.provider}, ${v.region})`).join(", ");
  return new ApiError(409, "no_capacity", `no offer where volume(s) ${where} live: ${e.message}`, { ...e.details, volumes: volumes.map(placeOf) });
}

function inUse(row: VolumeRow, leases: readonly string[]): ApiError {
  return conflict("volume_in_use", `volume "${row.name}" is mounted by ${leases.length > 0 ? `lease(s) ${leases.join(", ")}` : "a machine at its provider"}; end them first`, { name: row.name, leases: [...leases] });
}

/**
 * The org's volumes a lease asks to mount, each ready: 404 for a name the org has none of, 409
 * `volume_busy` for one being made or deleted.
 */
export async function resolveMounts(db: Db, orgId: string, mounts: readonly MountRequest[]): Promise<LeaseVolume[]> {
  if (mounts.length === 0) return [];
  const rows = await db.selectFrom("volumes").selectAll().where("org_id", "=", orgId).where("name", "in", mounts.map((m) => m.name)).execute();
  return mounts.map((m) => {
    const row = rows.find((r) => r.name === m.name);
    if (!row) throw notFound("volume", m.name);
    if (row.state !== "ready" || row.provider_volume_id === null) throw conflict("volume_busy", `volume "${m.name}" is ${row.state === "creating" ? "being made" : "being deleted"}`, { name: m.name, state: row.state });
    return { name: row.name, id: row.id, provider: row.provider, region: row.region, provider_volume_id: row.provider_volume_id, path: m.path };
  });
}

/**
 * The spec bound to where its volumes live: their one provider and one region. A spec that cannot
 * run there (volumes in different places, or its own providers or regions elsewhere) is 409
 * `no_capacity` naming the volumes.
 */
export function boundToVolumes(spec: Spec, volumes: readonly LeaseVolume[]): Spec {
  const first = volumes[0];
  if (!first) return spec;
  const apart = volumes.find((v) => v.provider !== first.provider || v.region.toLowerCase() !== first.region.toLowerCase());
  if (apart) throw noCapacityFor(volumes, "volumes", `volumes "${first.name}" (${first.provider}, ${first.region}) and "${apart.name}" (${apart.provider}, ${apart.region}) live apart: no machine mounts both`);
  const region = first.region.toLowerCase();
  const lower = (xs: readonly string[] | undefined) => xs?.map((x) => x.toLowerCase());
  if (lower(spec.providers) && !lower(spec.providers)!.includes(first.provider)) throw noCapacityFor(volumes, "providers", `the spec's providers leave out ${first.provider}, where the volumes live`);
  if (lower(spec.exclude_providers)?.includes(first.provider)) throw noCapacityFor(volumes, "exclude_providers", `the spec excludes ${first.provider}, where the volumes live`);
  if (lower(spec.regions) && !lower(spec.regions)!.includes(region)) throw noCapacityFor(volumes, "regions", `the spec's regions leave out ${first.region}, where the volumes live`);
  return { ...spec, providers: [first.provider], regions: [region] };
}

/**
 * Mounts the volumes for the lease: one row each, inserted only while the volume is ready (a delete
 * marks it first). 409 `volume_busy` when one is not, and nothing is left mounted.
 */
export async function mountVolumes(d1: D1Database, db: Db, leaseId: string, volumes: readonly LeaseVolume[], now: number): Promise<void> {
  if (volumes.length === 0) return;
  const inserts = volumes.map((v) =>
    db
      .insertInto("volume_mounts")
      .columns(["volume_id", "lease_id", "path", "created_at"])
      .expression(db.selectFrom("volumes").select([sql.val(v.id).as("volume_id"), sql.val(leaseId).as("lease_id"), sql.val(v.path).as("path"), sql.val(now).as("created_at")]).where("id", "=", v.id).where("state", "=", "ready"))
      .onConflict((oc) => oc.doNothing())
      .returning("volume_id"),
  );
  const results = await batch(d1, inserts);
  const missed = volumes.filter((_, i) => (results[i]?.length ?? 0) === 0);
  if (missed.length > 0) {
    await unmountVolumes(db, leaseId);
    throw conflict("volume_busy", `volume "${missed[0]!.name}" is being deleted`, { name: missed[0]!.name });
  }
}

/** Forgets a lease's mounts (a lease never made). */
export async function unmountVolumes(db: Db, leaseId: string): Promise<void> {
  await db.deleteFrom("volume_mounts").where("lease_id", "=", leaseId).execute();
}

/**
 * The bill of a volume its provider made (`made`): its provider id, and its price where the
 * provider's answer states one (else the one reserved at the create stays).
 */
export function billMade(db: Db, volumeId: string, made: Volume) {
  return db
    .updateTable("volume_bills")
    .set((eb) => ({
      provider_volume_id: made.id,
      gb_month_micro_usd: made.usd_per_gb_month === null ? eb.ref("gb_month_micro_usd") : usdToMicros(made.usd_per_gb_month),
    }))
    .where("volume_id", "=", volumeId);
}

/** What a volume bills an hour (its GB-month price spread over HOURS_PER_MONTH). */
export function volumeHourlyUsd(row: Pick<VolumeRow, "gb_month_micro_usd" | "size_gb">): number {
  return row.gb_month_micro_usd === null ? 0 : (microsToUsd(row.gb_month_micro_usd) * row.size_gb) / HOURS_PER_MONTH;
}
