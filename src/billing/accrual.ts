/**
 * Accrual: what a lease is costing while it runs, as lessor estimates it. Pure: no I/O
 * and no clock; `now` is always passed in (STYLE.md rule 1).
 *
 * The estimate is a list of segments, each a stretch of time billed at one rate: the machine's
 * hourly rate while it boots, runs or is being stopped, its disk rate while it is stopped (where
 * stopping does not end billing). A segment opens and closes on the lease's transitions, so the
 * estimate is updated on every transition and is exact between them. It is only ever an estimate:
 * what a lease actually cost comes from the provider's own billing records (reconcile.ts).
 */
import { HOUR_MS, microsFor } from "./money";

export const DAY_MS = 24 * HOUR_MS;

/**
 * A lease's billing status, beside its state (docs/design.md "Lease states"):
 * `accruing -> awaiting_windows -> settled` (or `disputed`). `none`: the lease never held a
 * machine, so nothing billed and no receipt is due.
 */
export const BILLING_STATUSES = ["accruing", "awaiting_windows", "settled", "disputed", "none"] as const;
export type BillingStatus = (typeof BILLING_STATUSES)[number];

export type AccrualKind = "running" | "stopped";

export interface Segment {
  from: number;
  /** null while the segment is open. */
  to: number | null;
  kind: AccrualKind;
  /** Micro-dollars per hour. */
  rate: number;
}

export interface LeaseBilling {
  status: BillingStatus;
  segments: Segment[];
  /** Set when the lease settles: the receipt and its actual amount (micro-dollars). */
  receipt_id: string | null;
  actual_micro_usd: number | null;
}

export function newBilling(): LeaseBilling {
  return { status: "accruing", segments: [], receipt_id: null, actual_micro_usd: null };
}

/**
 * Moves the accrual to bill `kind` at `rate` from `now` on (null or a zero rate: nothing bills).
 * The open segment is closed when what bills changes; a stretch that continues the one that just
 * closed at the same rate reopens it, so the list grows only when the rate really changes.
 */
export function accrue(segments: readonly Segment[], kind: AccrualKind | null, rate: number, now: number): Segment[] {
  const want = kind !== null && rate > 0 ? { kind, rate } : null;
  const last = segments.at(-1);
  const open = last && last.to === null ? last : null;
  if (open && want && open.kind === want.kind && open.rate === want.rate) return segments as Segment[];
  if (!open && !want) return segments as Segment[];
  const out = segments.slice();
  if (open) {
    if (now > open.from) out[out.length - 1] = { ...open, to: Math.max(now, open.from) };
    else out.pop(); // nothing billed in it
  }
  if (want) {
    const prev = out.at(-1);
    if (prev && prev.to === now && prev.kind === want.kind && prev.rate === want.rate) out[out.length - 1] = { ...prev, to: null };
    else out.push({ from: now, to: null, ...want });
  }
  return out;
}

export interface Estimate {
  /** Micro-dollars. */
  total: number;
  running: number;
  stopped: number;
  running_ms: number;
  stopped_ms: number;
}

/** The estimate of the segments over [from, to), counting an open segment up to `now`. */
export function estimateOf(segments: readonly Segment[], now: number, from = -Infinity, to = Infinity): Estimate {
  const e: Estimate = { total: 0, running: 0, stopped: 0, running_ms: 0, stopped_ms: 0 };
  for (const s of segments) {
    const a = Math.max(s.from, from);
    const b = Math.min(s.to ?? now, now, to);
    if (b <= a) continue;
    const micros = microsFor(b - a, s.rate);
    e.total += micros;
    e[s.kind] += micros;
    e[s.kind === "running" ? "running_ms" : "stopped_ms"] += b - a;
  }
  return e;
}

/** When the lease first billed, or null when it never has. */
export function billedFrom(segments: readonly Segment[]): number | null {
  return segments[0]?.from ?? null;
}

/**
 * The moment the estimate of the session that began at `sessionStart` reaches `capMicros`: the
 * deadline of `max_session_usd` (guarantee 4: a hard cap), so that the alarm fires on time rather
 * than when someone looks. null when nothing is accruing (the estimate cannot grow).
 */
export function sessionBudgetDeadline(segments: readonly Segment[], sessionStart: number, capMicros: number): number | null {
  const last = segments.at(-1);
  if (!last || last.to !== null) return null;
  let spent = 0;
  for (const s of segments) {
    if (s.to === null) break;
    spent += microsFor(s.to - Math.max(s.from, sessionStart), s.rate);
  }
  const openFrom = Math.max(last.from, sessionStart);
  const left = capMicros - spent;
  if (left <= 0) return openFrom;
  return openFrom + Math.ceil((left * HOUR_MS) / last.rate);
}

/** The estimate split by UTC day: day start (ms) -> micro-dollars, over [from, to) up to `now`. */
export function estimateByDay(segments: readonly Segment[], now: number, from: number, to: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const s of segments) {
    const a0 = Math.max(s.from, from);
    const b = Math.min(s.to ?? now, now, to);
    for (let a = a0; a < b; ) {
      const day = Math.floor(a / DAY_MS) * DAY_MS;
      const end = Math.min(b, day + DAY_MS);
      out.set(day, (out.get(day) ?? 0) + microsFor(end - a, s.rate));
      a = end;
    }
  }
  return out;
}

