/**
 * Replacing a provider key never orphans a machine (docs/design.md "Provider keys"). Every later call for a
 * lease (observe, stop, destroy, bill) goes through the org's key as it is then, so a key of
 * another account would leave the live leases' machines running where lessor can no longer reach
 * them. Before a new key replaces the stored one, it must see every machine the org's live leases
 * hold on that provider, in one list by this installation's label prefix (src/lease/label.ts).
 *
 * Pure: the caller lists and acts (STYLE.md rule 1).
 */
import type { Machine } from "./contract";

export interface HeldMachine {
  lease_id: string;
  machine_id: string;
}

/** The held machines the listing does not show: what the new key could not see. */
export function machinesNotSeen(held: readonly HeldMachine[], listed: readonly Machine[]): HeldMachine[] {
  const seen = new Set(listed.map((m) => m.id));
  return held.filter((h) => !seen.has(h.machine_id));
}
