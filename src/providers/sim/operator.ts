/** The installation operator's changes to the simulated cloud, checked before they are made (`/v1/sim/*`, docs/design.md). */
import type { Env } from "../../env";
import { badRequest } from "../../errors";
import { simAdmin } from "./adapter";
import { mergeFaults, type SimFaults } from "./faults";

/**
 * Merges `patch` into the faults in force. It is checked against those faults here first, so a bad
 * combination is the API's 400 `invalid_faults`, never the sim's own refusal.
 */
export async function changeFaults(env: Env, patch: Partial<SimFaults>): Promise<SimFaults> {
  const admin = simAdmin(env);
  const merged = mergeFaults(await admin.getFaults(), patch);
  if (!merged.ok) throw badRequest("invalid_faults", merged.message);
  return admin.setFaults(patch);
}
