/**
 * The Lease Durable Object: one per lease, the lease's only writer (docs/design.md "Shape"). It
 * does I/O only; every rule it follows is a pure function (docs/design.md "Where each rule lives").
 *
 * - Its SQLite storage (store.ts) holds the lease and its append-only events. Every change is
 *   written in one storage transaction, then written through to the D1 index; a failed index
 *   write is retried on the next alarm until the index matches.
 * - It keeps exactly one alarm (decide.ts `alarmAt`), recomputed after every change and
 *   rescheduled in `finally` when a run fails (STYLE.md rule 7).
 * - Its run loop (runner.ts `LeaseRunner`) reads the machine back, asks decide.ts `nextMove` and
 *   calls the provider, one action at a time; its machine agent's RPCs go to occupant-side.ts.
 *   Both run under this object's writer lock, and end with its index write and alarm.
 */
import { MeteredObject } from "../metered-object";
import { meteredAlarm } from "../metering";
import { database } from "../db";
import type { Env } from "../env";
import { settleReservation } from "../billing/budget";
import { alarmAt, alarmMove, guardOf, indexWrite, type IndexFacts } from "./decide";
import type { KillOutcome } from "./command";
import { machineActive, newLease, preemption, userAction, withReserved, type LeaseInit, type UserAction } from "./transitions";
import { releasedHold, settlementOf, type Settlement } from "./billing";
import { indexFacts, orgIndexRow, writeLeaseIndex, writesD1 } from "./index-repo";
import type { IndexRowOut } from "../events/lease-stream";
import { OccupantSide } from "./occupant-side";
import { failureOf, indexRetryAt } from "./retry";
import { canStop, LeaseRunner } from "./runner";
import type { LeaseRecord, LeaseState } from "./state";
import { LeaseStore, type LeaseEvent } from "./store";
import { renderLease, type LeaseView } from "./view";
import type { LeaseEventPage } from "../events/lease-events";
import { LeaseEventsOut } from "../events/lease-stream";
import { overRpc } from "../events/sse";
import type { ExecView } from "../occupant/exec";
import type { AgentAnswer, AgentCall, AgentSnapshot, CommandView, NewCommand } from "../occupant/occupant";
import type { AgentLimits } from "../occupant/agent-budget";
import { HeldSlots, type SlotClaim, type SlotRefusal } from "../auth/stream-slots";

export type { LeaseEvent, LeaseInit, UserAction };

export type ActResult =
  | { ok: true; lease: LeaseView }
  | { ok: false; status: 402 | 404 | 409; code: string; message: string; details: Record<string, unknown> };

/** How long a gateway request's end waits in memory before it is written (`#noteActivity`). */
const ACTIVITY_WRITE_MS = 2_000;

/** How far ahead the alarm stands behind a run begun at once (`#finish`'s `runDueWork`). */
const DUE_WORK_BACKSTOP_MS = 5_000;

export class LeaseObject extends MeteredObject {
  /** The lease's own storage: its record, events and how far the D1 index has caught up. */
  readonly #store: LeaseStore;
  /** Its events going out: open streams and the org's log (src/events/lease-stream.ts). */
  readonly #out: LeaseEventsOut;
  /** The run loop: the policy's actions and the provider's calls. */
  readonly #runner: LeaseRunner;
  /** The machine agent's side: its token, calls, commands, log and exec. */
  readonly #occupant: OccupantSide;
  /** The slots of the streams and long polls this object holds open (src/auth/stream-slots.ts). */
  readonly #slots: HeldSlots;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new LeaseStore(ctx.storage);
    this.#slots = new HeldSlots(env);
    this.#out = new LeaseEventsOut(this.#store, this.env, (p) => ctx.waitUntil(p));
    this.#runner = new LeaseRunner(this.#store, this.env, {
      appended: (stored) => this.#out.appended(stored),
      occupant: () => this.#occupant.occupant(),
      finish: (now) => this.#finish(now),
      inFlight: () => this.#routedInFlight,
      gatewayEndedAt: () => this.#gatewayEndedAt,
    });
    this.#occupant = new OccupantSide(this.#store, ctx.storage, this.env, this.#slots, {
      exclusive: (work) => this.#exclusive(work),
      save: (before, after, effect, now) => this.#runner.save(before, after, effect, now),
      finish: (now) => this.#finish(now),
      bringAlarmForward: (at) => this.#bringAlarmForward(at),
      heartbeat: (orgId) => ctx.waitUntil(this.act(orgId, "heartbeat").catch(() => undefined)),
      machineActivity: () => ctx.waitUntil(this.#machineActivity().catch(() => undefined)),
      commandQueued: (l) => ctx.waitUntil(this.#runner.commandQueued(l).catch(() => undefined)),
      later: (work) => ctx.waitUntil(work().catch(() => undefined)),
    });
    ctx.blockConcurrencyWhile(async () => this.#store.open());
  }

  // ---- RPC surface ---------------------------------------------------------------------------

  /** Creates the lease once; a second call (a retried request) answers the lease as it is. */
  async create(init: LeaseInit): Promise<LeaseView> {
    return this.#exclusive(async () => {
      this.#store.ensureSchema();
      const existing = this.#store.load();
      if (existing) return renderLease(existing);
      const step = newLease(init, canStop);
      this.#store.insert(step.next);
      this.#runner.step(step.next, step, init.now);
      return renderLease((await this.#finish(init.now, { runDueWork: true }))!);
    });
  }

  /** The lease with its guard, or null when it does not exist for this org (guarantee 8). */
  view(orgId: string): (LeaseView & { guard: ReturnType<typeof guardOf> }) | null {
    const l = this.#store.loadFor(orgId);
    if (!l) return null;
    const now = Date.now();
    const activity = Math.max(l.last_activity_at ?? 0, this.#gatewayEndedAt ?? 0) || null;
    return { ...renderLease({ ...l, last_activity_at: activity }, now), guard: guardOf(l, { machine: undefined, agent: this.#runner.facts() }, now) };
  }

  /** The events after `after`, at most `limit` (docs/events.md); null: no such lease for this org. */
  eventsAfter(orgId: string, after: number, limit: number): LeaseEventPage<LeaseEvent> | null {
    const l = this.#store.loadFor(orgId);
    return l ? this.#out.page(l, after, limit) : null;
  }

  /**
   * A Server-Sent Events stream of the events after `after`, ending once the lease is released; it
   * holds a slot of `claim` while open. null: no such lease for this org; a refusal: no slot.
   */
  async follow(orgId: string, after: number, claim: SlotClaim): Promise<ReadableStream<Uint8Array> | SlotRefusal | null> {
    if (!this.#store.loadFor(orgId)) return null;
    const release = await this.#slots.take(claim);
    return typeof release === "function" ? overRpc(this.#out.follow(after), release) : release;
  }

  /**
   * Records the receipt the billing reconciler wrote for this released lease: its billing becomes
   * `settled` or `disputed`, with the actual amount beside the estimate. Called by the cron,
   * level-triggered (billing.ts `settlementOf`). Answers whether the lease now shows this receipt.
   */
  async settleBilling(orgId: string, settlement: Settlement): Promise<boolean> {
    return this.#exclusive(async () => {
      const l = this.#store.load();
      const plan = settlementOf(l, orgId, settlement);
      if ("answer" in plan) return plan.answer;
      const now = Date.now();
      this.#runner.step(l!, plan.step, now);
      await this.#finish(now);
      return true;
    });
  }

  /** A user's action. Not valid in the current state: 409 with the state in details. `at`: when it happened, if before now. */
  async act(orgId: string, action: UserAction, arg: { ms?: number } = {}, at?: number): Promise<ActResult> {
    return this.#exclusive(async () => {
      const l = this.#store.loadFor(orgId);
      if (!l) return { ok: false, status: 404, code: "not_found", message: "lease not found", details: {} };
      const now = Date.now();
      const plan = userAction(l, action, arg, Math.min(at ?? now, now));
      if (!plan.ok) return { ok: false, status: 409, code: "invalid_state", message: plan.message, details: plan.details };
      if (!plan.change) return { ok: true, lease: renderLease(l) };
      // Admitted like a create, before anything is saved: refused, nothing changes.
      const refused = plan.reserve ? await this.#runner.reserve(l, plan.reserve, now) : null;
      if (refused) return { ok: false, status: 402, code: refused.code, message: refused.message, details: refused.details };
      const change = plan.reserve ? withReserved(plan.change, plan.reserve) : plan.change;
      this.#runner.save(l, change.next, plan.quiet ? null : change.effect, now);
      return { ok: true, lease: renderLease((await this.#finish(now, { runDueWork: true }))!) };
    });
  }

  /**
   * Where the deployment's object (src/deployments/object.ts) reaches this replica's model server:
   * its endpoint's url and the machine's key, once the lease is ready and the endpoint known. The key
   * goes only to that object, which keeps it in memory and sends it to the machine alone. null: no such lease for this org.
   */
  async modelTarget(orgId: string): Promise<{ state: LeaseState; url: string | null; key: string | null } | null> {
    const l = this.#store.loadFor(orgId);
    if (!l) return null;
    if (l.state !== "ready" || !l.model) return { state: l.state, url: null, key: null };
    const endpoint = await this.#runner.modelEndpoint(l).catch(() => null);
    return { state: l.state, url: endpoint?.url ?? null, key: endpoint ? l.model.key : null };
  }

  /**
   * The gateway requests the deployment's object sent to this replica: `starts`, when each now in
   * flight began (it replaces what was told before), and `endedAt`, the last one's end. They count
   * as this lease's activity from their start to their end (decide.ts `inUseUntil`), the end
   * recorded as its last activity (`#noteActivity`). false: no such lease for this org.
   */
  gatewayActivity(orgId: string, starts: number[], endedAt: number | null): boolean {
    if (!this.#store.loadFor(orgId)) return false;
    this.#routedInFlight = starts;
    if (endedAt !== null) this.#noteActivity(orgId, endedAt);
    return true;
  }

  /** When each request the deployment's object has in flight on this replica began, as it last told (in memory). */
  #routedInFlight: number[] = [];


  /**
   * A gateway request's end is activity. It counts at once, from memory (`AgentFacts.gateway_ended_at`,
   * read by the rules and by `view`), and is written as the lease's `last_activity_at` at most once
   * every ACTIVITY_WRITE_MS: under steady traffic, one write in that time rather than a write (the
   * writer's turn, the policy, storage) per request. An object that went away before the write
   * would lose at most that much of its last activity.
   */
  #noteActivity(orgId: string, at: number): void {
    this.#gatewayEndedAt = Math.max(this.#gatewayEndedAt ?? 0, at);
    if (this.#activityWrite) return;
    this.#activityWrite = true;
    const write = async () => {
      await scheduler.wait(ACTIVITY_WRITE_MS);
      this.#activityWrite = false;
      const ended = this.#gatewayEndedAt!;
      // A lease no longer in use by then refuses the heartbeat (409): nothing to write.
      await this.act(orgId, "heartbeat", {}, ended);
      if (this.#gatewayEndedAt === ended) this.#gatewayEndedAt = null;
    };
    this.ctx.waitUntil(write().catch(() => undefined));
  }

  #gatewayEndedAt: number | null = null;
  #activityWrite = false;

  /** The model server's metrics showed requests (occupant-side.ts): recorded as the machine's word, quietly. */
  async #machineActivity(): Promise<void> {
    await this.#exclusive(async () => {
      const l = this.#store.load();
      const now = Date.now();
      const next = l ? machineActive(l, now) : null;
      if (!l || !next) return;
      this.#runner.save(l, next, null, now);
      await this.#finish(now);
    });
  }

  /**
   * Released because deployment `by` displaced it under the org's GPU quota (src/lease/quota.ts).
   * Idempotent: a lease already ending is left as it is. false: no such lease for this org.
   */
  async preempt(orgId: string, by: string): Promise<boolean> {
    return this.#exclusive(async () => {
      const l = this.#store.loadFor(orgId);
      if (!l) return false;
      const now = Date.now();
      const step = preemption(l, by, now);
      if (step) {
        this.#runner.save(l, step.next, step.effect, now);
        await this.#finish(now, { runDueWork: true });
      }
      return true;
    });
  }

  /**
   * Runs the policy now: what the cron backstop, a provider's webhook and work a request made due
   * call. Idempotent. A poke that comes while another still waits for the writer joins that one:
   * its run has not begun, so it reads the machine after both came, and answers both. Webhooks
   * come in bursts (a machine created, booted and running tells three times in a second); each
   * would otherwise cost a read-back of the machine.
   *
   * `toldAt`: the poke is a provider's word that the machine changed by then (src/ingress/).
   * A lease that has read its machine back since has nothing to learn from it, and does not run.
   */
  tick(toldAt: number | null = null): Promise<void> {
    if (this.#waitingPoke) return this.#waitingPoke;
    if (toldAt !== null) {
      const observedAt = this.#store.load()?.observed_at ?? null;
      if (observedAt !== null && observedAt > toldAt) return Promise.resolve();
    }
    const poke = this.#exclusive(async () => {
      // Begun: a poke from here on may tell of what this run has already read, so it runs again.
      this.#waitingPoke = null;
      await this.#runner.run();
    });
    this.#waitingPoke = poke;
    return poke;
  }

  /** The poke that waits for the writer and has not begun (null: none). */
  #waitingPoke: Promise<void> | null = null;

  override async alarm(): Promise<void> {
    await meteredAlarm(() => this.#exclusive(async () => {
      this.#occupant.expireLogs(Date.now());
      await this.#runner.run();
    }));
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

  // ---- storage, index, alarm --------------------------------------------------------------------

  /**
   * Writes through to the D1 index when it is behind, then sets the one alarm; answers the lease it
   * read. `runDueWork`: work the caller's change made due at once (a machine to rent, destroy, stop
   * or start) begins in the writer's next turn, right after the caller's answer, instead of when
   * the platform delivers an alarm set for it: every second between an `end` and its destroy is
   * billed. The alarm is then set DUE_WORK_BACKSTOP_MS ahead, in case that run never happens (the
   * object evicted); the run moves it to what comes next.
   */
  async #finish(now: number, options: { runDueWork?: boolean } = {}): Promise<LeaseRecord | null> {
    const l = this.#store.load();
    if (!l) return null;
    let next = alarmAt(l, now, this.#runner.facts());
    next ??= this.#occupant.logsExpireAt(l); // a released lease's one alarm left: deleting its log
    // Only what the index needs (decide.ts `indexWrite`): a heartbeat that changes nothing it shows writes nothing there.
    const write = indexWrite(this.#store.indexed(), await indexFacts(l, next), now);
    let indexed: { version: number; facts: IndexFacts } | null = null;
    let row: IndexRowOut | null = null;
    if (write.write) {
      try {
        // What a released lease holds against the caps becomes what it accrued, before the index says released.
        const hold = releasedHold(l, now);
        if (hold) await settleReservation(this.env.DB, { lease_id: l.id, org_id: l.org_id, settled: hold }, now);
        if (writesD1(write)) await writeLeaseIndex(database(this.env.DB), l, write, now);
        row = { row: orgIndexRow(l, write, now), deadline: write.next_deadline };
      } catch (e) {
        console.error(JSON.stringify({ msg: "lease index write failed; will retry", lease: l.id, error: failureOf(e).text }));
        next = indexRetryAt(next, now);
      }
    }
    try {
      // The org's index row goes with the events: one call (src/events/lease-stream.ts).
      await this.#out.forward(l.org_id, l.id, row);
      if (row && write.write) indexed = { version: l.version, facts: write.holds };
    } catch (e) {
      console.error(JSON.stringify({ msg: "lease events not forwarded to the org; will retry", lease: l.id, error: failureOf(e).text }));
      next = indexRetryAt(next, now);
    }
    // What the index now holds and how far the org's log has the events: one row write for both.
    this.#store.settle(indexed);
    if (l.state === "released") {
      // Every stream of the lease ends: its events' and its log's.
      this.#out.released();
      this.#occupant.released();
    }
    if (this.env.LESSOR_DEV_DISABLE_ALARMS !== "1") {
      if (options.runDueWork && next !== null && next <= Date.now()) {
        this.ctx.waitUntil(this.tick().catch(() => undefined));
        next = Date.now() + DUE_WORK_BACKSTOP_MS;
      }
      const move = alarmMove(await this.ctx.storage.getAlarm(), next, now);
      if (move === "delete") await this.ctx.storage.deleteAlarm();
      else if (move === "set") await this.ctx.storage.setAlarm(next!);
    }
    return l;
  }

  /** Moves the one alarm to `at` when it is set later or not at all; never later (the run sets it again when it ends). */
  async #bringAlarmForward(at: number): Promise<void> {
    if (this.env.LESSOR_DEV_DISABLE_ALARMS === "1") return;
    const current = await this.ctx.storage.getAlarm();
    if (current === null || at < current) await this.ctx.storage.setAlarm(at);
  }

  // ---- the machine agent and the user's side of it (occupant-side.ts, docs/agent.md) ----------

  /**
   * A new lease token for the machine (the one before stops working), shown once, for the
   * operator and a lease on the sim only ("not_sim" otherwise); null: no lease.
   */
  mintAgentToken(): Promise<string | "released" | "not_sim" | null> {
    return this.#occupant.mintAgentToken();
  }

  /** A new enrollment token for the machine (what a create carries), shown once, for the operator and a lease on the sim only; null: no lease. */
  mintEnrollToken(): Promise<string | "released" | "not_sim" | null> {
    return this.#occupant.mintEnrollToken();
  }

  /** One call of the lease's agent, authenticated by its lease token (an enroll: by its enrollment token), within `limits` when given. */
  agentCall(token: string, call: AgentCall, limits?: AgentLimits): Promise<AgentAnswer> {
    return this.#occupant.agentCall(token, call, limits);
  }

  /** Ends the lease's command: TERM, then KILL when `escalate`. null: no such lease for this org. */
  kill(orgId: string, opts: { timeout_ms: number; escalate: boolean }): Promise<KillOutcome | null> {
    return this.#occupant.kill(orgId, opts);
  }

  /**
   * Queues an exec or signal for the machine (`orgId` null: the operator, for a lease on the sim
   * only, else "not_sim"); null: no such lease; "full": too many open.
   */
  queueAgentCommand(orgId: string | null, command: NewCommand): CommandView | "full" | "released" | "not_sim" | null {
    return this.#occupant.queueAgentCommand(orgId, command);
  }

  /** The log's last `lines` lines (null: all of it); null: no such lease (or another org's). */
  logTail(orgId: string, lines: number | null): ReturnType<OccupantSide["logTail"]> {
    return this.#occupant.logTail(orgId, lines);
  }

  /** A follow of the log after chunk `after` (-1: from its start), as Server-Sent Events, holding a slot of `claim`; null: no such lease. */
  followLog(orgId: string, after: number, claim: SlotClaim): ReturnType<OccupantSide["followLog"]> {
    return this.#occupant.followLog(orgId, after, claim);
  }

  /** Queues an exec and waits for its result, at most `timeoutMs`; null: no such lease. */
  exec(orgId: string, cmd: string, timeoutMs: number): Promise<ExecView | "full" | "released" | null> {
    return this.#occupant.exec(orgId, cmd, timeoutMs);
  }

  /** One exec of the lease's, as it is now; null: no such lease, or no such exec. */
  execResult(orgId: string, execId: string): ExecView | null {
    return this.#occupant.execResult(orgId, execId);
  }

  /**
   * What the agent reported, never the token (`orgId` null: the operator, for a lease on the sim
   * only, else "not_sim"); null: no such lease (or another org's).
   */
  agentSnapshot(orgId: string | null): AgentSnapshot | "not_sim" | null {
    return this.#occupant.agentSnapshot(orgId);
  }
}
