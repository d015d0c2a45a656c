/**
 * The minute's sweeps, in the order that keeps leases safe first. Each is idempotent and holds a
 * lock in D1 while it runs, so an overlapping or repeated run changes nothing (docs/design.md).
 */
import { runStorageRetention } from "./artifacts/store";
import { runBilling } from "./billing/reconcile";
import { refreshOffers } from "./catalog/refresh";
import { database } from "./db";
import { creationCaps } from "./db/creation-caps";
import { retentionOwners, retentionPlan, runRetention } from "./db/retention";
import type { Env } from "./env";
import { errorText } from "./errors";
import { runBackstop, runReconciler, runVolumeIdleSweep } from "./lease/reaper";

/** Runs one isolated step: its failure is logged and reported, never thrown into the steps after it. */
async function isolated(step: string, run: () => Promise<unknown>): Promise<unknown> {
  try {
    return await run();
  } catch (e) {
    console.error(JSON.stringify({ msg: `${step} step failed`, error: errorText(e), stack: e instanceof Error ? e.stack : undefined }));
    return { error: errorText(e) };
  }
}

/** Every sweep once, `scheduledTime` being when the trigger fired; what each did, for the log. */
export async function runSweeps(env: Env, scheduledTime: number) {
  // The backstop first: it is what keeps deadlines when alarms are lost.
  const backstop = await runBackstop(env, Date.now());
  const reconcile = await runReconciler(env, Date.now());
  const refresh = await refreshOffers(env, scheduledTime);
  // Billing last, isolated: its failure never stops the sweeps above.
  const billing = await isolated("billing", () => runBilling(env, Date.now()));
  // Retention: bounded deletes of what has outlived its window, as much as the installation's
  // limits let its orgs add in a period and more (src/db/retention.ts); isolated like billing, and
  // after everything that keeps leases safe (docs/storage.md).
  const retention = await isolated("retention", async () => {
    const db = database(env.DB);
    return runRetention(db, Date.now(), retentionPlan(creationCaps(env), await retentionOwners(db)));
  });
  // Bundles and artifacts past their time, from R2 and D1, their bytes given back (docs/artifacts.md).
  const storage = await isolated("storage", () => runStorageRetention(env, Date.now()));
  // Volumes no lease has mounted for their org's volume_idle_ttl: reported, or deleted where asked (docs/volumes.md).
  const volumes_idle = await isolated("volumes_idle", () => runVolumeIdleSweep(env, Date.now()));
  return { backstop, reconcile, refresh, billing, retention, storage, volumes_idle };
}
