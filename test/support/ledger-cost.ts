/**
 * The tests' own reading of what a cloud's ledger says its machines cost, written apart from the
 * sim's and the stub clouds' billing (src/providers/sim/machines.ts `hourlyBilling`) so that it
 * checks them rather than repeating them: running time (STARTING, RUNNING) at the machine's price,
 * stopped time (EXITED, ERROR) at its disk's, in dollars.
 */
import { HOUR_MS } from "../../src/providers/sim/machines";

export interface LedgerCostMachine {
  id: string;
  price_per_hour: number;
  disk_price_per_hour: number;
  intervals: ReadonlyArray<{ status: string; from: number; to: number | null }>;
}

/** Throws on a machine still in an interval: its cost is not known yet. */
export function ledgerCost(machines: readonly LedgerCostMachine[]): number {
  let usd = 0;
  for (const m of machines) {
    for (const i of m.intervals) {
      if (i.to === null) throw new Error(`${m.id} is still ${i.status}`);
      const ms = i.to - i.from;
      if (i.status === "STARTING" || i.status === "RUNNING") usd += (ms * m.price_per_hour) / HOUR_MS;
      if (i.status === "EXITED" || i.status === "ERROR") usd += (ms * m.disk_price_per_hour) / HOUR_MS;
    }
  }
  return usd;
}
