/** The cron trigger (every minute): the sweeps of src/sweeps.ts, and one log line of what they did. */
import type { Env } from "../src/env";
import { runSweeps } from "../src/sweeps";

export async function runScheduled(controller: ScheduledController, env: Env): Promise<void> {
  const summary = await runSweeps(env, controller.scheduledTime);
  console.log(JSON.stringify({ msg: "cron", cron: controller.cron, ...summary }));
}
