/**
 * The Lease Durable Object: one per lease, the lease's only writer (docs/design.md "Shape"). It
 * does I/O only; every rule it follows is a pure function (docs/design.md "Where each rule lives").
 *
 * - Its SQLite storage (store.ts) holds the lease and its append-only events. Every change is
 *   written in one storage transaction, then written through to the D1 index; a failed index
 *   write is retried on the next alarm until the index matches.
 * - It keeps exactly one alarm (decide.ts `alarmAt`), recomputed after every change and
 *   rescheduled in `finally` when a run fails (STYLE.md rule 7).
 * - It acts level-triggered: each run reads the machine back from the provider, asks decide.ts
 *   `nextMove`, and carries out one action at a time. A create whose outcome is unknown is never
 *   retried blindly: the next run lists the provider by the lease's label first (guarantee 2), and
 *   every provision and release lists by label, so a lease never keeps two machines (guarantee 1).
 */
import { installationId } from "../config";
import { DurableObject } from "cloudflare:workers";
import { database } from "../db";
import { intSetting, type Env } from "../env";
import { agentAccess } from "../providers/agent-start";
import { ProviderError, type Machine, type Provider } from "../providers/contract";
import { providerCapabilities, providerWithAccount } from "../providers/registry";
import { reserveBudget, settleReservation } from "../billing/budget";
import type { Reservation } from "../billing/ceiling";
import { ApiError } from "../errors";
import { alarmAt, guardOf, nextMove, type Decision } from "./decide";
import { boundedDiagnostics, DIAGNOSTICS_CMD, killStart, type KillOutcome } from "./command";
import {
  agentSilent, markExited, signalQueued, stalled,
  markReady, markStopped, newLease, observed, started, stopFailed, stopIssued,
  stopRequested, released, releaseStarted, userAction, withReserved, type Effect, type LeaseInit, type Step, type UserAction,
} from "./transitions";
import { releasedHold, settlementOf, type Settlement } from "./billing";
import { writeLeaseIndex } from "./index-repo";
import { leasePrefix } from "./label";
import {
  accountMismatch, adoption, aliveOf, budgetRefused, created, createFailed, destroyFirst,
  hostReplaced, isAlive, misplacement, observationOf, rentPlan, writeAhead,
} from "./provision";
import { backoff, failureOf, failuresAfter, indexRetryAt } from "./retry";
import { machined, NO_AGENT, type AgentFacts, type KillCause, type LeaseRecord, type MachinedLease, type Observation, type Reason } from "./state";
import { LeaseStore, type LeaseEvent } from "./store";
import { renderLease, type LeaseView } from "./view";
import type { LeaseEventPage } from "../events/lease-events";
import { LeaseEventsOut } from "../events/lease-stream";
import { overRpc } from "../events/sse";
import { EXEC_MAX_WAIT_MS, execView, execWaitMs, type ExecView } from "../occupant/exec";
import { USE_EVERY_MS } from "../occupant/follow";
import { logsExpireAt } from "../occupant/logs";
import { Occupant, REFUSED, type AgentAnswer, type AgentCall, type AgentSnapshot, type CommandView, type NewCommand } from "../occupant/occupant";

/** At most this many actions in one run; the alarm picks up the rest. */
const MAX_STEPS = 12;
/** How often a kill waiting for the exit reads the lease again (it may stop holding a running machine meanwhile). */
const KILL_RECHECK_MS = 1_000;

export type { LeaseEvent, LeaseInit, UserAction };

export type ActResult =
  | { ok: true; lease: LeaseView }
  | { ok: false; status: 402 | 404 | 409; code: string; message: string; details: Record<string, unknown> };

export class LeaseObject extends DurableObject<Env> {
  /** The lease's own storage: its record, events and how far the D1 index has caught up. */
  readonly #store: LeaseStore;
  /** Its events going out: open streams and the org's log (src/events/lease-stream.ts). */
  readonly #out: LeaseEventsOut;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new LeaseStore(ctx.storage);
    this.#out = new LeaseEventsOut(this.#store, env, (p) => ctx.waitUntil(p));
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
      this.#step(step.next, step, init.now);
      return renderLease((await this.#finish(init.now))!);
    });
  }

  /** The lease with its guard, or null when it does not exist for this org (guarantee 8). */
  view(orgId: string): (LeaseView & { guard: ReturnType<typeof guardOf> }) | null {
    const l = this.#leaseOf(orgId);
    if (!l) return null;
    const now = Date.now();
    return { ...renderLease(l, now), guard: guardOf(l, { machine: undefined, agent: this.#facts() }, now) };
  }

  /** The events after `after`, at most `limit` (docs/events.md); null: no such lease for this org. */
  eventsAfter(orgId: string, after: number, limit: number): LeaseEventPage<LeaseEvent> | null {
    const l = this.#leaseOf(orgId);
    return l ? this.#out.page(l, after, limit) : null;
  }

  /** A Server-Sent Events stream of the events after `after`, ending once the lease is released. */
  follow(orgId: string, after: number): ReadableStream<Uint8Array> | null {
    return this.#leaseOf(orgId) ? overRpc(this.#out.follow(after)) : null;
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
      this.#step(l!, plan.step, now);
      await this.#finish(now);
      return true;
    });
  }

  /** A user's action. Not valid in the current state: 409 with the state in details. */
  async act(orgId: string, action: UserAction, arg: { ms?: number } = {}): Promise<ActResult> {
    return this.#exclusive(async () => {
      const l = this.#leaseOf(orgId);
      if (!l) return { ok: false, status: 404, code: "not_found", message: "lease not found", details: {} };
      const now = Date.now();
      const plan = userAction(l, action, arg, now);
      if (!plan.ok) return { ok: false, status: 409, code: "invalid_state", message: plan.message, details: plan.details };
      if (!plan.change) return { ok: true, lease: renderLease(l) };
      // Admitted like a create, before anything is saved: refused, nothing changes.
      const refused = plan.reserve ? await this.#reserve(l, plan.reserve, now) : null;
      if (refused) return { ok: false, status: 402, code: refused.code, message: refused.message, details: refused.details };
      const change = plan.reserve ? withReserved(plan.change, plan.reserve) : plan.change;
      this.#save(l, change.next, plan.quiet ? null : change.effect, now);
      return { ok: true, lease: renderLease((await this.#finish(now))!) };
    });
  }

  /** Runs the policy now: the alarm's body, and what the cron backstop calls. Idempotent. */
  async tick(): Promise<void> {
    await this.#exclusive(() => this.#run());
  }

  override async alarm(): Promise<void> {
    await this.#exclusive(async () => {
      this.#expireLogs(Date.now());
      await this.#run();
    });
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

  #leaseOf(orgId: string): LeaseRecord | null {
    const l = this.#store.load();
    return l && l.org_id === orgId ? l : null;
  }

  // ---- the run loop ---------------------------------------------------------------------------

  async #run(): Promise<void> {
    const obs: Observation = { machine: undefined };
    this.#providers.clear();
    try {
      for (let step = 0; step < MAX_STEPS; step++) {
        const now = Date.now();
        const l = this.#store.load();
        obs.agent = this.#facts();
        const move = nextMove(l, obs, now);
        if (move.move === "done") break;
        if (move.move === "observe") {
          await this.#observe(machined(l!), obs, now);
          continue;
        }
        await this.#execute(l!, move.decision, obs, now);
        obs.machine = undefined; // what was observed may be stale after an action
      }
    } catch (e) {
      // A failed step has already recorded its backoff; anything else is logged and retried by
      // the alarm set below, never left to the platform's few alarm retries.
      if (!(e instanceof StopRun)) {
        console.error(JSON.stringify({ msg: "lease run failed", error: failureOf(e).text, stack: (e as Error)?.stack }));
        this.#backoff(e, Date.now(), "run_failed");
      }
    } finally {
      await this.#finish(Date.now());
    }
  }

  async #observe(l: MachinedLease, obs: Observation, now: number): Promise<void> {
    try {
      const { provider, account } = await this.#providerAccount(l);
      let m = await provider.getMachine(l.machine_id);
      if (!isAlive(m)) {
        // Gone only when the account that created it says so twice (provision.ts `observationOf`);
        // anything else is a failed observation, retried, and the machine is kept.
        this.#sameAccount(l, account);
        m = await provider.getMachine(l.machine_id);
      }
      Object.assign(obs, observationOf(m));
      this.#save(l, observed(l, obs.machine ? obs.machine.status : "terminated", now), null, now);
    } catch (e) {
      this.#backoff(e, now, "observe_failed");
      obs.machine = undefined;
      throw new StopRun();
    }
  }

  async #execute(l: LeaseRecord, d: Decision, obs: Observation, now: number): Promise<void> {
    // The command's rules act through the agent's queue, and these marks on the lease's own record: no provider call.
    switch (d.action) {
      case "mark_exited":
        return void this.#step(l, markExited(l, obs.agent!.exit!), now);
      case "signal": {
        const queued = this.#agent()!.queue({ kind: "signal", signal: d.signal! }, now);
        if (!queued) {
          this.#backoff(new Error("the agent's command queue is full"), now, "signal_failed");
          throw new StopRun();
        }
        return void this.#step(l, signalQueued(l, d.signal!, d.reason as KillCause, queued.id, now), now);
      }
      case "diagnose": {
        const queued = this.#agent()!.queue({ kind: "exec", cmd: DIAGNOSTICS_CMD }, now);
        return void this.#step(l, stalled(l, d.since!, queued?.id ?? null, now), now);
      }
      case "report_silent":
        return void this.#step(l, agentSilent(l, d.since!), now);
      case "mark_ready":
        return void this.#step(l, markReady(machined(l), now), now);
      case "mark_stopped":
        return void this.#step(l, markStopped(machined(l), d.reason, now), now);
    }
    try {
      const { provider, account } = await this.#providerAccount(l);
      switch (d.action) {
        case "provision":
          return await this.#provision(l, provider, account, now);
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
      this.#backoff(e, now, `${d.action}_failed`);
      throw new StopRun();
    }
  }

  /**
   * Rents a machine for the current offer. The lease's machines are listed by label first: one
   * found is adopted (and any extra destroyed) instead of creating another (provision.ts).
   */
  async #provision(l: LeaseRecord, provider: Provider, account: string, now: number): Promise<void> {
    if (this.#store.versions().index_version < 1) throw new ProviderError(l.provider, "unavailable", "lease index not yet written");
    const found = adoption(l, aliveOf(await provider.listMachines(leasePrefix(this.#installation(), l.id))), this.#installation(), account, now);
    if (found) {
      for (const id of found.destroy) await provider.destroyMachine(id);
      return void this.#step(l, found.step, now);
    }
    const plan = rentPlan(l, now);
    if ("release" in plan) return void this.#step(l, plan.release, now);
    const { offer, reserve } = plan;
    // Rented only within what the lease holds against its org's caps: more is reserved first.
    const refused = reserve ? await this.#reserve(l, reserve, now) : null;
    if (refused) return void this.#step(l, budgetRefused(l, offer, refused.details, now), now);
    const ahead = writeAhead(l, offer, reserve, this.#installation(), now);
    const before = this.#save(l, ahead.next, ahead.effect, now);
    let m: Machine;
    let after: LeaseRecord;
    try {
      // Each machine gets a token of its own; the one before it stops working (docs/agent.md).
      const agent = agentAccess(this.env, l.id, await this.#agent()!.mint(now)) ?? undefined;
      m = await provider.createMachine({
        label: before.label!, offer_id: offer.provider_offer_id, image: l.image ?? undefined, cmd: l.cmd ?? undefined, env: l.env ?? undefined, agent,
      });
      after = this.#step(before, created(before, m, offer, provider.name, account, now), now);
    } catch (e) {
      const outcome = createFailed(before, offer, failureOf(e), canStop, now);
      this.#save(before, outcome.next, outcome.effect, now);
      if (outcome.rethrow) throw e;
      return;
    }
    // Where the machine landed, read back; outside the lease's regions it is replaced.
    const landed = m.region ? m : ((await provider.getMachine(m.id).catch(() => null)) ?? m);
    const why = misplacement(l, landed);
    if (why) return this.#replaceHost(after, provider, "host_failed", { machine: landed }, now, why);
  }

  /** Destroys the machine first, confirms it is gone, and only then rents another (guarantee 1). */
  async #replaceHost(l: LeaseRecord, provider: Provider, reason: Reason, obs: Observation, now: number, why: Record<string, unknown> = {}): Promise<void> {
    if (destroyFirst(l, obs)) {
      await provider.destroyMachine(l.machine_id!);
      if (isAlive(await provider.getMachine(l.machine_id!))) throw new ProviderError(l.provider, "unavailable", "destroy not yet carried out");
    }
    const replaced = hostReplaced(l, reason, why, canStop, now);
    const stored = this.#save(l, { ...l }, replaced.destroyed, now);
    this.#step(stored, replaced.then(stored), now);
  }

  async #stop(l: MachinedLease, provider: Provider, reason: Reason | null, now: number): Promise<void> {
    // An automatic stop records why before anything is called (guarantee 3).
    const request = stopRequested(l, reason, now);
    const current = request ? machined(this.#step(l, request, now)) : l;
    try {
      await provider.stopMachine(current.machine_id);
      this.#step(current, stopIssued(current, now), now);
    } catch (e) {
      this.#save(current, stopFailed(current, now), null, now);
      throw e;
    }
  }

  /** Destroys every machine the lease ever labelled, and releases once none is left. */
  async #release(l: LeaseRecord, provider: Provider, account: string, reason: Reason | null, now: number): Promise<void> {
    const begun = releaseStarted(l, reason, now);
    if (begun) l = this.#step(l, begun, now);
    const prefix = leasePrefix(this.#installation(), l.id);
    // The machine it knows goes first: every call before its destroy is time it bills.
    const ids = new Set<string>();
    if (l.machine_id !== null) {
      // A destroy "succeeds" for a machine the key cannot see: with another account's key, the
      // machine must be seen first, or it would be forgotten while it still bills.
      if (accountMismatch(l, account) && (await provider.getMachine(l.machine_id)) === null) this.#sameAccount(l, account);
      await provider.destroyMachine(l.machine_id);
      ids.add(l.machine_id);
    }
    for (const m of aliveOf(await provider.listMachines(prefix), ids)) {
      await provider.destroyMachine(m.id);
      ids.add(m.id);
    }
    const left = aliveOf(await provider.listMachines(prefix));
    if (left.length > 0) throw new ProviderError(l.provider, "unavailable", `${left.length} machine(s) not yet destroyed`);
    // Stamped when the last destroy was confirmed, not when this step began; the accrual ends then.
    const at = Date.now();
    this.#step(l, released(l, [...ids], at), at);
  }

  /** Records a failed step's backoff (retry.ts) on the lease as stored now; the next run waits for it. */
  #backoff(e: unknown, now: number, event: string) {
    const current = this.#store.load();
    if (!current) return;
    const step = backoff(current, event, failureOf(e), this.#failures, Math.random(), now);
    this.#failures++;
    this.#step(current, step, now);
  }

  /** Consecutive failed steps since the last state change (in memory; drives the backoff). */
  #failures = 0;

  // ---- storage, index, alarm --------------------------------------------------------------------

  /** Saves one transition: its record and its event. */
  #step(before: LeaseRecord, step: Step, now: number): LeaseRecord {
    return this.#save(before, step.next, step.effect, now);
  }

  /** Writes `after` over `before` (which must be the stored record) and returns what was stored. */
  #save(before: LeaseRecord, after: LeaseRecord, effect: Effect | null, now: number): LeaseRecord {
    this.#failures = failuresAfter(before, after, this.#failures);
    const stored = this.#store.save(before, after, effect, now);
    if (effect) this.#out.appended(stored);
    return stored;
  }

  /** Reserves `need` against the org's caps: null when admitted, the 402 when refused. */
  async #reserve(l: LeaseRecord, need: Reservation, now: number): Promise<ApiError | null> {
    try {
      await reserveBudget(this.env.DB, database(this.env.DB), { lease_id: l.id, org_id: l.org_id, need }, now);
      return null;
    } catch (e) {
      if (e instanceof ApiError && e.status === 402) return e;
      throw e;
    }
  }

  /** Writes through to the D1 index when it is behind, then sets the one alarm; answers the lease it read. */
  async #finish(now: number): Promise<LeaseRecord | null> {
    const l = this.#store.load();
    if (!l) return null;
    let next = alarmAt(l, now, this.#facts());
    next ??= this.#logsExpireAt(l); // a released lease's one alarm left: deleting its log
    const { version, index_version } = this.#store.versions();
    if (index_version < version) {
      try {
        // What a released lease holds against the caps becomes what it accrued, before the index says released.
        const hold = releasedHold(l, now);
        if (hold) await settleReservation(this.env.DB, { lease_id: l.id, org_id: l.org_id, settled: hold }, now);
        await writeLeaseIndex(database(this.env.DB), l, next, now);
        this.#store.markIndexed(version);
      } catch (e) {
        console.error(JSON.stringify({ msg: "lease index write failed; will retry", lease: l.id, error: failureOf(e).text }));
        next = indexRetryAt(next, now);
      }
    }
    try {
      await this.#out.forward(l.org_id, l.id);
    } catch (e) {
      console.error(JSON.stringify({ msg: "lease events not forwarded to the org; will retry", lease: l.id, error: failureOf(e).text }));
      next = indexRetryAt(next, now);
    }
    if (l.state === "released") {
      // Every stream of the lease ends: its events' and its log's.
      this.#out.released();
      this.#occupant?.released();
    }
    if (this.env.LESSOR_DEV_DISABLE_ALARMS !== "1") {
      if (next === null) await this.ctx.storage.deleteAlarm();
      else await this.ctx.storage.setAlarm(next);
    }
    return l;
  }

  // ---- the provider ---------------------------------------------------------------------------

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

  /** Throws when the key in use is not the account that created the machine: its absence proves nothing. */
  #sameAccount(l: LeaseRecord, account: string): void {
    const mismatch = accountMismatch(l, account);
    if (mismatch) throw new ProviderError(l.provider, "auth", mismatch);
  }

  #installation(): string {
    return installationId(this.env);
  }

  // ---- the machine agent (src/occupant/, docs/agent.md) ---------------------------------------

  #occupant: Occupant | null = null;

  /**
   * The agent's side of this lease, or null when there is no lease (no storage is made for it).
   * Leases are never deleted: once made, it is kept without asking the store again.
   */
  #agent(): Occupant | null {
    if (this.#occupant) return this.#occupant;
    if (!this.#store.exists()) return null;
    return (this.#occupant = new Occupant(this.ctx.storage));
  }

  /** A new lease token for the machine (the one before stops working), shown once; null: no lease. */
  async mintAgentToken(): Promise<string | "released" | null> {
    const l = this.#store.load();
    if (!l) return null;
    if (l.state === "released") return "released";
    return this.#agent()!.mint(Date.now());
  }

  /** What the lease's rules read of the agent (nothing for a lease that does not exist yet). */
  #facts(): AgentFacts {
    return this.#agent()?.facts() ?? NO_AGENT;
  }

  /**
   * One call of the lease's agent, authenticated by its lease token. An exit is acted on at once:
   * the run loop is poked (on_exit, or the release after lessor's own TERM or KILL); a stall's
   * diagnostics are attached to an event when they come back.
   */
  async agentCall(token: string, call: AgentCall): Promise<AgentAnswer> {
    const agent = this.#agent();
    if (!agent) return REFUSED;
    const answer = await agent.call(() => this.#store.state(), token, call);
    if (answer.ok && answer.op === "result" && answer.recorded) await this.#attachDiagnostics(answer.command.id);
    else if (answer.ok && answer.op !== "commands") await this.#bringAlarmForward(agent);
    return answer;
  }

  /**
   * An agent's report can bring a rule due sooner (an exit, at once) or start a new wait (output
   * after a stall, a heartbeat after a silence): the alarm moves earlier when the rules say so.
   * It never moves later here, and takes no writer lock (a busy run must not slow the agent's
   * calls); the run sets the alarm again when it ends.
   */
  async #bringAlarmForward(agent: Occupant): Promise<void> {
    if (this.env.LESSOR_DEV_DISABLE_ALARMS === "1") return;
    const l = this.#store.load();
    if (!l) return;
    const now = Date.now();
    const next = alarmAt(l, now, agent.facts());
    if (next === null) return;
    const current = await this.ctx.storage.getAlarm();
    if (current === null || next < current) await this.ctx.storage.setAlarm(next);
  }

  async #attachDiagnostics(commandId: string): Promise<void> {
    await this.#exclusive(async () => {
      const l = this.#store.load();
      const command = this.#agent()?.command(commandId);
      if (!l || l.job?.diagnostics_id !== commandId || !command) return;
      const now = Date.now();
      this.#save(l, { ...l }, { event: "diagnostics", detail: { command_id: commandId, exit_code: command.exit_code, output: boundedDiagnostics(command.output ?? "") } }, now);
      await this.#finish(now);
    });
  }

  /**
   * Ends the lease's command (docs/design.md "The command"): TERM, up to `timeoutMs` for the exit,
   * then KILL and as long again when `escalate`. Idempotent; null: no such lease for this org.
   */
  async kill(orgId: string, opts: { timeout_ms: number; escalate: boolean }): Promise<KillOutcome | null> {
    const l = this.#leaseOf(orgId);
    if (!l) return null;
    const agent = this.#agent()!;
    const start = killStart(l, agent.facts(), Date.now());
    if (start !== "signal") return start;
    for (const signal of opts.escalate ? (["TERM", "KILL"] as const) : (["TERM"] as const)) {
      if (!agent.queue({ kind: "signal", signal }, Date.now())) return "unknown";
      if (await this.#exitWithin(agent, opts.timeout_ms)) return "stopped";
    }
    return "still_alive";
  }

  /**
   * Whether the agent reports an exit (or the lease stops holding a running machine) within `ms`.
   * An exit wakes it at once; the lease itself is read again every KILL_RECHECK_MS.
   */
  async #exitWithin(agent: Occupant, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      const l = this.#store.load();
      if (!l || killStart(l, agent.facts(), Date.now()) === "stopped") return true;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await agent.awaitExit(Math.min(KILL_RECHECK_MS, left));
    }
  }

  /** Queues an exec or signal for the machine (`orgId` null: the operator); null: no such lease (or another org's); "full": too many open. */
  queueAgentCommand(orgId: string | null, command: NewCommand): CommandView | "full" | "released" | null {
    const l = this.#store.load();
    if (!l || (orgId !== null && l.org_id !== orgId)) return null;
    if (l.state === "released") return "released";
    return this.#agent()!.queue(command, Date.now()) ?? "full";
  }

  // ---- the user's side of the agent: logs and exec (docs/agent.md "The user's side") -------

  /** The log's last `lines` lines (null: all of it); null: no such lease (or another org's). */
  logTail(orgId: string, lines: number | null): { text: string; log_bytes: number; dropped_bytes: number } | { expired_at: string } | null {
    if (!this.#leaseOf(orgId)) return null;
    const expired = this.#expired();
    return expired === null ? this.#agent()!.tail(lines) : { expired_at: new Date(expired).toISOString() };
  }

  /** A follow of the log after chunk `after` (-1: from its start), as Server-Sent Events; null: no such lease. */
  followLog(orgId: string, after: number): ReadableStream<Uint8Array> | { expired_at: string } | null {
    if (!this.#leaseOf(orgId)) return null;
    const expired = this.#expired();
    if (expired !== null) return { expired_at: new Date(expired).toISOString() };
    this.#use(orgId);
    const released = () => this.#store.state() === "released";
    return overRpc(this.#agent()!.follow(after, released, () => this.#use(orgId)));
  }

  /**
   * Queues an exec and waits for its result at most `timeoutMs`, the lease's ttl and
   * EXEC_MAX_WAIT_MS (exec.ts `execWaitMs`); the exec as it is then. null: no such lease.
   */
  async exec(orgId: string, cmd: string, timeoutMs: number): Promise<ExecView | "full" | "released" | null> {
    const queued = this.queueAgentCommand(orgId, { kind: "exec", cmd });
    if (queued === null || typeof queued === "string") return queued;
    this.#use(orgId);
    const maxMs = intSetting(this.env.LESSOR_EXEC_MAX_WAIT_MS, EXEC_MAX_WAIT_MS);
    const waitMs = execWaitMs(timeoutMs, this.#store.load()!.ttl_deadline, Date.now(), maxMs);
    const done = await this.#agent()!.awaitCommand(queued.id, waitMs);
    return execView(done ?? queued);
  }

  /** One exec of the lease's, as it is now; null: no such lease, or no such exec. */
  execResult(orgId: string, execId: string): ExecView | null {
    if (!this.#leaseOf(orgId)) return null;
    const c = this.#agent()!.command(execId);
    return c && c.kind === "exec" ? execView(c) : null;
  }

  /** When the released lease's log is to be deleted (logs.ts `logsExpireAt`); null: not released, or deleted already. */
  #logsExpireAt(l: LeaseRecord): number | null {
    const at = logsExpireAt(l);
    return at === null || this.#agent()!.expiredAt() !== null ? null : at;
  }

  /** Deletes the log once it is due (level-triggered: whatever woke the alarm). */
  #expireLogs(now: number): void {
    const l = this.#store.load();
    const at = l ? this.#logsExpireAt(l) : null;
    if (at !== null && now >= at) this.#agent()!.expire(now);
  }

  /** The log deleted after the lease's retention: when; null while it is kept. */
  #expired(): number | null {
    return this.#agent()!.expiredAt();
  }

  /** When a user's exec or follow last counted as the lease's activity (in memory). */
  #usedAt = 0;

  /** An exec or a follow is the lease's use, as a user's heartbeat is: recorded at most every USE_EVERY_MS. */
  #use(orgId: string): void {
    const now = Date.now();
    if (now - this.#usedAt < USE_EVERY_MS) return;
    this.#usedAt = now;
    // Not valid in every state (a stopped lease is not made busy by reading its log): refused then.
    this.ctx.waitUntil(this.act(orgId, "heartbeat").catch(() => undefined));
  }

  /** What the agent reported, never the token (`orgId` null: the operator); null: no such lease (or another org's). */
  agentSnapshot(orgId: string | null): AgentSnapshot | null {
    const l = this.#store.load();
    if (!l || (orgId !== null && l.org_id !== orgId)) return null;
    return this.#agent()!.snapshot();
  }
}

/** Ends a run early; the alarm set in `finally` resumes it. */
class StopRun extends Error {}

const canStop = (provider: string) => providerCapabilities(provider).stop;
