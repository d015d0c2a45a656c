/**
 * The lease object's side of its machine agent (src/occupant/, docs/agent.md): the lease token,
 * the agent's calls, a kill, queued commands, and the user's side (the log and exec). The object
 * (object.ts) forwards each of these RPCs here in one line; this reads the lease's storage and
 * writes through the object's lock, and every rule it follows is pure (command.ts, exec.ts,
 * logs.ts, decide.ts `alarmAt`).
 */
import { intSetting, type Env } from "../env";
import { EXEC_MAX_WAIT_MS, execView, execWaitMs, type ExecView } from "../occupant/exec";
import { USE_EVERY_MS } from "../occupant/follow";
import { logsExpireAt } from "../occupant/logs";
import { Occupant, REFUSED, type AgentAnswer, type AgentCall, type AgentRefusal, type AgentSnapshot, type CommandView, type NewCommand } from "../occupant/occupant";
import { AgentBudget, type AgentLimits } from "../occupant/agent-budget";
import { enrollOpenUntil } from "../occupant/token";
import { agentPollClaim, slotRefused, type HeldSlots, type SlotClaim, type SlotRefusal } from "../auth/stream-slots";
import { isSimulatedCloud } from "../providers/names";
import { alarmAt } from "./decide";
import { killStart, type KillOutcome } from "./command";
import { boundedList, excerpt, EXCERPTS, PATH_LIST } from "./excerpt";
import type { Effect } from "./transitions";
import type { LeaseRecord } from "./state";
import type { LeaseStore } from "./store";
import { overRpc } from "../events/sse";

/** How often a kill waiting for the exit reads the lease again (it may stop holding a running machine meanwhile). */
const KILL_RECHECK_MS = 1_000;

/** What the agent's side needs of its object. */
export interface OccupantHost {
  /** Runs `work` under the object's writer lock. */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  /** Writes `after` over the stored `before` with its event (LeaseRunner `save`). */
  save(before: LeaseRecord, after: LeaseRecord, effect: Effect | null, now: number): LeaseRecord;
  /** Writes the index and sets the one alarm. */
  finish(now: number): Promise<unknown>;
  /** Moves the alarm to `at` if it is set later (or not set); never later. */
  bringAlarmForward(at: number): Promise<void>;
  /** Counts as the lease's use, as a user's heartbeat does (refused where a heartbeat is). */
  heartbeat(orgId: string): void;
  /** The model server's metrics showed requests: the machine's word, recorded apart (transitions.ts `machineActive`). */
  machineActivity(): void;
  /** A command was queued for the lease's machine: its provider is told (LeaseRunner `commandQueued`). */
  commandQueued(l: LeaseRecord): void;
  /** Runs `work` after the current change, beside the request (the object's waitUntil). */
  later(work: () => Promise<unknown>): void;
}

export class OccupantSide {
  readonly #store: LeaseStore;
  readonly #storage: DurableObjectStorage;
  readonly #env: Env;
  readonly #host: OccupantHost;
  readonly #slots: HeldSlots;
  /** The lease token's budgets (in memory, like an API key's). */
  readonly #budget = new AgentBudget();
  /** When the object started (made with it): heartbeats it did not hear came before (src/occupant/heartbeat.ts). */
  readonly #startedAt = Date.now();
  #occupant: Occupant | null = null;

  constructor(store: LeaseStore, storage: DurableObjectStorage, env: Env, slots: HeldSlots, host: OccupantHost) {
    this.#store = store;
    this.#storage = storage;
    this.#env = env;
    this.#slots = slots;
    this.#host = host;
  }

  /**
   * The agent's side of this lease, or null when there is no lease (no storage is made for it).
   * Leases are never deleted: once made, it is kept without asking the store again.
   */
  occupant(): Occupant | null {
    if (this.#occupant) return this.#occupant;
    if (!this.#store.exists()) return null;
    return (this.#occupant = new Occupant(this.#storage, this.#startedAt));
  }

  /**
   * The lease as `orgId` may drive its agent; null: no such lease (or another org's). `null` for
   * `orgId` is the installation's operator (the sim's test routes, bootstrap token), who drives
   * only a lease on the simulated cloud: never a machine of an org's own provider account
   * (docs/security.md, hardening item 14). Read in the same turn as the call it guards, so a
   * lease that moved to another provider since is refused.
   */
  #drivable(orgId: string | null): LeaseRecord | "not_sim" | null {
    const l = this.#store.loadFor(orgId);
    if (l && orgId === null && !isSimulatedCloud(l.provider)) return "not_sim";
    return l;
  }

  /**
   * A new lease token for the machine (the one before stops working), shown once, for the
   * operator; null: no lease.
   */
  async mintAgentToken(): Promise<string | "released" | "not_sim" | null> {
    const l = this.#drivable(null);
    if (l === null || l === "not_sim") return l;
    if (l.state === "released") return "released";
    return this.occupant()!.mint(Date.now());
  }

  /**
   * A new enrollment token for the machine, open as a create's is (the lease token before stops
   * working), shown once, for the operator and a lease on the sim only; null: no lease.
   */
  async mintEnrollToken(): Promise<string | "released" | "not_sim" | null> {
    const l = this.#drivable(null);
    if (l === null || l === "not_sim") return l;
    if (l.state === "released") return "released";
    const now = Date.now();
    return this.occupant()!.mintEnrollment(enrollOpenUntil(l.policy.boot_timeout, now));
  }

  /**
   * One call of the lease's agent, authenticated by its lease token. An exit is acted on at once:
   * the run loop is poked (on_exit, or the release after lessor's own TERM or KILL); a stall's
   * diagnostics are attached to an event when they come back.
   */
  async agentCall(token: string, call: AgentCall, limits?: AgentLimits): Promise<AgentAnswer> {
    const agent = this.occupant();
    if (!agent) return REFUSED;
    const answer = await agent.call(() => this.#store.state(), token, call, limits && ((c) => this.#admit(c, limits)));
    // Requests the model server had that did not pass through the gateway: use as the machine
    // reports it, which counts only within the org's ceiling (decide.ts `machineUseUntil`).
    if (answer.ok && answer.op === "heartbeat" && answer.model_activity === "active") this.#host.machineActivity();
    if (answer.ok && answer.op === "storage") return { ...answer, org_id: this.#store.load()!.org_id };
    if (answer.ok && (answer.op === "outputs" || answer.op === "stored")) {
      if (answer.outputs.missing_count === 0) await this.#outputsEvent();
      return answer;
    }
    if (answer.ok && answer.op === "result" && answer.recorded) await this.#attachDiagnostics(answer.command.id);
    // A `collect` answered ends a release's wait for the outputs (decide.ts `outputsSettled`).
    if (answer.ok && answer.op !== "commands" && (answer.op !== "result" || answer.command.kind === "collect")) await this.#bringAlarmForward(agent);
    return answer;
  }

  /**
   * A call whose token is good, within the lease token's budgets; a long poll also holds one of
   * the lease's and the org's agent-poll slots while it waits, given back when it ends.
   */
  async #admit(call: AgentCall, limits: AgentLimits): Promise<AgentRefusal | (() => void) | null> {
    const refused = this.#budget.spend(call, limits, Date.now());
    if (refused || call.op !== "commands" || call.wait_ms <= 0) return refused;
    const l = this.#store.load()!;
    const release = await this.#slots.take(agentPollClaim(l.org_id, l.id, limits.polls_per_org));
    if (typeof release === "function") return release;
    const e = slotRefused(release);
    return { ok: false, status: 429, code: e.code, message: e.message, details: e.details, retry_after_s: Number(e.headers["Retry-After"]) };
  }

  /**
   * An agent's report can bring a rule due sooner (an exit, at once) or start a new wait (output
   * after a stall, a heartbeat after a silence): the alarm moves earlier when the rules say so.
   * It never moves later here, and takes no writer lock (a busy run must not slow the agent's
   * calls); the run sets the alarm again when it ends.
   */
  async #bringAlarmForward(agent: Occupant): Promise<void> {
    const l = this.#store.load();
    if (!l) return;
    const next = alarmAt(l, Date.now(), agent.facts());
    if (next !== null) await this.#host.bringAlarmForward(next);
  }

  async #attachDiagnostics(commandId: string): Promise<void> {
    await this.#host.exclusive(async () => {
      const l = this.#store.load();
      const command = this.occupant()?.command(commandId);
      if (!l || l.job?.diagnostics_id !== commandId || !command) return;
      const now = Date.now();
      this.#host.save(l, { ...l }, { event: "diagnostics", detail: { command_id: commandId, exit_code: command.exit_code, output: excerpt(command.output ?? "", EXCERPTS.diagnostics).text } }, now);
      await this.#host.finish(now);
    });
  }

  /**
   * Ends the lease's command (docs/design.md "The command"): TERM, up to `timeoutMs` for the exit,
   * then KILL and as long again when `escalate`. Idempotent; null: no such lease for this org.
   */
  async kill(orgId: string, opts: { timeout_ms: number; escalate: boolean }): Promise<KillOutcome | null> {
    const l = this.#store.loadFor(orgId);
    if (!l) return null;
    const agent = this.occupant()!;
    const start = killStart(l, agent.facts(), Date.now());
    if (start !== "signal") return start;
    for (const signal of opts.escalate ? (["TERM", "KILL"] as const) : (["TERM"] as const)) {
      if (!agent.queue({ kind: "signal", signal }, Date.now())) return "unknown";
      this.#host.commandQueued(l);
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

  /**
   * Queues an exec or signal for the machine (`orgId` null: the operator, on the sim only); null:
   * no such lease (or another org's); "full": too many open.
   */
  queueAgentCommand(orgId: string | null, command: NewCommand): CommandView | "full" | "released" | "not_sim" | null {
    const l = this.#drivable(orgId);
    if (l === null || l === "not_sim") return l;
    return this.#queue(l, command);
  }

  #queue(l: LeaseRecord, command: NewCommand): CommandView | "full" | "released" {
    if (l.state === "released") return "released";
    const queued = this.occupant()!.queue(command, Date.now());
    if (!queued) return "full";
    this.#host.commandQueued(l);
    return queued;
  }

  // ---- the user's side of the agent: logs and exec (docs/agent.md "The user's side") -------

  /** The log's last `lines` lines (null: all of it); null: no such lease (or another org's). */
  logTail(orgId: string, lines: number | null): { text: string; log_bytes: number; dropped_bytes: number } | { expired_at: string } | null {
    if (!this.#store.loadFor(orgId)) return null;
    const expired = this.#expired();
    return expired === null ? this.occupant()!.tail(lines) : { expired_at: new Date(expired).toISOString() };
  }

  /**
   * A follow of the log after chunk `after` (-1: from its start), as Server-Sent Events, holding a
   * slot of `claim` while open; null: no such lease; a refusal: no slot. Following is not use: a
   * log left open in a tab would keep an idle machine billing (docs/security.md "Idle is not
   * decided by the machine alone"), so neither the follow nor its keep-alives are activity.
   */
  async followLog(orgId: string, after: number, claim: SlotClaim): Promise<ReadableStream<Uint8Array> | { expired_at: string } | SlotRefusal | null> {
    if (!this.#store.loadFor(orgId)) return null;
    const expired = this.#expired();
    if (expired !== null) return { expired_at: new Date(expired).toISOString() };
    const release = await this.#slots.take(claim);
    if (typeof release !== "function") return release;
    const released = () => this.#store.state() === "released";
    return overRpc(this.occupant()!.follow(after, released, () => undefined), release);
  }

  /**
   * Queues an exec and waits for its result at most `timeoutMs`, the lease's ttl and
   * EXEC_MAX_WAIT_MS (exec.ts `execWaitMs`); the exec as it is then. null: no such lease.
   */
  async exec(orgId: string, cmd: string, timeoutMs: number): Promise<ExecView | "full" | "released" | null> {
    const l = this.#store.loadFor(orgId);
    if (!l) return null;
    const queued = this.#queue(l, { kind: "exec", cmd });
    if (typeof queued === "string") return queued;
    this.#use(orgId);
    const maxMs = intSetting(this.#env.LESSOR_EXEC_MAX_WAIT_MS, EXEC_MAX_WAIT_MS);
    const waitMs = execWaitMs(timeoutMs, this.#store.load()!.ttl_deadline, Date.now(), maxMs);
    const done = await this.occupant()!.awaitCommand(queued.id, waitMs);
    return execView(done ?? queued);
  }

  /** One exec of the lease's, as it is now; null: no such lease, or no such exec. */
  execResult(orgId: string, execId: string): ExecView | null {
    if (!this.#store.loadFor(orgId)) return null;
    const c = this.occupant()!.command(execId);
    return c && c.kind === "exec" ? execView(c) : null;
  }

  /** What the agent reported, never the token (`orgId` null: the operator); null: no such lease (or another org's). */
  agentSnapshot(orgId: string | null): AgentSnapshot | "not_sim" | null {
    const l = this.#drivable(orgId);
    if (l === null || l === "not_sim") return l;
    return this.occupant()!.snapshot();
  }

  /** When the released lease's log is to be deleted (logs.ts `logsExpireAt`); null: not released, or deleted already. */
  logsExpireAt(l: LeaseRecord): number | null {
    const at = logsExpireAt(l);
    return at === null || this.occupant()!.expiredAt() !== null ? null : at;
  }

  /** Deletes the log once it is due (level-triggered: whatever woke the alarm). */
  expireLogs(now: number): void {
    const l = this.#store.load();
    const at = l ? this.logsExpireAt(l) : null;
    if (at !== null && now >= at) this.occupant()!.expire(now);
  }

  /**
   * The lease is released: every follow of its log ends, and a manifest not yet all stored is
   * told of (`outputs_incomplete`) once the change that released it is done.
   */
  released(): void {
    this.#occupant?.released();
    if (this.#occupant?.outputsPending() || this.#waitedWithoutManifest()) this.#host.later(() => this.#outputsEvent());
  }

  /** The release waited for the outputs and no manifest came (it is told, as `outputs_incomplete`). */
  #waitedWithoutManifest(): boolean {
    const l = this.#store.load();
    return !!l?.outputs_wait && this.occupant()?.outputs() === null;
  }

  /**
   * The lease's one event about its outputs (docs/artifacts.md): `outputs_uploaded` when every
   * file of the manifest is stored, or `outputs_incomplete` with what is missing (a bounded list,
   * excerpt.ts `PATH_LIST`) when the lease is released without them, whichever comes first.
   */
  async #outputsEvent(): Promise<void> {
    await this.#host.exclusive(async () => {
      const l = this.#store.load();
      const agent = this.occupant();
      const waited = !!l?.outputs_wait && l.state === "released";
      const o = agent?.outputs(PATH_LIST.items) ?? (waited ? null : undefined);
      if (!l || !agent || o === undefined || (o !== null && o.missing_count > 0 && l.state !== "released") || !agent.claimOutputsEvent()) return;
      const now = Date.now();
      const effect =
        o === null
          ? { event: "outputs_incomplete", detail: { missing: [], missing_count: 0, files: 0, bytes: 0, manifest: false } }
          : o.missing_count === 0
            ? { event: "outputs_uploaded", detail: { files: o.files, bytes: o.bytes } }
            : { event: "outputs_incomplete", detail: { missing: boundedList(o.missing), missing_count: o.missing_count, files: o.files, bytes: o.bytes } };
      this.#host.save(l, { ...l }, effect, now);
      await this.#host.finish(now);
    });
  }

  /** The log deleted after the lease's retention: when; null while it is kept. */
  #expired(): number | null {
    return this.occupant()!.expiredAt();
  }

  /** When a user's exec last counted as the lease's activity (in memory). */
  #usedAt = 0;

  /** An exec is the lease's use, as a user's heartbeat is: recorded at most every USE_EVERY_MS. */
  #use(orgId: string): void {
    const now = Date.now();
    if (now - this.#usedAt < USE_EVERY_MS) return;
    this.#usedAt = now;
    // Not valid in every state (a stopped lease is not made busy by reading its log): refused then.
    this.#host.heartbeat(orgId);
  }
}
