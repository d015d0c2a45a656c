/**
 * The cron side of leases: the backstop and the reconciler. Both are level-triggered and
 * idempotent (STYLE.md rule 8): they read the current state and act on it, never on what an
 * event claimed, so a run that overlaps or repeats another changes nothing.
 *
 * - Backstop (guarantee 5): every lease whose next deadline has passed in its org's lease index
 *   gets its object poked; the object decides. Each org's object pokes its own due leases from
 *   its alarm (src/orgs/lease-index.ts); the cron asks every org's object to do it again, for an
 *   alarm that did not run: one call per org a minute, each an index range scan on its deadlines,
 *   so its cost grows with the orgs and what is due, not with how many leases exist.
 * - Reconciler (guarantee 6): lists each provider's machines with this installation's label
 *   prefix. A machine no live lease owns is an orphan: stopped after a grace, destroyed after
 *   its stopped time-to-live (destroyed at once where the provider cannot stop). A machine
 *   without the prefix, or with another installation's, is never touched. A live lease whose
 *   machine the provider no longer lists is poked, so that its object finds it gone; so is a
 *   stopped lease whose machine the provider lists running again (started behind lessor's back),
 *   so that its object stops it within one sweep (docs/design.md "Money 3": `unexpected_start`).
 */
import { installationId } from "../config";
import { database, type Db } from "../db";
import { intSetting, type Env } from "../env";
import { newId } from "../ids";
import type { Machine, Provider } from "../providers/contract";
import { providerAccounts, type ProviderAccount } from "../providers/registry";
import { orgEventsStub } from "../events/forward";
import { installationPrefix, parseLabel } from "./label";
import { MACHINE_STATES } from "./state";
import { sweepVolumes, type VolumeSweepReport } from "../volumes/sweep";
import { runVolumeIdle } from "../volumes/idle";

/** What the reconciler knows of an orphan: its machine's status now, and what the `orphans` table holds. */
export interface OrphanSeen {
  status: Machine["status"];
  /** When it was first seen (null: seen for the first time now). */
  first_seen_at: number | null;
  /** When it was stopped (by lessor, or first seen stopped); null: never. */
  stopped_at: number | null;
}

export interface OrphanLimits {
  grace_ms: number;
  stopped_ttl_ms: number;
  /** Whether the provider can stop a machine (else an orphan past its grace is destroyed). */
  can_stop: boolean;
}

/**
 * When the orphan rule acts on an orphan, pure: `stop_at` (null where it is stopped already, or
 * the provider cannot stop) and `destroy_at` (for a running orphan that can be stopped, counted
 * from `stop_at`: the reconciler runs each minute, so either may come up to a run later).
 * `first_seen_at` null means it is first seen at `now`.
 */
export function orphanSchedule(o: OrphanSeen, limits: OrphanLimits, now: number): { stop_at: number | null; destroy_at: number; stopped_at: number | null } {
  const firstSeen = o.first_seen_at ?? now;
  const stoppedAt = o.status === "stopped" || o.status === "error" ? (o.stopped_at ?? now) : null;
  if (stoppedAt !== null) return { stop_at: null, destroy_at: stoppedAt + limits.stopped_ttl_ms, stopped_at: stoppedAt };
  const graceEnds = firstSeen + limits.grace_ms;
  if (!limits.can_stop) return { stop_at: null, destroy_at: graceEnds, stopped_at: o.stopped_at };
  return { stop_at: graceEnds, destroy_at: graceEnds + limits.stopped_ttl_ms, stopped_at: o.stopped_at };
}

/**
 * The orphan rule (guarantee 6), pure: a machine no live lease owns is stopped once `grace_ms`
 * has passed since it was first seen, and destroyed `stopped_ttl_ms` after it was stopped (at
 * once past its grace where the provider cannot stop). `stopped_at` is what the `orphans` row
 * should hold after the action: its stopped time-to-live counts from lessor's stop, or from when
 * it was first seen stopped. The times are `orphanSchedule`'s.
 */
export function orphanRule(o: OrphanSeen, limits: OrphanLimits, now: number): { action: "none" | "stop" | "destroy"; stopped_at: number | null } {
  const due = orphanSchedule(o, limits, now);
  if (due.stop_at !== null) return now >= due.stop_at ? { action: "stop", stopped_at: now } : { action: "none", stopped_at: due.stopped_at };
  return { action: now >= due.destroy_at ? "destroy" : "none", stopped_at: due.stopped_at };
}

/** The reconciler's orphan limits on a provider (LESSOR_ORPHAN_GRACE_S, LESSOR_ORPHAN_STOPPED_TTL_S). */
export function orphanLimits(env: Env, provider: Pick<Provider, "capabilities">): OrphanLimits {
  return {
    grace_ms: intSetting(env.LESSOR_ORPHAN_GRACE_S, 300) * 1000,
    stopped_ttl_ms: intSetting(env.LESSOR_ORPHAN_STOPPED_TTL_S, 86_400) * 1000,
    can_stop: provider.capabilities.stop,
  };
}

export interface LabelledLease {
  id: string;
  org_id: string;
  state: string;
  machine_id: string | null;
}

/** The leases this installation's machines are labelled with, from the index (90 ids a query). */
export async function leasesOfMachines(db: Db, installation: string, machines: readonly Machine[]): Promise<Map<string, LabelledLease>> {
  const leaseIds = [...new Set(machines.map((m) => parseLabel(installation, m.label)?.leaseId).filter((x): x is string => !!x))];
  const leases = new Map<string, LabelledLease>();
  for (let i = 0; i < leaseIds.length; i += 90) {
    const rows = await db.selectFrom("leases").select(["id", "org_id", "state", "machine_id"]).where("id", "in", leaseIds.slice(i, i + 90)).execute();
    for (const r of rows) leases.set(r.id, r);
  }
  return leases;
}

/** A machine no live lease owns: its lease is unknown to the index, or released (guarantee 6). */
export function isOrphan(lease: LabelledLease | undefined): boolean {
  return !lease || lease.state === "released";
}

/** How many orgs the backstop reads at a time; each org's object pokes its own due leases. */
const BACKSTOP_ORG_PAGE = 500;
const POKE_CONCURRENCY = 25;
const LOCK_MS = 55_000;

/**
 * Takes the named sweep lock until `now + LOCK_MS`, or answers false when another run holds it.
 * One D1 statement: D1 has a single writer, so two runs cannot both take it.
 */
export async function takeSweepLock(db: Db, name: string, now: number): Promise<string | null> {
  const holder = newId("req", now);
  const row = await db
    .insertInto("sweep_locks")
    .values({ name, holder, until: now + LOCK_MS })
    .onConflict((oc) => oc.column("name").doUpdateSet({ holder, until: now + LOCK_MS }).where("sweep_locks.until", "<", now))
    .returning("holder")
    .executeTakeFirst();
  return row?.holder === holder ? holder : null;
}

export async function releaseSweepLock(db: Db, name: string, holder: string): Promise<void> {
  await db.deleteFrom("sweep_locks").where("name", "=", name).where("holder", "=", holder).execute();
}

async function withSweepLock<T>(env: Env, name: string, now: number, run: () => Promise<T>): Promise<T | { skipped: true }> {
  const db = database(env.DB);
  const holder = await takeSweepLock(db, name, now);
  if (!holder) return { skipped: true };
  try {
    return await run();
  } finally {
    await releaseSweepLock(db, name, holder);
  }
}

/**
 * Runs each lease's policy now (its object's `tick()`), a few at a time; answers how many failed.
 * `toldAt`: what prompts the pokes tells of a change made by then (a provider's webhook).
 */
export async function pokeAll(env: Env, ids: readonly string[], toldAt: number | null = null): Promise<number> {
  let failed = 0;
  for (let i = 0; i < ids.length; i += POKE_CONCURRENCY) {
    const results = await Promise.allSettled(ids.slice(i, i + POKE_CONCURRENCY).map((id) => env.LEASE.get(env.LEASE.idFromName(id)).tick(toldAt)));
    failed += results.filter((r) => r.status === "rejected").length;
  }
  return failed;
}

export interface BackstopReport {
  /** Orgs asked; a failed ask counts as one failure. */
  orgs: number;
  due: number;
  failed: number;
}

export async function runBackstop(env: Env, now: number) {
  return withSweepLock(env, "backstop", now, async (): Promise<BackstopReport> => {
    const db = database(env.DB);
    const report: BackstopReport = { orgs: 0, due: 0, failed: 0 };
    let after = "";
    for (;;) {
      const orgs = await db.selectFrom("orgs").select("id").where("id", ">", after).orderBy("id").limit(BACKSTOP_ORG_PAGE).execute();
      for (let i = 0; i < orgs.length; i += POKE_CONCURRENCY) {
        const swept = await Promise.allSettled(orgs.slice(i, i + POKE_CONCURRENCY).map((o) => orgEventsStub(env, o.id).sweepDue(o.id, now)));
        for (const s of swept) {
          report.orgs += 1;
          if (s.status === "fulfilled") ((report.due += s.value.due), (report.failed += s.value.failed));
          else report.failed += 1;
        }
      }
      if (orgs.length < BACKSTOP_ORG_PAGE) return report;
      after = orgs.at(-1)!.id;
    }
  });
}

/** Idle volumes (src/volumes/idle.ts), under its own lock: a duplicate run deletes nothing twice. */
export async function runVolumeIdleSweep(env: Env, now: number) {
  return withSweepLock(env, "volumes_idle", now, () => runVolumeIdle(env, database(env.DB), now));
}

export interface ReconcileReport {
  provider: string;
  /** '' for an installation-wide account (the sim), else the org whose key was used. */
  account: string;
  machines: number;
  orphans_stopped: number;
  orphans_destroyed: number;
  leases_poked: number;
  /** Where the provider sells volumes: what the volume sweep found (src/volumes/sweep.ts). */
  volumes?: VolumeSweepReport;
  error?: string;
}

export async function runReconciler(env: Env, now: number) {
  return withSweepLock(env, "reconcile", now, async () => {
    const reports: ReconcileReport[] = [];
    for (const account of await providerAccounts(env, database(env.DB))) {
      if (!account.provider.capabilities.list_by_label) continue;
      const report: ReconcileReport = { provider: account.provider.name, account: account.account, machines: 0, orphans_stopped: 0, orphans_destroyed: 0, leases_poked: 0 };
      try {
        await reconcileAccount(env, account, now, report);
        if (account.provider.capabilities.volumes) report.volumes = await sweepVolumes(env, database(env.DB), account, now);
      } catch (e) {
        report.error = e instanceof Error ? e.message : String(e);
      }
      reports.push(report);
    }
    return reports;
  });
}

/** One provider account: its orphans, and the live leases whose machine it no longer lists. */
async function reconcileAccount(env: Env, { provider, account, org_id }: ProviderAccount, now: number, report: ReconcileReport): Promise<void> {
  const db = database(env.DB);
  const installation = installationId(env);
  // Only this installation's machines are listed; the parse below is a second guard.
  const machines = (await provider.listMachines(installationPrefix(installation))).filter((m) => m.status !== "terminated");
  report.machines = machines.length;

  const leases = await leasesOfMachines(db, installation, machines);

  const seen = new Set<string>();
  const restarted: string[] = [];
  for (const m of machines) {
    const parsed = parseLabel(installation, m.label);
    if (!parsed) continue; // not ours: never touched
    const lease = leases.get(parsed.leaseId);
    if (lease?.state === "stopped" && lease.machine_id === m.id && m.status !== "stopped" && m.status !== "error") restarted.push(parsed.leaseId);
    // A machine the provider took back (a spot machine preempted) still lists, stopped: its lease is poked to find out (a job may recover).
    else if (m.preempted && lease && lease.machine_id === m.id && (lease.state === "ready" || lease.state === "booting")) restarted.push(parsed.leaseId);
    // A live lease owns every machine with its label: its object destroys any extra itself.
    if (!isOrphan(lease)) continue;
    seen.add(m.id);
    const known = await db
      .selectFrom("orphans")
      .selectAll()
      .where("provider", "=", provider.name)
      .where("machine_id", "=", m.id)
      .executeTakeFirst();
    if (!known) {
      // Two orgs may share one provider account (the same key): the first to see the orphan keeps it.
      await db
        .insertInto("orphans")
        .values({ provider: provider.name, account, machine_id: m.id, label: m.label, first_seen_at: now, stopped_at: null })
        .onConflict((oc) => oc.columns(["provider", "machine_id"]).doNothing())
        .execute();
      console.log(JSON.stringify({ msg: "orphan found", provider: provider.name, machine_id: m.id, label: m.label }));
    }
    const verdict = orphanRule(
      { status: m.status, first_seen_at: known?.first_seen_at ?? null, stopped_at: known?.stopped_at ?? null },
      orphanLimits(env, provider),
      now,
    );
    if (verdict.action === "destroy") {
      await provider.destroyMachine(m.id);
      report.orphans_destroyed++;
    } else if (verdict.action === "stop") {
      await provider.stopMachine(m.id);
      report.orphans_stopped++;
    }
    if (verdict.action !== "none") {
      console.log(JSON.stringify({ msg: `orphan ${verdict.action === "stop" ? "stopped" : "destroyed"}`, reason: "orphan", provider: provider.name, machine_id: m.id, label: m.label }));
    }
    if (verdict.stopped_at !== (known?.stopped_at ?? null)) {
      await db.updateTable("orphans").set({ stopped_at: verdict.stopped_at }).where("provider", "=", provider.name).where("machine_id", "=", m.id).execute();
    }
  }
  // Forget orphans that are gone.
  const tracked = await db.selectFrom("orphans").select("machine_id").where("provider", "=", provider.name).where("account", "=", account).execute();
  const gone = tracked.map((t) => t.machine_id).filter((id) => !seen.has(id));
  for (let i = 0; i < gone.length; i += 90) {
    await db.deleteFrom("orphans").where("provider", "=", provider.name).where("account", "=", account).where("machine_id", "in", gone.slice(i, i + 90)).execute();
  }

  // Live leases whose machine the provider no longer lists: poke them to find out (provider_lost).
  const listed = new Set(machines.map((m) => m.id));
  const live = await liveMachinesQuery(db, provider.name, org_id).execute();
  const lost = live.filter((l) => l.machine_id !== null && !listed.has(l.machine_id)).map((l) => l.id);
  report.leases_poked = lost.length + restarted.length;
  await pokeAll(env, [...lost, ...restarted]);
}

/**
 * The leases holding a machine on `provider` (in one org's account: `orgId`; null: the
 * installation's), from the D1 index. `released_at IS NULL` says nothing `state` does not (it is
 * set exactly when a lease is released), and lets the query use `leases_provider_unreleased`, an
 * index no transition but the release writes (migration 0023, docs/cost.md). A lease without a
 * machine is left out by the caller, not here: `machine_id IS NOT NULL` would steer the query to
 * `leases_machine`, which holds released leases too.
 */
export function liveMachinesQuery(db: Db, provider: string, orgId: string | null) {
  let q = db
    .selectFrom("leases")
    .select(["id", "machine_id"])
    .where("provider", "=", provider)
    .where("released_at", "is", null)
    .where("state", "in", [...MACHINE_STATES]);
  // An org's account lists only that org's machines.
  if (orgId !== null) q = q.where("org_id", "=", orgId);
  return q;
}
