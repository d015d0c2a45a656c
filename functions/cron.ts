/**
 * The cron trigger (every minute). Each sweep is idempotent and holds a lock in D1 while it runs,
 * so an overlapping or repeated run changes nothing.
 */
import { runBilling } from "../src/billing/reconcile";
import { refreshOffers } from "../src/catalog/refresh";
import { database } from "../src/db";
import { runRetention } from "../src/db/retention";
import type { Env } from "../src/env";
import { runBackstop, runReconciler } from "../src/lease/reaper";

export async function runScheduled(controller: ScheduledController, env: Env): Promise<void> {
  const now = controller.scheduledTime;
  // The backstop first: it is what keeps deadlines when alarms are lost.
  const backstop = await runBackstop(env, Date.now());
  const reconcile = await runReconciler(env, Date.now());
  const refresh = await refreshOffers(env, now);
  // Billing last, isolated: its failure never stops the sweeps above (issue 6).
  let billing: unknown;
  try {
    billing = await runBilling(env, Date.now());
  } catch (e) {
    billing = { error: e instanceof Error ? e.message : String(e) };
    console.error(JSON.stringify({ msg: "billing step failed", error: String(e), stack: (e as Error)?.stack }));
  }
  // Retention (issue 10, item 8): bounded deletes of expired quotes and idempotency records;
  // isolated like billing, and after everything that keeps leases safe.
  let retention: unknown;
  try {
    retention = await runRetention(database(env.DB), Date.now());
  } catch (e) {
    retention = { error: e instanceof Error ? e.message : String(e) };
    console.error(JSON.stringify({ msg: "retention step failed", error: String(e) }));
  }
  console.log(JSON.stringify({ msg: "cron", cron: controller.cron, backstop, reconcile, refresh, billing, retention }));
}
