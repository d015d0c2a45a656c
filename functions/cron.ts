/** The cron trigger: every sweep is idempotent, so an overlapping or repeated run changes nothing. */
import { refreshOffers } from "../src/catalog/refresh";
import type { Env } from "../src/env";

export async function runScheduled(controller: ScheduledController, env: Env): Promise<void> {
  const reports = await refreshOffers(env, controller.scheduledTime);
  console.log(JSON.stringify({ msg: "cron", cron: controller.cron, refresh: reports }));
}
