/**
 * The simulated cloud behind each stub provider, in memory, in Node. It is the sim cloud
 * (src/providers/sim/cloud.ts) without its Durable Object: the same pure machine model
 * (machines.ts: created/advance/stop/start/destroy, intervals, hourlyBilling), the same fault
 * knobs (faults.ts) drawn from the same stored PRNG (nextRandom) in the same order, so that a
 * machine provisions, boots, fails, vanishes and bills as a sim machine does. What it does not
 * know is how a provider speaks: each dialect (runpod.ts, vast.ts, lambda.ts) turns a request in
 * the provider's words into one call here and the outcome back into the provider's answer.
 *
 * Like the sim, it is the cloud, so it reads the clock itself (`now`, injectable for tests), and
 * a machine's status is computed lazily from its stored clock whenever it is observed, each
 * transition stored with the time it really happened.
 */
import { mergeFaults, SIM_DEFAULT_FAULTS, type SimFaults } from "../../../src/providers/sim/faults";
import {
  advance,
  applyTransitions,
  billingCompleteThrough,
  created,
  destroy,
  hourlyBilling,
  preempt,
  start,
  stop,
  type ActionResult,
  type Advanced,
  type SimBillingOptions,
  type SimBillingRecord,
  type SimInterval,
  type SimLedger,
  type SimLedgerMachine,
  type SimMachineClock,
  type SimMachineJson,
  type SimStatus,
} from "../../../src/providers/sim/machines";
import { nextRandom } from "../../../src/random";

/**
 * What a machine is rented from: the dialect resolves a create request to one of these. Its fields
 * mean what they mean on a sim machine (`offer_id` as the adapter names the offer; the disk price
 * is what the provider charges for a kept disk).
 */
export type CoreOffer = Pick<SimMachineJson, "offer_id" | "host_id" | "region" | "gpu_name" | "num_gpus" | "price_per_hour" | "disk_price_per_hour">;

export interface CoreMachine<X = unknown> {
  readonly id: string;
  readonly label: string;
  readonly offer: CoreOffer;
  readonly image: string | null;
  readonly cmd: string | null;
  /** What else the dialect must echo back (RunPod's `disk`, Lambda's `ssh_key_names`). */
  readonly extra: X;
  readonly created_at: number;
  clock: SimMachineClock;
  intervals: SimInterval[];
}

/** What the gate lets through: the call, or an injected refusal in place of it. */
export type Gate = { kind: "pass"; faults: SimFaults } | { kind: "unavailable" } | { kind: "rate_limited"; retry_after_s: number };

/** How an ambiguous create reaches the caller: a gateway's 502 or 504, or no answer at all. */
export type AmbiguousAnswer = 502 | 504 | "cut";

export type CreateOutcome<X> =
  | { kind: "created"; machine: CoreMachine<X> }
  /** The machine exists; the answer says nothing useful (guarantee 2 is what this exercises). */
  | { kind: "ambiguous"; machine: CoreMachine<X>; answer: AmbiguousAnswer }
  | { kind: "no_capacity" };

export type ActOutcome<X> = { kind: "done"; machine: CoreMachine<X> } | { kind: "not_found" } | { kind: "invalid_state"; machine: CoreMachine<X>; status: SimStatus };

export interface CreateInput<X> {
  label: string;
  offer: CoreOffer;
  image?: string | null;
  cmd?: string | null;
  extra: X;
}

/** The sim's `GET /v1/billing` answer. */
export interface SimBillingAnswer {
  now: number;
  /** Every record of every window ending at or before this is published and final. */
  complete_through: number;
  window_ms: number;
  records: SimBillingRecord[];
}

export interface StubCloudCoreOptions {
  /** The provider's id for machine number `seq` (RunPod strings, Vast integers, Lambda hex). */
  machineId: (seq: number) => string;
  now?: () => number;
}

/** At most this many Retry-After promises are remembered (the sim's bound). */
const MAX_PROMISES = 10_000;

/** `X`: what each dialect keeps about a machine beyond the sim's fields. */
export class StubCloudCore<X = unknown> {
  readonly #machines = new Map<string, CoreMachine<X>>();
  readonly #machineId: (seq: number) => string;
  readonly now: () => number;
  #faults: SimFaults = { ...SIM_DEFAULT_FAULTS };
  #rng: number = SIM_DEFAULT_FAULTS.seed;
  /**
   * Never reset: a lease left over from an earlier test may still hold an old machine id, and
   * must find that machine gone, never a new machine that reuses its id.
   */
  #seq = 0;
  /** As the sim's #promised: when each target was told it may call again by an injected 429. */
  readonly #promised = new Map<string, number>();

  constructor(options: StubCloudCoreOptions) {
    this.#machineId = options.machineId;
    this.now = options.now ?? Date.now;
  }

  // --- faults and the PRNG (as the sim's #gate, #chance, #rand) -------------------------------

  get faults(): SimFaults {
    return { ...this.#faults };
  }

  /** A partial update, validated by the sim's own schema; a `seed` given restarts the sequence. */
  setFaults(patch: unknown): { ok: true; faults: SimFaults } | { ok: false; message: string } {
    const merged = mergeFaults(this.#faults, patch);
    if (!merged.ok) return merged;
    this.#faults = merged.faults;
    if (typeof patch === "object" && patch !== null && "seed" in patch) this.#rng = merged.faults.seed;
    return merged;
  }

  /** Forgets every machine and every promise, and restores the default faults. */
  reset(): void {
    this.#machines.clear();
    this.#promised.clear();
    this.#faults = { ...SIM_DEFAULT_FAULTS };
    this.#rng = SIM_DEFAULT_FAULTS.seed;
  }

  /**
   * An injected 5xx or 429 instead of the call on `target` (nothing is done), or the faults in
   * force. A call that waited out the Retry-After it was promised is not rate-limited again: a
   * real limiter's Retry-After is a promise, and a caller that honours it gets through. Where a
   * provider sends no Retry-After (Vast, Lambda), the promise still holds after `retry_after_s`.
   */
  gate(target: string): Gate {
    const faults = this.#faults;
    if (this.#chance(faults.api_error_rate)) return { kind: "unavailable" };
    const now = this.now();
    const promised = this.#promised.get(target);
    if (promised !== undefined && now >= promised) {
      this.#promised.delete(target);
      return { kind: "pass", faults };
    }
    if (this.#chance(faults.rate_limit_rate)) {
      if (this.#promised.size > MAX_PROMISES) this.#promised.clear();
      this.#promised.set(target, now + faults.retry_after_s * 1000);
      return { kind: "rate_limited", retry_after_s: faults.retry_after_s };
    }
    return { kind: "pass", faults };
  }

  #rand(): number {
    const [value, next] = nextRandom(this.#rng);
    this.#rng = next;
    return value;
  }

  /** True with probability `rate`; draws nothing when the rate is 0, so unused faults do not shift the sequence. */
  #chance(rate: number): boolean {
    return rate > 0 && this.#rand() < rate;
  }

  // --- machines -------------------------------------------------------------------------------

  /**
   * A create that passed the gate and whose offer the dialect found: draws no_capacity, then the
   * machine's fate (boot failure, vanishing), then whether the answer is lost, in the sim's order.
   */
  create(input: CreateInput<X>): CreateOutcome<X> {
    const faults = this.#faults;
    if (this.#chance(faults.no_capacity_rate)) return { kind: "no_capacity" };
    const now = this.now();
    const bootFails = this.#chance(faults.boot_failure_rate);
    const doomed = this.#chance(faults.vanish_rate);
    const vanishAfter = doomed ? Math.round(faults.vanish_min_ms + this.#rand() * (faults.vanish_max_ms - faults.vanish_min_ms)) : null;
    const clock = created(now, { provision_ms: faults.provision_delay_ms, boot_ms: faults.boot_delay_ms, boot_fails: bootFails, vanish_after_ms: vanishAfter });
    const machine: CoreMachine<X> = {
      id: this.#machineId(++this.#seq),
      label: input.label,
      offer: input.offer,
      image: input.image ?? null,
      cmd: input.cmd ?? null,
      extra: input.extra,
      created_at: now,
      clock,
      intervals: [],
    };
    this.#machines.set(machine.id, machine);
    this.#apply(machine, advance(clock, now), [{ status: "PROVISIONING", at: now }]);
    if (this.#chance(faults.ambiguous_create_rate)) {
      // The sim answers 502 or 504; over real HTTP the connection can also just drop.
      const r = this.#rand();
      return { kind: "ambiguous", machine, answer: r < 1 / 3 ? 502 : r < 2 / 3 ? 504 : "cut" };
    }
    return { kind: "created", machine };
  }

  /** The machine as it is now, TERMINATED ones included; undefined when it never existed. */
  get(id: string): CoreMachine<X> | undefined {
    const m = this.#machines.get(id);
    return m && this.#observe(m, this.now());
  }

  /** Every machine not TERMINATED whose label starts with `prefix`, oldest first. */
  list(prefix = ""): CoreMachine<X>[] {
    const now = this.now();
    return [...this.#machines.values()]
      .filter((m) => m.label.startsWith(prefix))
      .map((m) => this.#observe(m, now))
      .filter((m) => m.clock.status !== "TERMINATED")
      .sort(byAge);
  }

  stop(id: string): ActOutcome<X> {
    return this.#act(id, (clock, now) => stop(clock, now));
  }

  /** A start boots again for boot_delay_ms and may fail to (boot_failure_rate), as the sim's. */
  start(id: string): ActOutcome<X> {
    return this.#act(id, (clock, now) => start(clock, now, this.#faults.boot_delay_ms, this.#chance(this.#faults.boot_failure_rate)));
  }

  /** The cloud takes a machine back (a spot machine outbid or reclaimed, docs/sim.md "Spot"): stopped for good. */
  preempt(id: string): ActOutcome<X> {
    return this.#act(id, (clock, now) => preempt(clock, true, now));
  }

  /** Idempotent: destroying a TERMINATED machine changes nothing. */
  destroy(id: string): ActOutcome<X> {
    return this.#act(id, (clock, now) => destroy(clock, now));
  }

  #act(id: string, act: (clock: SimMachineClock, now: number) => Advanced | ActionResult): ActOutcome<X> {
    const m = this.#machines.get(id);
    if (!m) return { kind: "not_found" };
    const now = this.now();
    const result = act(m.clock, now);
    if ("ok" in result && !result.ok) {
      // What time alone did is still a fact, and is stored before refusing.
      this.#observe(m, now);
      return { kind: "invalid_state", machine: m, status: result.status };
    }
    this.#apply(m, result as Advanced);
    return { kind: "done", machine: m };
  }

  /** Stores what the passage of time did to a machine. */
  #observe(m: CoreMachine<X>, now: number): CoreMachine<X> {
    const seen = advance(m.clock, now);
    if (seen.transitions.length > 0) this.#apply(m, seen);
    return m;
  }

  #apply(m: CoreMachine<X>, { clock, transitions }: Advanced, before: Advanced["transitions"] = []): void {
    m.clock = clock;
    m.intervals = applyTransitions(m.intervals, [...before, ...transitions]);
  }

  // --- ledger and billing (the sim's shapes) --------------------------------------------------

  /** Every machine whose label starts with `prefix`, with its whole life: SimLedger exactly. */
  ledger(prefix = ""): SimLedger {
    const now = this.now();
    const machines = [...this.#machines.values()]
      .map((m) => this.#observe(m, now))
      .filter((m) => m.label.startsWith(prefix))
      .sort(byAge)
      .map(
        (m): SimLedgerMachine => ({
          id: m.id,
          label: m.label,
          offer_id: m.offer.offer_id,
          price_per_hour: m.offer.price_per_hour,
          disk_price_per_hour: m.offer.disk_price_per_hour,
          status: m.clock.status,
          created_at: m.created_at,
          destroyed_at: m.clock.destroyed_at,
          vanished: m.clock.vanished,
          interrupted: m.clock.interrupted ?? false,
          alive_ms: (m.clock.destroyed_at ?? now) - m.created_at,
          refusals: [],
          intervals: m.intervals.map((i) => ({ ...i })),
          // A dialect keeps its provider's volumes itself (read through the provider's own API).
          volumes: [],
        }),
      );
    return { now, machines, volumes: [] };
  }

  /** How the cloud bills: window length, publishing delay and markup are fault settings, as the sim's. */
  get billingOptions(): Required<SimBillingOptions> {
    const f = this.#faults;
    return { window_ms: f.billing_window_ms, delay_ms: f.billing_delay_ms, markup: f.billing_markup };
  }

  /**
   * Records for closed, published windows overlapping [from, to): the sim's hourlyBilling, and
   * the sim's billing answer exactly ({now, complete_through, window_ms, records}).
   */
  billing(from = 0, to?: number): SimBillingAnswer {
    const { now, machines } = this.ledger("");
    const opts = this.billingOptions;
    return { now, complete_through: billingCompleteThrough(now, opts), window_ms: opts.window_ms, records: hourlyBilling(machines, from, to ?? now, now, opts) };
  }
}

function byAge(a: CoreMachine<unknown>, b: CoreMachine<unknown>): number {
  return a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
