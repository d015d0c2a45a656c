/**
 * The cron trigger (every minute). Each sweep is idempotent and holds a lock in D1 while it runs,
 * so an overlapping or repeated run changes nothing.
 */
import { refreshOffers } from "../src/catalog/refresh";
import type { Env } from "../src/env";
import { runBackstop, runReconciler } from "../src/lease/reaper";

export async function runScheduled(controller: ScheduledController, env: Env): Promise<void> {
  const now = controller.scheduledTime;
  // The backstop first: it is what keeps deadlines when alarms are lost.
  const backstop = await runBackstop(env, Date.now());
  const reconcile = await runReconciler(env, Date.now());
  const refresh = await refreshOffers(env, now);
  console.log(JSON.stringify({ msg: "cron", cron: controller.cron, backstop, reconcile, refresh }));
}
