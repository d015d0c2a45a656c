/**
 * A machine's port made again from its url alone (contract.ts `MachineEndpoint.url`): how a
 * deployment's object (src/deployments/object.ts) reaches a replica's model server without asking
 * its lease's object for every request. Every provider's endpoint is a public URL
 * (http.ts `publicEndpoint`) except the sim's, which lives inside the Worker (`sim://`).
 */
import type { Env } from "../env";
import type { MachineEndpoint } from "./contract";
import { publicEndpoint } from "./http";
import { simPortEndpoint } from "./sim/adapter";

const SIM_URL = /^sim:\/\/([^:/]+):([0-9]{1,5})$/;

export function endpointAt(env: Env, url: string): MachineEndpoint | null {
  const sim = SIM_URL.exec(url);
  if (sim) return simPortEndpoint(env, sim[1]!, Number(sim[2]));
  return /^https?:\/\//.test(url) ? publicEndpoint(url) : null;
}
