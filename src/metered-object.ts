/** The base of lessor's own Durable Objects: their environment and SQL storage counted (src/metering.ts). */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "./env";
import { meteredEnv, meterStorage } from "./metering";

export abstract class MeteredObject extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, meteredEnv(env));
    meterStorage(ctx.storage);
  }
}
