/**
 * Where a new machine landed, judged against where the lease may run. Pure: no I/O, no clock
 * (STYLE.md rule 1).
 *
 * A provider may treat the place lessor asks for as a preference: RunPod's `dataCenterIds` are
 * "Preferred data centers for placement" (runpod-v2-openapi.yaml, CreatePodRequest), so a pod
 * can come up in another data center than its offer's. The lease's object reads the machine back
 * after a create, and a machine outside the lease's `regions` is destroyed and the next offer
 * tried, like a host that failed (docs/design.md, guarantee 1: destroyed and confirmed gone
 * before the next is rented). The host recorded is the one the machine reports, not the offer's.
 */
import type { Machine } from "../providers/contract";

export type Placed =
  | { ok: true }
  /** The machine is in `region`, which the lease's regions do not include. */
  | { ok: false; region: string; allowed: string[] };

/**
 * Whether `machine` stands where `regions` (the spec's, case-insensitive; absent or empty: anywhere)
 * allow. A machine that does not say where it is yet (RunPod's `dataCenterId` is null until the
 * scheduler assigns one) is not judged: it is read again on the lease's next look.
 */
export function placementOf(regions: readonly string[] | null | undefined, machine: Pick<Machine, "region">): Placed {
  if (!regions || regions.length === 0) return { ok: true };
  const region = machine.region.toLowerCase();
  if (region === "") return { ok: true };
  const allowed = [...new Set(regions.map((r) => r.toLowerCase()))];
  return allowed.includes(region) ? { ok: true } : { ok: false, region, allowed };
}
