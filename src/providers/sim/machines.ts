/**
 * The simulated cloud's machines, as pure functions: what status a machine is in at a time, what
 * a stop, start or destroy does to it, and what it bills per closed hour. No I/O and no clock:
 * `now` is always passed in (STYLE.md rule 1). The SimCloud object (cloud.ts) stores the state
 * and the intervals these functions produce.
 *
 * The sim speaks its own, RunPod-like words (provider-contracts/README.md): PROVISIONING ->
 * STARTING -> RUNNING, EXITED (stopped, disk kept and billed), ERROR (boot failed, disk billed
 * until destroyed), TERMINATED. It knows nothing of lessor's label format.
 */

export const SIM_STATUSES = ["PROVISIONING", "STARTING", "RUNNING", "EXITED", "TERMINATED", "ERROR"] as const;
export type SimStatus = (typeof SIM_STATUSES)[number];
/** Every status a machine can spend time in; TERMINATED ends its life instead. */
export type SimAliveStatus = Exclude<SimStatus, "TERMINATED">;

/** A stopped (or failed) machine keeps its disk, billed at this fraction of the running price. */
export const SIM_DISK_PRICE_FRACTION = 0.1;
export const HOUR_MS = 3_600_000;

/** What the cloud remembers about a machine's clock; everything else about it is static. */
export interface SimMachineClock {
  /** The status last persisted, entered at `since`. */
  status: SimStatus;
  since: number;
  /** How long PROVISIONING lasts after create (fixed at create). */
  provision_ms: number;
  /** How long STARTING lasts (fixed at create, and again at each start). */
  boot_ms: number;
  /** Whether the boot in progress (or next) ends in ERROR instead of RUNNING. */
  boot_fails: boolean;
  /** Set at create when the machine is doomed: it vanishes this long after it first runs. */
  vanish_after_ms: number | null;
  /** When it vanishes; fixed the first time it reaches RUNNING. */
  vanish_at: number | null;
  destroyed_at: number | null;
  vanished: boolean;
  /**
   * Set at create for a machine of an interruptible (spot) offer that the `preempt_rate` fault
   * dooms: it is taken back this long after it first runs. Absent: never.
   */
  preempt_after_ms?: number | null;
  /** When it is taken back; fixed the first time it reaches RUNNING. Absent: never. */
  preempt_at?: number | null;
  /**
   * Taken back by the cloud (a spot machine preempted: `preempt`, or the fault): stopped, its disk
   * kept (and billed) until destroyed, and never started again (docs/sim.md "Spot").
   */
  interrupted?: boolean;
}

/** One status change, at the exact time it happened (which may be before it was observed). */
export interface SimTransition {
  status: SimStatus;
  at: number;
}

export interface Advanced {
  clock: SimMachineClock;
  transitions: SimTransition[];
}

/**
 * Rolls a machine's clock forward to `now`: every transition that the passage of time alone
 * causes (provisioning done, boot done or failed, vanished), each at the time it happened.
 */
export function advance(clock: SimMachineClock, now: number): Advanced {
  let c = clock;
  const transitions: SimTransition[] = [];
  for (;;) {
    if (c.status === "TERMINATED") break;
    let next: { at: number; status: SimStatus } | null = null;
    if (c.status === "PROVISIONING") next = { at: c.since + c.provision_ms, status: "STARTING" };
    else if (c.status === "STARTING") next = { at: c.since + c.boot_ms, status: c.boot_fails ? "ERROR" : "RUNNING" };
    // A doomed machine vanishes at its time whatever it is doing then: the host is gone.
    if (c.vanish_at !== null && c.vanish_at <= now && (next === null || c.vanish_at <= next.at)) {
      const at = Math.max(c.vanish_at, c.since);
      c = { ...c, status: "TERMINATED", since: at, destroyed_at: at, vanished: true };
      transitions.push({ status: "TERMINATED", at });
      break;
    }
    // A spot machine the fault dooms is taken back at its time while it runs (or boots again).
    const takeBack = c.preempt_at ?? null;
    if (takeBack !== null && takeBack <= now && (next === null || takeBack <= next.at) && (c.status === "RUNNING" || c.status === "STARTING")) {
      const at = Math.max(takeBack, c.since);
      c = { ...c, status: "EXITED", since: at, interrupted: true, preempt_at: null };
      transitions.push({ status: "EXITED", at });
      continue;
    }
    if (next === null || next.at > now) break;
    c = { ...c, status: next.status, since: next.at };
    if (next.status === "RUNNING" && c.vanish_after_ms !== null && c.vanish_at === null) {
      c.vanish_at = next.at + c.vanish_after_ms;
    }
    if (next.status === "RUNNING" && (c.preempt_after_ms ?? null) !== null && (c.preempt_at ?? null) === null && !c.interrupted) {
      c.preempt_at = next.at + c.preempt_after_ms!;
    }
    transitions.push(next);
  }
  return { clock: c, transitions };
}

export type ActionResult = ({ ok: true } & Advanced) | { ok: false; status: SimStatus };

/** Stop: only a RUNNING machine stops, and at once (EXITED keeps its disk). A take-back due later no longer comes. */
export function stop(clock: SimMachineClock, now: number): ActionResult {
  const seen = advance(clock, now);
  if (seen.clock.status !== "RUNNING") return { ok: false, status: seen.clock.status };
  const c: SimMachineClock = { ...seen.clock, status: "EXITED", since: now, preempt_at: null, preempt_after_ms: null };
  return { ok: true, clock: c, transitions: [...seen.transitions, { status: "EXITED", at: now }] };
}

/** Start: only an EXITED machine starts, never one taken back; it boots again for `bootMs` and may fail to. */
export function start(clock: SimMachineClock, now: number, bootMs: number, bootFails: boolean): ActionResult {
  const seen = advance(clock, now);
  if (seen.clock.status !== "EXITED" || seen.clock.interrupted) return { ok: false, status: seen.clock.status };
  const c: SimMachineClock = { ...seen.clock, status: "STARTING", since: now, boot_ms: bootMs, boot_fails: bootFails };
  return { ok: true, clock: c, transitions: [...seen.transitions, { status: "STARTING", at: now }] };
}

/**
 * Preempt: the cloud takes a spot machine back (`interruptible`: its offer's), whatever lessor
 * asked: it stops at once, keeping its disk, and never starts again. Only a machine that runs or is
 * on its way to (PROVISIONING, STARTING, RUNNING) is taken back; another, or one not of a spot
 * offer, is refused with its status.
 */
export function preempt(clock: SimMachineClock, interruptible: boolean, now: number): ActionResult {
  const seen = advance(clock, now);
  const status = seen.clock.status;
  if (!interruptible || !(status === "PROVISIONING" || status === "STARTING" || status === "RUNNING")) return { ok: false, status };
  const c: SimMachineClock = { ...seen.clock, status: "EXITED", since: now, interrupted: true, preempt_at: null };
  return { ok: true, clock: c, transitions: [...seen.transitions, { status: "EXITED", at: now }] };
}

/** Destroy: from any status; destroying a TERMINATED machine changes nothing (idempotent). */
export function destroy(clock: SimMachineClock, now: number): Advanced {
  const seen = advance(clock, now);
  if (seen.clock.status === "TERMINATED") return seen;
  const c: SimMachineClock = { ...seen.clock, status: "TERMINATED", since: now, destroyed_at: now };
  return { clock: c, transitions: [...seen.transitions, { status: "TERMINATED", at: now }] };
}

/** A fresh machine's clock. */
export function created(
  now: number,
  opts: { provision_ms: number; boot_ms: number; boot_fails: boolean; vanish_after_ms: number | null; preempt_after_ms?: number | null },
): SimMachineClock {
  return { status: "PROVISIONING", since: now, ...opts, vanish_at: null, destroyed_at: null, vanished: false };
}

/** One stretch of time a machine spent in one status; `to` is null while it is still in it. */
export interface SimInterval {
  status: SimAliveStatus;
  from: number;
  to: number | null;
}

/**
 * Appends transitions to a machine's intervals: the open interval closes when the next status
 * begins. Zero-length stretches (a delay of 0 ms) are left out, so the ledger has only time spent.
 */
export function applyTransitions(intervals: readonly SimInterval[], transitions: readonly SimTransition[]): SimInterval[] {
  const out = intervals.map((i) => ({ ...i }));
  for (const t of transitions) {
    const open = out.at(-1);
    if (open && open.to === null) {
      open.to = t.at;
      if (open.to === open.from) out.pop();
    }
    if (t.status !== "TERMINATED") out.push({ status: t.status, from: t.at, to: null });
  }
  return out;
}

/** How a status bills: the GPU is held from STARTING on; a stopped or failed machine keeps its disk. */
export function billingClass(status: SimAliveStatus): "running" | "stopped" | null {
  switch (status) {
    case "STARTING":
    case "RUNNING":
      return "running";
    case "EXITED":
    case "ERROR":
      return "stopped";
    case "PROVISIONING":
      return null;
  }
}

export interface SimBillable {
  id: string;
  label: string;
  price_per_hour: number;
  disk_price_per_hour: number;
  intervals: readonly SimInterval[];
}

/** One machine's bill for one closed clock hour (provider-authoritative, like RunPod's hourly buckets). */
export interface SimBillingRecord {
  /** Deterministic: `<machine id>:<window start ms>`; the same record answers the same id every time. */
  record_id: string;
  machine_id: string;
  label: string;
  window_start: number;
  window_end: number;
  running_seconds: number;
  stopped_seconds: number;
  amount_usd: number;
}

/** What a sim volume bills a GB a month (docs/sim.md "Volumes"). */
export const SIM_VOLUME_USD_PER_GB_MONTH = 0.1;
/** The hours a GB-month price is spread over (365 * 24 / 12). */
const VOLUME_MONTH_MS = 730 * HOUR_MS;

/** A volume's storage in one billing window, as the sim's billing answers it (`volume_records`). */
export interface SimVolumeBillingRecord {
  /** Deterministic: `volume:<volume id>:<window start ms>`. */
  record_id: string;
  volume_id: string;
  label: string;
  window_start: number;
  window_end: number;
  /** Gigabyte-seconds stored in the window. */
  gb_seconds: number;
  amount_usd: number;
}

/** A volume as the sim bills it: its size and price from its creation to its deletion. */
export interface SimBillableVolume {
  id: string;
  label: string;
  size_gb: number;
  price_per_gb_month: number;
  created_at: number;
  deleted_at: number | null;
}

/**
 * Volume storage by window, as `hourlyBilling` bills machines: a volume bills its size at its
 * price from its creation to its deletion, mounted or not, in every window that has closed and
 * been published by `now` and overlaps [from, to); with any markup.
 */
export function volumeBilling(volumes: readonly SimBillableVolume[], from: number, to: number, now: number, opts: SimBillingOptions = {}): SimVolumeBillingRecord[] {
  const W = opts.window_ms ?? HOUR_MS;
  const published = billingCompleteThrough(now, opts);
  const factor = 1 + (opts.markup ?? 0);
  const records: SimVolumeBillingRecord[] = [];
  for (const v of volumes) {
    const end = Math.min(v.deleted_at ?? now, now);
    for (let a = v.created_at; a < end; ) {
      const windowStart = Math.floor(a / W) * W;
      const windowEnd = windowStart + W;
      const b = Math.min(end, windowEnd);
      if (windowEnd <= published && windowEnd > from && windowStart < to) {
        records.push({
          record_id: `volume:${v.id}:${windowStart}`,
          volume_id: v.id,
          label: v.label,
          window_start: windowStart,
          window_end: windowEnd,
          gb_seconds: (v.size_gb * (b - a)) / 1000,
          amount_usd: round6((v.size_gb * v.price_per_gb_month * (b - a) * factor) / VOLUME_MONTH_MS),
        });
      }
      a = b;
    }
  }
  return records.sort((x, y) => x.window_start - y.window_start || (x.volume_id < y.volume_id ? -1 : x.volume_id > y.volume_id ? 1 : 0));
}

export const round4 = (x: number) => Math.round(x * 10_000) / 10_000;
const round6 = (x: number) => Math.round(x * 1_000_000) / 1_000_000;

export function diskPrice(pricePerHour: number): number {
  return round4(pricePerHour * SIM_DISK_PRICE_FRACTION);
}

/** How the sim bills: its window length, its publishing lag, and any overcharge (faults.ts). */
export interface SimBillingOptions {
  /** Default an hour. */
  window_ms?: number;
  /** How long after a window closes its records appear; default 0. */
  delay_ms?: number;
  /** Records charge (1 + markup) times the price; default 0. */
  markup?: number;
}

/** The end of the last window whose records are published by `now`: every record up to it is final. */
export function billingCompleteThrough(now: number, opts: SimBillingOptions = {}): number {
  const w = opts.window_ms ?? HOUR_MS;
  return Math.floor((now - (opts.delay_ms ?? 0)) / w) * w;
}

/**
 * Hourly records for clock hours that have closed by `now` (window_end <= now) and overlap
 * [from, to). A window in which a machine billed nothing has no record. Amounts are in dollars,
 * rounded to a millionth; seconds keep millisecond precision. With `opts`, windows last
 * `window_ms` (aligned to multiples of it since the epoch), appear only once published
 * (`billingCompleteThrough`), and carry any markup; prices are always per real hour.
 */
export function hourlyBilling(
  machines: readonly SimBillable[],
  from: number,
  to: number,
  now: number,
  opts: SimBillingOptions = {},
): SimBillingRecord[] {
  const W = opts.window_ms ?? HOUR_MS;
  const published = billingCompleteThrough(now, opts);
  const factor = 1 + (opts.markup ?? 0);
  const records: SimBillingRecord[] = [];
  for (const m of machines) {
    const windows = new Map<number, { running: number; stopped: number }>();
    for (const i of m.intervals) {
      const kind = billingClass(i.status);
      if (kind === null) continue;
      const end = Math.min(i.to ?? now, now);
      for (let a = i.from; a < end; ) {
        const windowStart = Math.floor(a / W) * W;
        const b = Math.min(end, windowStart + W);
        const w = windows.get(windowStart) ?? { running: 0, stopped: 0 };
        w[kind] += b - a;
        windows.set(windowStart, w);
        a = b;
      }
    }
    for (const [windowStart, w] of windows) {
      const windowEnd = windowStart + W;
      if (windowEnd > published || windowEnd <= from || windowStart >= to) continue;
      if (w.running + w.stopped === 0) continue;
      records.push({
        record_id: `${m.id}:${windowStart}`,
        machine_id: m.id,
        label: m.label,
        window_start: windowStart,
        window_end: windowEnd,
        running_seconds: w.running / 1000,
        stopped_seconds: w.stopped / 1000,
        amount_usd: round6(((w.running * m.price_per_hour + w.stopped * m.disk_price_per_hour) * factor) / HOUR_MS),
      });
    }
  }
  return records.sort((x, y) => x.window_start - y.window_start || (x.machine_id < y.machine_id ? -1 : x.machine_id > y.machine_id ? 1 : 0));
}

/** A machine as the sim's API answers it (provider-shaped, not lessor-shaped). */
export interface SimMachineJson {
  id: string;
  label: string;
  status: SimStatus;
  offer_id: string;
  host_id: string;
  region: string;
  gpu_name: string;
  num_gpus: number;
  /** Billed per hour from STARTING through RUNNING. */
  price_per_hour: number;
  /** Billed per hour while EXITED or ERROR (the disk is kept). */
  disk_price_per_hour: number;
  image: string | null;
  cmd: string | null;
  /** The TCP ports the machine serves (its create's `ports`); MODEL_PORT is its model server's. */
  ports: number[];
  created_at: number;
  /** When it entered `status`. */
  status_since: number;
  destroyed_at: number | null;
  /** Taken back by the cloud (a spot machine preempted): EXITED for good, until destroyed. */
  interrupted: boolean;
}

/** One machine's whole life, for tests and benchmarks to count machine-seconds from. */
export interface SimLedgerMachine {
  id: string;
  label: string;
  offer_id: string;
  price_per_hour: number;
  disk_price_per_hour: number;
  status: SimStatus;
  created_at: number;
  destroyed_at: number | null;
  /** Terminated by the cloud itself (vanish fault), not by a call. */
  vanished: boolean;
  /** Taken back by the cloud (a spot machine preempted), not stopped by a call. */
  interrupted: boolean;
  /** Milliseconds from create to destroy (or to `now` while alive). */
  alive_ms: number;
  intervals: SimInterval[];
  /** Calls on this machine the sim refused with an injected fault, oldest first. */
  refusals: SimRefusal[];
  /** The volumes it mounts (their ids). */
  volumes: string[];
}

/** One volume's life (docs/sim.md "Volumes"). */
export interface SimLedgerVolume {
  id: string;
  label: string;
  region: string;
  size_gb: number;
  created_at: number;
  deleted_at: number | null;
}

/** A call the sim refused (injected 503, or 429 with the Retry-After it imposed). */
export interface SimRefusal {
  at: number;
  status: 429 | 503;
  retry_after_ms: number | null;
}

export interface SimLedger {
  now: number;
  machines: SimLedgerMachine[];
  /** Volumes whose label starts with the prefix asked, deleted ones included. */
  volumes: SimLedgerVolume[];
}

/**
 * The most of these machines alive at one instant (guarantee 1, counted from the ledger). At the
 * same millisecond a destroy counts before a create: replacing a host destroys first.
 */
export function maxAliveAtOnce(machines: ReadonlyArray<{ created_at: number; destroyed_at: number | null }>, now: number): number {
  const points: Array<[number, number]> = [];
  for (const m of machines) {
    points.push([m.created_at, 1]);
    points.push([m.destroyed_at ?? now, -1]);
  }
  points.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let alive = 0;
  let max = 0;
  for (const [, d] of points) max = Math.max(max, (alive += d));
  return max;
}
