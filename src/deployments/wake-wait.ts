/** How long the gateway holds a request to a deployment that is starting (LESSOR_GATEWAY_WAKE_WAIT). */
import { parseDuration } from "../duration";
import type { Env } from "../env";

/** When LESSOR_GATEWAY_WAKE_WAIT is unset. */
export const GATEWAY_WAKE_WAIT_MS = 30_000;

/** The setting in ms, or null when it is not a duration (config.ts refuses to serve then). */
export function wakeWaitMs(env: Pick<Env, "LESSOR_GATEWAY_WAKE_WAIT">): number | null {
  const set = env.LESSOR_GATEWAY_WAKE_WAIT;
  return set === undefined || set === "" ? GATEWAY_WAKE_WAIT_MS : parseDuration(set);
}
