/**
 * A deployment's gateway request budget (LESSOR_GATEWAY_RATE_LIMIT_PER_MINUTE): every caller of its
 * gateway together, counted by its deployment's object (src/deployments/object.ts `request`).
 */
import { intSetting, type Env } from "../env";

/** When LESSOR_GATEWAY_RATE_LIMIT_PER_MINUTE is unset: as many as one API key may make. */
export const DEFAULT_GATEWAY_RATE_LIMIT_PER_MINUTE = 600;

export function gatewayRateLimit(env: Pick<Env, "LESSOR_GATEWAY_RATE_LIMIT_PER_MINUTE">): number {
  return intSetting(env.LESSOR_GATEWAY_RATE_LIMIT_PER_MINUTE, DEFAULT_GATEWAY_RATE_LIMIT_PER_MINUTE);
}

/** A gateway request's unit of the deployment's budget. */
export interface GatewayBudget {
  /** Requests a minute the deployment's callers may make together (the Worker's setting). */
  limit_per_minute: number;
  /** This request spent its unit already, on an earlier call for it. */
  counted: boolean;
}
