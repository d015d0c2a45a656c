/**
 * The org's GPU quota, pure (docs/billing.md "GPU quota and preemption"): whether a new lease's
 * GPUs fit beside what the org's live leases hold, and, when a deployment does not fit, which
 * scratch leases it displaces. No I/O and no clock: the holds are read, and the verdict acted on,
 * by src/lease/quota-repo.ts.
 *
 * - A lease holds its chosen offer's GPUs from its create until it is released. A fallback host
 *   with more GPUs (a spec of `min_gpus: 1` may fall back to a larger machine) is admitted for
 *   them before it is rented, and displaces nothing (`{ displace: false }`); refused, the lease is
 *   released `quota_exceeded`.
 * - The total cap counts every kind; a kind's own cap (`per_kind`) counts that kind alone. Both
 *   must hold after the new lease, each with equality allowed.
 * - Only a deployment displaces, and only scratch leases, newest first, as few as make it fit.
 *   A job or a deployment is never displaced, and scratch never displaces anything. Displacing
 *   frees the total cap only: a deployment over the deployments' own cap is refused.
 * - When displacing every scratch lease would still not make it fit, none is displaced.
 */
import type { LeaseKind } from "./policy";

export interface GpuQuota {
  /** The most GPUs the org's live leases may hold at once. */
  gpus: number;
  /** A kind's own cap, within the total; absent: only the total caps it. */
  per_kind: Partial<Record<LeaseKind, number>>;
}

/** What one live lease holds. */
export interface GpuHold {
  lease_id: string;
  kind: LeaseKind;
  gpus: number;
  created_at: number;
}

export interface GpuAsk {
  kind: LeaseKind;
  gpus: number;
}

/** Which cap refused: the total, or a kind's own. */
export type QuotaCap = "gpus" | `per_kind.${LeaseKind}`;

export type QuotaVerdict =
  /** Admitted, once the leases in `preempt` (newest first; often none) are released. */
  | { ok: true; preempt: GpuHold[] }
  /** Refused: the cap, its limit, what the org holds under it now, and what the lease asked for. */
  | { ok: false; cap: QuotaCap; limit: number; held: number; requested: number };

const sum = (holds: readonly GpuHold[]) => holds.reduce((n, h) => n + h.gpus, 0);

/** The GPUs a lease holds: its chosen offer's (0 for a CPU lease). */
export function gpusOf(offers: readonly { gpu_count: number }[]): number {
  return offers[0]?.gpu_count ?? 0;
}

/** What the lease holds under the quota now: as last admitted, or, stored before that was kept, its chosen offer's. */
export function heldGpus(l: { held_gpus?: number | null; offers: readonly { gpu_count: number }[] }): number {
  return l.held_gpus ?? gpusOf(l.offers);
}

/** The GPUs renting an offer of `gpuCount` must hold first, or null when what the lease holds covers it. */
export function gpusToHold(l: { held_gpus?: number | null; offers: readonly { gpu_count: number }[] }, gpuCount: number): number | null {
  return gpuCount > heldGpus(l) ? gpuCount : null;
}

/** Newest first: the later create, and of two in one millisecond the later id. */
const newestFirst = (a: GpuHold, b: GpuHold) => b.created_at - a.created_at || (a.lease_id < b.lease_id ? 1 : a.lease_id > b.lease_id ? -1 : 0);

/** `held`: the org's holds other than the asking lease's own. `displace` false: nothing is displaced (a fallback host's growth). */
export function quotaVerdict(quota: GpuQuota | null, held: readonly GpuHold[], ask: GpuAsk, options: { displace?: boolean } = {}): QuotaVerdict {
  if (quota === null || ask.gpus === 0) return { ok: true, preempt: [] };
  const kindCap = quota.per_kind[ask.kind];
  if (kindCap !== undefined) {
    const heldOfKind = sum(held.filter((h) => h.kind === ask.kind));
    if (heldOfKind + ask.gpus > kindCap) return { ok: false, cap: `per_kind.${ask.kind}`, limit: kindCap, held: heldOfKind, requested: ask.gpus };
  }
  const total = sum(held);
  const refused: QuotaVerdict = { ok: false, cap: "gpus", limit: quota.gpus, held: total, requested: ask.gpus };
  if (total + ask.gpus <= quota.gpus) return { ok: true, preempt: [] };
  if (ask.kind !== "deployment" || options.displace === false) return refused;
  const preempt: GpuHold[] = [];
  let freed = 0;
  for (const h of held.filter((x) => x.kind === "scratch" && x.gpus > 0).sort(newestFirst)) {
    preempt.push(h);
    freed += h.gpus;
    if (total - freed + ask.gpus <= quota.gpus) return { ok: true, preempt };
  }
  return refused;
}

/** The refusal's words: the quota, what is held under it, what was asked. */
export function quotaMessage(v: Extract<QuotaVerdict, { ok: false }>, kind: LeaseKind): string {
  const total = v.cap === "gpus";
  const cap = total ? `the org's GPU quota of ${v.limit}` : `the org's GPU quota for ${kind} leases of ${v.limit}`;
  const why = kind === "deployment" && total ? " (displacing every scratch lease would not free enough)" : "";
  return `this ${kind} lease asks for ${v.requested} GPU${v.requested === 1 ? "" : "s"}, and the org's live ${total ? "" : `${kind} `}leases hold ${v.held}: that would pass ${cap}${why}`;
}
