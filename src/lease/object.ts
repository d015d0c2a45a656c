/**
 * The Lease Durable Object: one per lease, the lease's only writer (DESIGN.md "Shape").
 *
 * - Its SQLite storage holds the lease (state column CHECK-constrained, schema versioned) and its
 *   append-only events. Every change is written in one storage transaction, then written through
 *   to the D1 index; a failed index write is retried on the next alarm until the index matches.
 * - It keeps exactly one alarm, at the nearest deadline `decide()` returns, recomputed after every
 *   change and rescheduled in `finally` when a run fails (STYLE.md rule 7).
 * - It acts level-triggered: each run reads the machine back from the provider, asks `decide()`,
 *   and carries out one action at a time. A create whose outcome is unknown is never retried
 *   blindly: the next run lists the provider by the lease's label first (guarantee 2), and every
 *   provision and release lists by label, so a lease never keeps two machines (guarantee 1).
 */
import { installationId } from "../config";
import { DurableObject } from "cloudflare:workers";
import type { Offer } from "../catalog/offer";
import type { Spec } from "../catalog/spec";
import { database } from "../db";
import type { Env } from "../env";
import { ProviderError, type Machine, type Provider } from "../providers/contract";
import { providerCapabilities, providerWithAccount } from "../providers/registry";
import { reserveBudget, settleReservation } from "../billing/budget";
import { settled, totalOf, type Reservation } from "../billing/ceiling";
import { ApiError } from "../errors";
import { placementOf } from "./placement";
import { reservationFor } from "./rent";
import { decide, guardOf, type Decision } from "./decide";
import {
  afterHostFailed,
  beginRelease,
  createFailure,
  markReady,
  markStopped,
  observed,
  rentable,
  started,
  stopRequested,
  userAction,
  withMachine,
  type Effect,
  type Step,
  type UserAction,
} from "./transitions";
import { newBilling } from "../billing/accrual";
import { microsToUsd } from "../billing/money";
import { upgradeRecord, withBilling, type Settlement } from "./billing";
import { writeLeaseIndex } from "./index-repo";
import { latestAttempt, leasePrefix, machineLabel } from "./label";
import type { LeaseKind, Policy } from "./policy";
import { hasMachine, LEASE_STATES, machined, type MachinedLease, type LeaseRecord, type LeaseState, type Observation, type Reason } from "./state";
import { renderLease, type LeaseView } from "./view";
import { leaseEndFrame, leaseEventFrame, type LeaseEventPage } from "../events/lease-events";
import { forwardLeaseEvents } from "../events/forward";
import { Followers } from "../events/sse";

const SCHEMA_VERSION = 1;
/** At most this many actions in one run; the alarm picks up the rest. */
const MAX_STEPS = 12;
/** A failed index write is retried this soon. */
const INDEX_RETRY_MS = 1_000;
const BACKOFF_BASE_MS = 1_000;
const BACKOFF_MAX_MS = 60_000;

export interface LeaseInit {
  id: string;
  org_id: string;
  kind: LeaseKind;
  policy: Policy;
  spec: Spec | null;
  quote_id: string | null;
  offers: Offer[];
  image: string | null;
  cmd: string | null;
  /** Claimed by admission (src/lease/names.ts). */
  name?: string | null;
  warnings: string[];
  /** What admission reserved against the org's caps (src/billing/budget.ts). */
  reserved: Reservation | null;
  now: number;
}

export interface LeaseEvent {
  seq: number;
  at: string;
  type: string;
  from: LeaseState | null;
  to: LeaseState | null;
  reason: string | null;
  detail: Record<string, unknown>;
}

export type { UserAction };

export type ActResult =
  | { ok: true; lease: LeaseView }
  | { ok: false; status: 402 | 404 | 409; code: string; message: string; details: Record<string, unknown> };


export class LeaseObject extends DurableObject<Env> {
  readonly #sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    // Only an object that holds a lease has tables: a read of an id that was never created (a
    // typo, another org's guess) must not leave an object with storage behind.
    ctx.blockConcurrencyWhile(async () => {
      if (this.#hasSchema()) this.#ensureSchema();
    });
  }

  #schemaReady = false;

  #hasSchema(): boolean {
    this.#schemaReady ||= this.#sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'`).toArray().length > 0;
    return this.#schemaReady;
  }

  #ensureSchema() {
    this.#sql.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    const row = this.#sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'schema_version'`).toArray()[0];
    const version = row ? Number(row.value) : 0;
    if (version < 1) {
      const states = LEASE_STATES.map((s) => `'${s}'`).join(", ");
      this.#sql.exec(`
        CREATE TABLE lease (
          id            TEXT PRIMARY KEY,
          state         TEXT NOT NULL CHECK (state IN (${states})),
          record        TEXT NOT NULL,
          version       INTEGER NOT NULL CHECK (version >= 1),
          index_version INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE events (
          seq        INTEGER PRIMARY KEY AUTOINCREMENT,
          at         INTEGER NOT NULL,
          type       TEXT NOT NULL,
          from_state TEXT CHECK (from_state IS NULL OR from_state IN (${states})),
          to_state   TEXT CHECK (to_state IS NULL OR to_state IN (${states})),
          reason     TEXT,
          detail     TEXT NOT NULL DEFAULT '{}'
        );
      `);
    }
    this.#sql.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)`, String(SCHEMA_VERSION));
    this.#schemaReady = true;
  }

  // ---- RPC surface ---------------------------------------------------------------------------

  /** Creates the lease once; a second call (a retried request) answers the lease as it is. */
  async create(init: LeaseInit): Promise<LeaseView> {
    return this.#exclusive(() => this.#create(init));
  }

  async #create(init: LeaseInit): Promise<LeaseView> {
    this.#ensureSchema();
    const existing = this.#load();
    if (existing) return renderLease(existing);
    const offer = init.offers[0]!;
    const record: LeaseRecord = {
      id: init.id,
      org_id: init.org_id,
      kind: init.kind,
      state: "pending",
      state_since: init.now,
      policy: init.policy,
      spec: init.spec,
      quote_id: init.quote_id,
      offers: init.offers,
      offer_index: 0,
      excluded_hosts: [],
      attempt: 0,
      provider: offer.provider,
      can_stop: providerCapabilities(offer.provider).stop,
      machine_account: null,
      machine_id: null,
      label: null,
      machine_status: null,
      observed_at: null,
      hourly_usd: offer.hourly_usd,
      stopped_hourly_usd: 0,
      machine_ids: [],
      billing: newBilling(),
      reserved: init.reserved,
      reconcile_required: false,
      retry_at: null,
      created_at: init.now,
      session_started_at: null,
      ready_at: null,
      ttl_deadline: init.policy.ttl === null ? null : init.now + init.policy.ttl,
      last_activity_at: null,
      lock_until: null,
      stopped_at: null,
      stop_failing_since: null,
      stop_issued_at: null,
      release_reason: null,
      released_at: null,
      image: init.image,
      cmd: init.cmd,
      name: init.name ?? null,
      warnings: init.warnings,
      version: 0,
    };
    this.#sql.exec(`INSERT INTO lease (id, state, record, version) VALUES (?, ?, '{}', 1)`, init.id, "pending");
    this.#save(record, record, { event: "created", detail: { offer: offer.id, kind: init.kind } }, init.now);
    await this.#finish(init.now);
    return renderLease(this.#load()!);
  }

  /** The lease with its guard, or null when it does not exist for this org (guarantee 8). */
  view(orgId: string): (LeaseView & { guard: ReturnType<typeof guardOf> }) | null {
    const l = this.#load();
    if (!l || l.org_id !== orgId) return null;
    const now = Date.now();
    return { ...renderLease(l, now), guard: guardOf(l, { machine: undefined }, now) };
  }

  events(orgId: string): LeaseEvent[] | null {
    const l = this.#load();
    if (!l || l.org_id !== orgId) return null;
    return this.#eventsAfter(0, -1);
  }

  // ---- live events (docs/events.md): pages, streams, and the forward to the org's log ----------

  /** The events after `after`, at most `limit`; null when the lease does not exist for this org. */
  eventsAfter(orgId: string, after: number, limit: number): LeaseEventPage<LeaseEvent> | null {
    const l = this.#load();
    if (!l || l.org_id !== orgId) return null;
    const data = this.#eventsAfter(after, limit + 1);
    const more = data.length > limit;
    if (more) data.pop();
    return { data, next_after: more ? data[data.length - 1]!.seq : null, released: l.state === "released" };
  }

  /**
   * A Server-Sent Events stream of the events after `after`, then each one as it is appended; it
   * ends with a final `end` event once the lease is released. Null: no such lease for this org.
   */
  follow(orgId: string, after: number): ReadableStream<Uint8Array> | null {
    const l = this.#load();
    if (!l || l.org_id !== orgId) return null;
    this.#followedSeq = Math.max(this.#followedSeq, this.#lastSeq());
    const backlog = this.#eventsAfter(after, -1).map(leaseEventFrame);
    return this.#followers.open(backlog, l.state === "released" ? leaseEndFrame(l.id) : null);
  }

  readonly #followers = new Followers();
  /** The last event written to the open streams. */
  #followedSeq = 0;
  #forwarding: Promise<void> | null = null;

  /** The hook on the one write path: pushes new events to open streams and to the org's log. */
  #appended(l: LeaseRecord) {
    if (this.#followers.size > 0) {
      const fresh = this.#eventsAfter(this.#followedSeq, -1);
      this.#followedSeq = fresh.at(-1)?.seq ?? this.#followedSeq;
      this.#followers.publish(fresh.map(leaseEventFrame), l.state === "released" ? leaseEndFrame(l.id) : null);
    }
    this.ctx.waitUntil(this.#forward(l.org_id, l.id).catch(() => undefined));
  }

  /**
   * Sends the org's fan-out object every event it has not acknowledged (meta `forwarded_seq`), one
   * call at a time. Level-triggered: a failed forward is sent again by `#finish`, which retries on
   * the alarm like an index write; the org's log drops what it already holds.
   */
  #forward(orgId: string, leaseId: string): Promise<void> {
    this.#forwarding ??= this.#forwardPending(orgId, leaseId).finally(() => {
      this.#forwarding = null;
    });
    return this.#forwarding;
  }

  async #forwardPending(orgId: string, leaseId: string): Promise<void> {
    for (;;) {
      const done = Number(this.#sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'forwarded_seq'`).toArray()[0]?.value ?? 0);
      const pending = this.#eventsAfter(done, 100);
      if (pending.length === 0) return;
      await forwardLeaseEvents(this.env, orgId, leaseId, pending);
      this.#sql.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('forwarded_seq', ?)`, String(pending.at(-1)!.seq));
    }
  }

  #lastSeq(): number {
    return this.#sql.exec<{ seq: number | null }>(`SELECT MAX(seq) AS seq FROM events`).toArray()[0]?.seq ?? 0;
  }

  /** Events after `after`, oldest first; `limit` -1: all of them. */
  #eventsAfter(after: number, limit: number): LeaseEvent[] {
    return this.#sql
      .exec<{ seq: number; at: number; type: string; from_state: string | null; to_state: string | null; reason: string | null; detail: string }>(
        `SELECT seq, at, type, from_state, to_state, reason, detail FROM events WHERE seq > ? ORDER BY seq LIMIT ?`,
        after,
        limit,
      )
      .toArray()
      .map((e) => ({
        seq: e.seq,
        at: new Date(e.at).toISOString(),
        type: e.type,
        from: e.from_state as LeaseState | null,
        to: e.to_state as LeaseState | null,
        reason: e.reason,
        detail: JSON.parse(e.detail) as Record<string, unknown>,
      }));
  }

  /**
   * Records the receipt the billing reconciler wrote for this released lease (issue 6): its
   * billing becomes `settled` or `disputed`, with the actual amount beside the estimate. Called by
   * the cron, level-triggered: a second call changes nothing, and a settled lease never takes
   * another receipt (guarantee 7). Answers whether the lease now shows this receipt.
   */
  async settleBilling(orgId: string, settlement: Settlement): Promise<boolean> {
    return this.#exclusive(async () => {
      const l = this.#load();
      if (!l || l.org_id !== orgId || l.state !== "released" || l.billing.status === "none") return false;
      if (l.billing.status === "settled" || l.billing.status === "disputed") return l.billing.receipt_id === settlement.receipt_id;
      const now = Date.now();
      const billing = { ...l.billing, status: settlement.status, receipt_id: settlement.receipt_id, actual_micro_usd: settlement.actual_micro_usd };
      const detail = { receipt_id: settlement.receipt_id, status: settlement.status, actual_usd: microsToUsd(settlement.actual_micro_usd) };
      this.#save(l, { ...l, billing }, { event: "billing_settled", detail }, now);
      await this.#finish(now);
      return true;
    });
  }

  /** A user's action. Not valid in the current state: 409 with the state in details. */
  async act(orgId: string, action: UserAction, arg: { ms?: number } = {}): Promise<ActResult> {
    return this.#exclusive(() => this.#act(orgId, action, arg));
  }

  async #act(orgId: string, action: UserAction, arg: { ms?: number }): Promise<ActResult> {
    const l = this.#load();
    if (!l || l.org_id !== orgId) return { ok: false, status: 404, code: "not_found", message: "lease not found", details: {} };
    const now = Date.now();
    const plan = userAction(l, action, arg, now);
    if (!plan.ok) return { ok: false, status: 409, code: "invalid_state", message: plan.message, details: plan.details };
    if (!plan.change) return { ok: true, lease: renderLease(l) };
    let { next, effect } = plan.change;
    if (plan.reserve) {
      // Admitted like a create (issue 10, "Money" 1), before anything is saved: refused, nothing changes.
      try {
        await reserveBudget(this.env.DB, database(this.env.DB), { lease_id: l.id, org_id: l.org_id, need: plan.reserve }, now);
      } catch (e) {
        if (e instanceof ApiError && e.status === 402) return { ok: false, status: 402, code: e.code, message: e.message, details: e.details };
        throw e;
      }
      next = { ...next, reserved: plan.reserve };
      effect = { ...effect, detail: { ...effect.detail, reserved_usd: microsToUsd(totalOf(plan.reserve)) } };
    }
    this.#save(l, next, plan.quiet ? null : effect, now);
    await this.#finish(now);
    return { ok: true, lease: renderLease(this.#load()!) };
  }

  /** Runs the policy now: the alarm's body, and what the cron backstop calls. Idempotent. */
  async tick(): Promise<void> {
    await this.#exclusive(() => this.#run());
  }

  override async alarm(): Promise<void> {
    await this.#exclusive(() => this.#run());
  }

  /**
   * One writer at a time, inside the object too. While a step awaits the provider, workerd
   * delivers the object's other events (the alarm, a cron poke, a user's action); without this,
   * two of them could each act on the lease as they last read it, and the later write would undo
   * the earlier one (a user's `end` lost, two machines rented). Everything that writes goes
   * through here, in arrival order.
   */
  #queue: Promise<unknown> = Promise.resolve();

  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work, work);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  // ---- the run loop ---------------------------------------------------------------------------

  async #run(): Promise<void> {
    const obs: Observation = { machine: undefined };
    this.#providers.clear();
    try {
      for (let step = 0; step < MAX_STEPS; step++) {
        const now = Date.now();
        const l = this.#load();
        if (!l || l.state === "released") break;
        const waiting = l.retry_at !== null && l.retry_at > now;
        // A release that falls due whatever the machine says (a hard cap, a user's end) does not
        // wait for a read of the machine: every call before the destroy is time it bills.
        const blind = decide(l, { machine: undefined }, now);
        const releaseDue = blind.action === "release" && !waiting;
        if (obs.machine === undefined && hasMachine(l) && !waiting && !releaseDue) {
          await this.#observe(l, obs, now);
          continue;
        }
        const d = decide(l, obs, now);
        if (d.action === "wait" || d.action === "none") break;
        if (d.action === "poll") {
          if (obs.machine !== undefined || waiting) break;
          await this.#observe(machined(l), obs, now);
          continue;
        }
        await this.#execute(l, d, obs, now);
        obs.machine = undefined; // what was observed may be stale after an action
      }
    } catch (e) {
      // A failed step has already recorded its backoff; anything else is logged and retried by
      // the alarm set below, never left to the platform's few alarm retries.
      if (!(e instanceof StopRun)) {
        console.error(JSON.stringify({ msg: "lease run failed", error: errorText(e), stack: (e as Error)?.stack }));
        const l = this.#load();
        if (l) this.#backoff(l, e, Date.now(), "run_failed");
      }
    } finally {
      await this.#finish(Date.now());
    }
  }

  async #observe(l: MachinedLease, obs: Observation, now: number): Promise<void> {
    try {
      const { provider, account } = await this.#providerAccount(l);
      let m = await provider.getMachine(l.machine_id);
      if (!m || m.status === "terminated") {
        // A machine lessor created is gone only when the account that created it says so twice
        // (issue 10, "Money" 4): a key that cannot see it proves nothing, and one 404 may be a
        // provider's hiccup. Anything else is a failed observation, retried; the machine is kept.
        this.#sameAccount(l, account);
        m = await provider.getMachine(l.machine_id);
      }
      obs.machine = m && m.status !== "terminated" ? m : null;
      obs.app_ready = obs.machine?.status === "running";
      this.#save(l, observed(l, obs.machine ? obs.machine.status : "terminated", now), null, now);
    } catch (e) {
      this.#backoff(l, e, now, "observe_failed");
      obs.machine = undefined;
      throw new StopRun();
    }
  }

  async #execute(l: LeaseRecord, d: Decision, obs: Observation, now: number): Promise<void> {
    try {
      const { provider, account } = await this.#providerAccount(l);
      switch (d.action) {
        case "provision":
          return await this.#provision(l, provider, account, now);
        case "mark_ready":
          return void this.#step(l, markReady(machined(l), now), now);
        case "mark_stopped":
          return void this.#step(l, markStopped(machined(l), d.reason, now), now);
        case "stop":
          return await this.#stop(machined(l), provider, d.reason, now);
        case "start": {
          await provider.startMachine(machined(l).machine_id);
          return void this.#step(l, started(machined(l), now), now);
        }
        case "replace_host":
          return await this.#replaceHost(l, provider, d.reason!, obs, now);
        case "release":
          return await this.#release(l, provider, account, d.reason, now);
      }
    } catch (e) {
      if (e instanceof StopRun) throw e;
      this.#backoff(l, e, now, `${d.action}_failed`);
      throw new StopRun();
    }
  }

  /**
   * Rents a machine for the current offer. The lease's machines are listed by label first: one
   * found is adopted (and any extra destroyed) instead of creating another.
   */
  async #provision(l: LeaseRecord, provider: Provider, account: string, now: number): Promise<void> {
    if (this.#indexVersion() < 1) throw new ProviderError(l.provider, "unavailable", "lease index not yet written");
    const alive = (await provider.listMachines(leasePrefix(this.#installation(), l.id))).filter((m) => m.status !== "terminated");
    if (alive.length > 0) {
      const keep = alive.find((m) => m.label === l.label) ?? latestAttempt(this.#installation(), alive)!;
      for (const extra of alive) if (extra.id !== keep.id) await provider.destroyMachine(extra.id);
      // Every machine found bills the lease, the destroyed extras too.
      const found = alive.map((m) => m.id).filter((id) => !l.machine_ids.includes(id));
      this.#save(
        l,
        { ...withMachine(l, keep, account, now), machine_ids: [...l.machine_ids, ...found] },
        { event: "machine_adopted", detail: { machine_id: keep.id, label: keep.label, extra_destroyed: alive.length - 1 } },
        now,
      );
      return;
    }
    const rent = rentable(l);
    if ("release" in rent) return void this.#step(l, beginRelease(l, rent.release, now, rent.detail), now);
    const offer = rent.offer;
    // Rented only within what the lease holds against its org's caps; more is reserved first, and
    // a refusal releases the lease (issue 10, "Money" 1).
    const reserve = reservationFor(l, { kind: "rent", offer }, now);
    if (reserve) {
      try {
        await reserveBudget(this.env.DB, database(this.env.DB), { lease_id: l.id, org_id: l.org_id, need: reserve }, now);
      } catch (e) {
        if (!(e instanceof ApiError && e.status === 402)) throw e;
        return void this.#step(l, beginRelease(l, "budget_exceeded", now, { offer: offer.id, provider: offer.provider, hourly_usd: offer.hourly_usd, ...e.details }), now);
      }
    }
    const attempt = l.attempt + 1;
    const label = machineLabel(this.#installation(), l.id, attempt);
    const reserved = reserve ? { reserved_usd: microsToUsd(totalOf(reserve)) } : {};
    // Write ahead: if this run dies inside the create, the next one lists by label first.
    const before = this.#save(
      l,
      {
        ...l,
        state: "provisioning",
        state_since: l.state === "provisioning" ? l.state_since : now,
        attempt,
        label,
        reconcile_required: true,
        reserved: reserve ?? l.reserved ?? null,
      },
      l.state !== "provisioning"
        ? { event: "provisioning", detail: { offer: offer.id, provider: offer.provider, label, ...reserved } }
        : reserve
          ? { event: "budget_reserved", detail: { offer: offer.id, provider: offer.provider, ...reserved } }
          : null,
      now,
    );
    let m: Machine;
    try {
      m = await provider.createMachine({ label, offer_id: offer.provider_offer_id, image: l.image ?? undefined, cmd: l.cmd ?? undefined });
      // The host actually rented: a provider may place it elsewhere than the offer (placement.ts).
      this.#save(
        before,
        withMachine(before, m, account, now),
        { event: "machine_created", detail: { machine_id: m.id, label, host: m.host_id || offer.host_id, region: m.region, provider: provider.name } },
        now,
      );
    } catch (e) {
      const kind = e instanceof ProviderError ? e.kind : "ambiguous";
      const failure = createFailure(kind);
      // Refused outright, nothing was created: the attempt does not count.
      const unmade = { ...before, reconcile_required: false, attempt: before.attempt - 1 };
      if (failure === "next_offer") return void this.#step(before, afterHostFailed(unmade, offer.host_id, "no_capacity", canStop, now), now);
      if (failure === "refused") {
        return void this.#step(before, beginRelease(unmade, "provider_refused", now, kind === "refused" ? { error: kind, message: errorText(e) } : { error: kind }), now);
      }
      if (failure === "retry") {
        this.#save(before, unmade, null, now);
        throw e;
      }
      this.#save(before, { ...before }, { event: "create_ambiguous", detail: { label, error: String(e instanceof Error ? e.message : e) } }, now);
      throw e;
    }
    // Where the machine landed, read back; outside the lease's regions it is replaced (placement.ts).
    const landed = m.region ? m : ((await provider.getMachine(m.id).catch(() => null)) ?? m);
    const placed = placementOf(l.spec?.regions, landed);
    if (!placed.ok) return this.#replaceHost(this.#load()!, provider, "host_failed", { machine: landed }, now, { misplaced_in: placed.region, allowed: placed.allowed });
  }

  /** Destroys the machine first, confirms it is gone, and only then rents another (guarantee 1). */
  async #replaceHost(l: LeaseRecord, provider: Provider, reason: Reason, obs: Observation, now: number, why: Record<string, unknown> = {}): Promise<void> {
    if (l.machine_id !== null && obs.machine !== null) {
      await provider.destroyMachine(l.machine_id);
      const after = await provider.getMachine(l.machine_id);
      if (after && after.status !== "terminated") throw new ProviderError(l.provider, "unavailable", "destroy not yet carried out");
    }
    const host = l.offers[l.offer_index]?.host_id ?? "";
    this.#save(l, { ...l }, { event: "machine_destroyed", reason, detail: { machine_id: l.machine_id, host, ...why } }, now);
    const current = this.#load()!;
    this.#step(current, afterHostFailed(current, host, reason, canStop, now), now);
  }

  async #stop(l: MachinedLease, provider: Provider, reason: Reason | null, now: number): Promise<void> {
    // An automatic stop records why before anything is called (guarantee 3).
    const request = stopRequested(l, reason, now);
    const current = request ? machined(this.#step(l, request, now)) : l;
    try {
      await provider.stopMachine(current.machine_id);
      this.#save(current, { ...current, stop_issued_at: now, stop_failing_since: null, retry_at: null }, { event: "stop_issued" }, now);
    } catch (e) {
      this.#save(current, { ...current, stop_failing_since: current.stop_failing_since ?? now }, null, now);
      throw e;
    }
  }

  /** Saves one transition: its record and its event. */
  #step(before: LeaseRecord, step: Step, now: number): LeaseRecord {
    return this.#save(before, step.next, step.effect, now);
  }

  /** Destroys every machine the lease ever labelled, and releases once none is left. */
  async #release(l: LeaseRecord, provider: Provider, account: string, reason: Reason | null, now: number): Promise<void> {
    if (l.state !== "releasing") l = this.#step(l, beginRelease(l, reason, now), now);
    const prefix = leasePrefix(this.#installation(), l.id);
    // The machine it knows goes first: every call before its destroy is time it bills.
    const ids = new Set<string>();
    if (l.machine_id !== null) {
      // A destroy "succeeds" for a machine the key cannot see: with another account's key, the
      // machine must be seen first, or it would be forgotten while it still bills (issue 10, "Money" 4).
      if (!this.#isSameAccount(l, account) && (await provider.getMachine(l.machine_id)) === null) this.#sameAccount(l, account);
      await provider.destroyMachine(l.machine_id);
      ids.add(l.machine_id);
    }
    const alive = (await provider.listMachines(prefix)).filter((m) => m.status !== "terminated" && !ids.has(m.id));
    for (const m of alive) {
      await provider.destroyMachine(m.id);
      ids.add(m.id);
    }
    const left = (await provider.listMachines(prefix)).filter((m) => m.status !== "terminated");
    if (left.length > 0) throw new ProviderError(l.provider, "unavailable", `${left.length} machine(s) not yet destroyed`);
    // Stamped when the last destroy was confirmed, not when this step began; the accrual ends then.
    const at = Date.now();
    this.#save(
      l,
      {
        ...l,
        state: "released",
        state_since: at,
        released_at: at,
        machine_status: l.machine_id ? "terminated" : null,
        retry_at: null,
        lock_until: null,
        // Machines found by label bill this lease too: their records are attributed to it.
        machine_ids: [...l.machine_ids, ...[...ids].filter((id) => !l.machine_ids.includes(id))],
      },
      { event: "released", reason: l.release_reason, detail: { destroyed: [...ids] } },
      at,
    );
  }

  #backoff(l: LeaseRecord, e: unknown, now: number, event: string) {
    const current = this.#load() ?? l;
    const wait =
      e instanceof ProviderError && e.kind === "rate_limited" && e.retryAfterMs !== null
        ? e.retryAfterMs
        : Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.min(6, this.#failures));
    const jitter = Math.floor(Math.random() * 250);
    this.#failures++;
    this.#save(current, { ...current, retry_at: now + wait + jitter }, { event, detail: { error: errorText(e), retry_in_ms: wait + jitter } }, now);
  }

  /** Consecutive failed steps since the last state change (in memory; drives the backoff). */
  #failures = 0;

  // ---- storage, index, alarm --------------------------------------------------------------------

  #load(): LeaseRecord | null {
    if (!this.#hasSchema()) return null;
    const row = this.#sql.exec<{ record: string }>(`SELECT record FROM lease LIMIT 1`).toArray()[0];
    return row ? upgradeRecord(JSON.parse(row.record) as LeaseRecord) : null;
  }

  #indexVersion(): number {
    const row = this.#sql.exec<{ index_version: number }>(`SELECT index_version FROM lease LIMIT 1`).toArray()[0];
    return row?.index_version ?? 0;
  }

  /** Writes the new record and its event in one storage transaction. */
  /** Writes `after` over `before` (which must be the stored record) and returns what was stored. */
  #save(before: LeaseRecord, after: LeaseRecord, effect: Effect | null, now: number): LeaseRecord {
    // The accrual follows every transition (issue 6): applied here, on the one write path.
    const record: LeaseRecord = { ...withBilling(after, now), version: before.version + 1 };
    if (after.state !== before.state) this.#failures = 0;
    this.ctx.storage.transactionSync(() => {
      const cursor = this.#sql.exec(
        `UPDATE lease SET state = ?, record = ?, version = ? WHERE version = ?`,
        record.state,
        JSON.stringify(record),
        record.version,
        Math.max(1, before.version),
      );
      cursor.toArray();
      // The writer lock (#exclusive) makes this unreachable; if it is ever reached, nothing
      // stale lands.
      if (cursor.rowsWritten === 0) throw new StaleWrite(`lease ${before.id}: version ${before.version} is no longer current`);
      if (effect) {
        this.#sql.exec(
          `INSERT INTO events (at, type, from_state, to_state, reason, detail) VALUES (?, ?, ?, ?, ?, ?)`,
          now,
          effect.event,
          before.version === 0 ? null : before.state,
          record.state,
          effect.reason ?? null,
          JSON.stringify(effect.detail ?? {}),
        );
      }
    });
    if (effect) this.#appended(record);
    return record;
  }

  /** Writes through to the D1 index when it is behind, then sets the one alarm. */
  async #finish(now: number): Promise<void> {
    const l = this.#load();
    if (!l) return;
    const decision = decide(l, { machine: undefined }, now);
    let next = decision.at;
    if (decision.action !== "wait" && decision.action !== "none") next = Math.max(now, l.retry_at ?? now);
    const row = this.#sql.exec<{ version: number; index_version: number }>(`SELECT version, index_version FROM lease`).toArray()[0]!;
    if (row.index_version < row.version) {
      try {
        if (l.state === "released") {
          // What the lease holds against the caps becomes what it accrued, before the index says released.
          const settledAs = settled(l.billing.segments, l.reserved ?? null, l.released_at ?? now);
          await settleReservation(this.env.DB, { lease_id: l.id, org_id: l.org_id, settled: settledAs }, now);
        }
        await writeLeaseIndex(database(this.env.DB), l, next, now);
        this.#sql.exec(`UPDATE lease SET index_version = ?`, row.version);
      } catch (e) {
        console.error(JSON.stringify({ msg: "lease index write failed; will retry", lease: l.id, error: errorText(e) }));
        next = next === null ? now + INDEX_RETRY_MS : Math.min(next, now + INDEX_RETRY_MS);
      }
    }
    try {
      await this.#forward(l.org_id, l.id);
    } catch (e) {
      console.error(JSON.stringify({ msg: "lease events not forwarded to the org; will retry", lease: l.id, error: errorText(e) }));
      next = next === null ? now + INDEX_RETRY_MS : Math.min(next, now + INDEX_RETRY_MS);
    }
    if (this.env.LESSOR_DEV_DISABLE_ALARMS === "1") return;
    if (next === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(next);
  }

  /**
   * The lease's provider, acting with its org's own key (ProviderError `auth` when it has none),
   * and the account that key is (registry.ts `accountOf`).
   */
  #providerAccount(l: LeaseRecord): Promise<{ provider: Provider; account: string }> {
    // Built (and its key decrypted) once per run and provider: a run takes several steps, and a
    // lease that moves to a fallback offer may change provider between them.
    let built = this.#providers.get(l.provider);
    if (!built) {
      built = providerWithAccount(this.env, database(this.env.DB), l.org_id, l.provider);
      this.#providers.set(l.provider, built);
    }
    return built;
  }

  /** The providers built in the current run (#run clears it: a key stored meanwhile is read next run). */
  #providers = new Map<string, Promise<{ provider: Provider; account: string }>>();

  /** Whether `account` is the one that created the lease's machine (a lease stored before it was kept: yes). */
  #isSameAccount(l: LeaseRecord, account: string): boolean {
    return l.machine_account === undefined || l.machine_account === null || l.machine_account === account;
  }

  /** Throws when the key in use is not the account that created the machine: its absence proves nothing. */
  #sameAccount(l: LeaseRecord, account: string): void {
    if (this.#isSameAccount(l, account)) return;
    throw new ProviderError(
      l.provider,
      "auth",
      `machine ${l.machine_id} was created with another ${l.provider} key of this org, and the key stored now cannot see it; it is kept until that account can be asked: store that key again`,
    );
  }

  #installation(): string {
    return installationId(this.env);
  }
}

/** Ends a run early; the alarm set in `finally` resumes it. */
class StopRun extends Error {}

/** A write built on a record that is no longer the stored one. */
class StaleWrite extends Error {}

const canStop = (provider: string) => providerCapabilities(provider).stop;

function errorText(e: unknown): string {
  if (e instanceof ProviderError) return `${e.provider} ${e.kind}: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}
