/**
 * A lease's worst-case cost, by the month it would accrue in (docs/design.md "Money 1"). Pure: no I/O,
 * no clock (STYLE.md rule 1).
 *
 * The worst case of a lease at a moment is what it has accrued so far (its accrual's segments)
 * plus what it could still bill: its rate from now until its hard end, the earlier of its ttl
 * deadline (plus the wait a ttl release may hold the machine for the command's outputs) and its
 * session's start plus `max_lifetime`. Neither cap: no ceiling (`unbounded`).
 * Beside the compute, it holds what the machine's kept disk may bill while stopped
 * (`stoppedDiskMicros`: the offer's stopped rate for up to `stopped_ttl`), counted in the month the
 * reservation is made; a stopped disk that bills with no `stopped_ttl` to end it is no ceiling
 * either. And what replacing failed hosts may bill beyond the compute (`retriesMicros`), in the
 * same month.
 * Both parts are split at UTC month boundaries, so a lease that spans a month boundary counts
 * each part in the month it accrues in (budget.ts writes one reservation row per month).
 *
 * Every action that can raise this (admission, `extend`, `start`, renting a fallback or a
 * replacement host) asks for `worstCase()` with what the action changes, and re-reserves only
 * when the answer does not fit in what is already reserved (`fitsIn`).
 */
import { estimateOf, type Segment } from "./accrual";
import { microsFor, usdToMicros } from "./money";

/** What a lease holds against its org's caps: its rate, and its worst case per UTC month. */
export interface Reservation {
  /** Micro-dollars an hour, counted against the concurrent hourly cap while the lease is live. */
  hourly_micro_usd: number;
  /** True when nothing caps how long it may bill (no ttl, no max_lifetime). */
  unbounded: boolean;
  /** 'YYYY-MM' -> micro-dollars. Never empty. */
  months: Record<string, number>;
}

export interface WorstCaseInput {
  /** What the lease has accrued so far. */
  segments: readonly Segment[];
  /** The rate it would bill at from now on. */
  hourly_usd: number;
  ttl_deadline: number | null;
  max_lifetime: number | null;
  /** The start of the session it would run in from now on; null: no session runs (stopped). */
  session_start: number | null;
  /** What its disk may bill while stopped (`stoppedDiskMicros`); null: nothing ends it. Absent: nothing. */
  stopped_disk_micro_usd?: number | null;
  /** What replacing failed hosts may add (`retriesMicros`). Absent: nothing. */
  retries_micro_usd?: number;
  /**
   * How long a release at the ttl may keep billing while it waits for the command's outputs
   * (policy.ts `outputsWaitMs`): the ttl's hard end moves this much later. A `max_lifetime`
   * release never waits. Absent: nothing.
   */
  outputs_wait_ms?: number;
}

/**
 * How long after a failed boot's deadline its host may still bill: the alarm acts within a second
 * (guarantee 5), then one provider call destroys it and another confirms it gone (guarantee 1);
 * and before the boot's clock starts, the create call itself was in flight. A minute bounds these.
 */
export const REPLACE_LAG_MS = 60_000;

export interface RetriesInput {
  /** The policy's `host_attempts`: at most this many hosts, so at most one fewer replaced. */
  host_attempts: number;
  /** The policy's `boot_timeout`: how long lessor lets a host boot before it replaces it. */
  boot_timeout: number;
  /**
   * What ends the lease (`cappedDurationMs`): `ttl` runs from the lease's creation whatever hosts
   * come and go; `max_lifetime` (or nothing) counts per session, and a replacement host's create
   * begins a new one.
   */
  basis: "ttl" | "max_lifetime" | null;
  /** The least one machine bills for at the offer's provider, ms (registry.ts `billingIncrementMs`). */
  increment_ms: number;
  hourly_usd: number;
  /**
   * Restarts a job that recovers may still make after losing its machine (docs/leases.md
   * "Recovery"). Each tries hosts of its own, and under `max_lifetime` begins a new session of
   * `session_ms`. Absent: none.
   */
  restarts?: number;
  /** The policy's `max_lifetime`, the session a restart begins under that basis. */
  session_ms?: number | null;
}

/**
 * What replacing failed hosts may bill beyond the compute part, in micro-dollars
 * (docs/design.md "The worst case"): for each of up to `host_attempts - 1` replaced hosts,
 * - under a ttl, only its rounding up to one billing increment: hosts bill one after another
 *   (guarantee 1) inside the ttl's hours, which the compute part already pays for;
 * - under max_lifetime, the replacement's new session gets a whole max_lifetime of its own, so
 *   the failed host's boot is extra: `boot_timeout` and `REPLACE_LAG_MS`, rounded up to the increment.
 */
export function retriesMicros(input: RetriesInput): number {
  const restarts = Math.max(0, input.restarts ?? 0);
  // Every attempt of a job (the first and each restart) may replace hosts of its own.
  const replaced = Math.max(0, input.host_attempts - 1) * (1 + restarts);
  const inc = Math.max(1, input.increment_ms);
  const perHost = input.basis === "ttl" ? inc : Math.ceil((input.boot_timeout + REPLACE_LAG_MS) / inc) * inc;
  // A restart under a ttl bills inside the ttl's hours (one machine at a time, guarantee 1), but
  // for its rounding; under max_lifetime it is a new session with a whole max_lifetime of its own.
  const perRestart = input.basis === "ttl" ? inc : input.basis === "max_lifetime" && input.session_ms ? Math.ceil(input.session_ms / inc) * inc : 0;
  const rate = usdToMicros(input.hourly_usd);
  return replaced * microsFor(perHost, rate) + restarts * microsFor(perRestart, rate);
}

/**
 * What a machine may bill while stopped, in micro-dollars: its offer's stopped rate (absent: a
 * stop ends its billing) for up to `stopped_ttl`. null: it bills while stopped and no stopped_ttl
 * ends it, so nothing bounds it.
 */
export function stoppedDiskMicros(stoppedHourlyUsd: number | undefined, stoppedTtl: number | null): number | null {
  const rate = usdToMicros(stoppedHourlyUsd ?? 0);
  if (rate === 0) return 0;
  return stoppedTtl === null ? null : microsFor(stoppedTtl, rate);
}

export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

/** The first instant of the UTC month after the one `ms` falls in. */
function nextMonthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

function add(months: Record<string, number>, month: string, micros: number) {
  months[month] = (months[month] ?? 0) + micros;
}

/** The hard end of a session that began at `sessionStart`: null when nothing caps it. */
export function hardEnd(input: Pick<WorstCaseInput, "ttl_deadline" | "max_lifetime" | "outputs_wait_ms">, sessionStart: number): number | null {
  const ttlEnd = input.ttl_deadline === null ? null : input.ttl_deadline + (input.outputs_wait_ms ?? 0);
  const ends = [ttlEnd, input.max_lifetime === null ? null : sessionStart + input.max_lifetime].filter((x): x is number => x !== null);
  return ends.length === 0 ? null : Math.min(...ends);
}

export function worstCase(input: WorstCaseInput, now: number): Reservation {
  const months: Record<string, number> = {};
  // What has accrued, month by month.
  const first = input.segments[0]?.from;
  if (first !== undefined) {
    for (let a = first; a < now; a = nextMonthStart(a)) {
      const e = estimateOf(input.segments, now, a, nextMonthStart(a));
      if (e.total > 0) add(months, monthOf(a), e.total);
    }
  }
  const stopped = input.stopped_disk_micro_usd === undefined ? 0 : input.stopped_disk_micro_usd;
  add(months, monthOf(now), (stopped ?? 0) + (input.retries_micro_usd ?? 0));
  let unbounded = stopped === null;
  if (input.session_start !== null) {
    const end = hardEnd(input, input.session_start);
    if (end === null) unbounded = true;
    else {
      const rate = usdToMicros(input.hourly_usd);
      for (let a = now; a < end; a = nextMonthStart(a)) add(months, monthOf(a), microsFor(Math.min(end, nextMonthStart(a)) - a, rate));
    }
  }
  return { hourly_micro_usd: usdToMicros(input.hourly_usd), unbounded, months };
}

/** Each part of a worst case is rounded to the micro-dollar: a few of them are not an increase. */
const ROUNDING_MICROS = 10;

/** Whether `need` is covered by what is reserved: no higher rate, no month asking for more. */
export function fitsIn(need: Reservation, reserved: Reservation | null): boolean {
  if (!reserved) return false;
  if (need.unbounded && !reserved.unbounded) return false;
  if (need.hourly_micro_usd > reserved.hourly_micro_usd) return false;
  return Object.entries(need.months).every(([m, micros]) => micros <= (reserved.months[m] ?? 0) + ROUNDING_MICROS);
}

/**
 * What a re-reservation writes: `need`, with every month only the old reservation held set to 0
 * (the lease can no longer cost anything there), so the rows always say what the lease may cost.
 */
export function replacing(need: Reservation, reserved: Reservation | null): Reservation {
  const months: Record<string, number> = {};
  for (const m of Object.keys(reserved?.months ?? {})) months[m] = 0;
  Object.assign(months, need.months);
  return { ...need, months };
}

/** The reservation's total over every month (what the API shows as a lease's ceiling). */
export function totalOf(r: Reservation): number {
  return Object.values(r.months).reduce((a, b) => a + b, 0);
}

/**
 * What a released lease holds: what it accrued, by month, and nothing more. The month it was
 * released in is always present, so a receipt for a lease whose estimate was zero still counts
 * somewhere (budget.ts).
 */
export function settled(segments: readonly Segment[], reserved: Reservation | null, releasedAt: number): Reservation {
  const accrued = worstCase({ segments, hourly_usd: 0, ttl_deadline: null, max_lifetime: null, session_start: null }, releasedAt);
  const months = replacing(accrued, reserved).months;
  add(months, monthOf(releasedAt), 0);
  return { hourly_micro_usd: reserved?.hourly_micro_usd ?? 0, unbounded: false, months };
}
