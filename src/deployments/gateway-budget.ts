/**
 * A deployment's gateway request budget (LESSOR_GATEWAY_RATE_LIMIT_PER_MINUTE): every caller of its
 * gateway together, counted by its lease's object (src/lease/object.ts `modelRequest`).
 */
import { intSetting, type Env } from "../env";

/** When LESSOR_GATEWAY_RATE_LIMIT_PER_MINUTE is unset: as many as one API key may make. */
export const DEFAULT_GATEWAY_RATE_LIMIT_PER_MINUTE = 600;

export function gatewayRateLimit(env: Pick<Env, "LESSOR_GATEWAY_RATE_LIMIT_PER_MINUTE">): number {
  return intSetting(env.LESSOR_GATEWAY_RATE_LIMIT_PER_MINUTE, DEFAULT_GATEWAY_RATE_LIMIT_PER_MINUTE);
}
