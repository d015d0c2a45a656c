/**
 * The lease's run loop: what its object (object.ts) does when the alarm or the cron pokes it. It
 * acts level-triggered: each run reads the machine back from the provider, asks decide.ts
 * `nextMove`, and carries out one action at a time, calling the provider and storing what the pure
 * rules (transitions.ts, provision.ts, retry.ts) return. A create whose outcome is unknown is never
 * retried blindly: the next run lists the provider by the lease's label first (guarantee 2), and
 * every provision and release lists by label, so a lease never keeps two machines (guarantee 1).
 * It runs inside the object's writer lock; the object sets the alarm and writes the index after.
 */
import { installationId } from "../config";
import { database } from "../db";
import type { Env } from "../env";
import { agentAccess } from "../providers/agent-start";
import { modelServerCommand } from "../providers/model-server";
import { MODEL_PORT, ProviderError, type Machine, type MachineEndpoint, type Provider } from "../providers/contract";
import { providerCapabilities, providerWithAccount } from "../providers/registry";
import { reserveBudget } from "../billing/budget";
import type { Reservation } from "../billing/ceiling";
import { ApiError } from "../errors";
import type { Occupant } from "../occupant/occupant";
import { enrollOpenUntil } from "../occupant/token";
import { collectsOutputs, nextMove, outputsWaitFrom, type Decision } from "./decide";
import { probeModelServer } from "./model-probe";
import { DIAGNOSTICS_CMD } from "./command";
import { excerpt, EXCERPTS } from "./excerpt";
import {
  agentSilent, markExited, markReady, markStopped, observationChanged, observed, outputsRequested, releaseDecided, released, releaseStarted, signalQueued, stalled, started,
  stopFailed, stopIssued, stopRequested, type Effect, type Step,
} from "./transitions";
import { leasePrefix } from "./label";
import {
  accountMismatch, adoption, aliveOf, budgetRefused, created, createFailed, destroyFirst, gpusHeld,
  hostReplaced, isAlive, misplacement, observationOf, quotaRefused, rentedReserve, rentPlan, writeAhead,
} from "./provision";
import { growGpuHold } from "./quota-repo";
import { rentedReservation } from "./rent";
import { backoff, failureOf, failuresAfter } from "./retry";
import { badHostMark, badHostTtlMs, DEFAULT_BAD_HOST_TTL_MS } from "./bad-host";
import { recordBadHost, tellBadHost } from "../catalog/bad-hosts";
import { restartEnv, restartScheduled } from "./recovery";
import type { Recoverable } from "./policy";
import { beginRelease } from "./transitions";
import { machined, NO_AGENT, type AgentFacts, type KillCause, type LeaseRecord, type MachinedLease, type Observation, type Reason } from "./state";
import type { LeaseStore } from "./store";

/** At most this many actions in one run; the alarm picks up the rest. */
const MAX_STEPS = 12;

/** Whether a provider can stop a machine (and keep its disk); the pure rules take it as a function. */
export const canStop = (provider: string) => providerCapabilities(provider).stop;

/** What the runner needs of its object, beyond the lease's storage. */
export interface RunnerHost {
  /** A stored event goes out to open streams and the org's log. */
  appended(stored: LeaseRecord): void;
  /** The agent's side of the lease (null: no lease yet). */
  occupant(): Occupant | null;
  /** Writes the index and sets the one alarm; every run ends with it, in `finally`. */
  finish(now: number): Promise<unknown>;
  /** When each gateway request now in flight began. */
  inFlight(): number[];
  /** When the last gateway request ended, if that is not yet written (null: nothing waiting). */
  gatewayEndedAt(): number | null;
}

export class LeaseRunner {
  readonly #store: LeaseStore;
  readonly #env: Env;
  readonly #host: RunnerHost;

  constructor(store: LeaseStore, env: Env, host: RunnerHost) {
    this.#store = store;
    this.#env = env;
    this.#host = host;
  }

  /** One run of the policy, under the object's writer lock. */
  async run(): Promise<void> {
    const obs: Observation = { machine: undefined };
    this.#providers.clear();
    try {
      for (let step = 0; step < MAX_STEPS; step++) {
        const now = Date.now();
        const l = this.#store.load();
        obs.agent = this.facts();
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
      await this.#host.finish(Date.now());
    }
  }

  /** What the lease's rules read of the agent (nothing for a lease that does not exist yet), and of the gateway's requests. */
  facts(): AgentFacts {
    return { ...(this.#host.occupant()?.facts() ?? NO_AGENT), in_flight: this.#host.inFlight(), gateway_ended_at: this.#host.gatewayEndedAt() };
  }

  /**
   * How the gateway reaches the model server of a ready lease (null: the provider publishes no way
   * there). Kept per machine: asking the provider at every request would spend its rate limit.
   */
  async modelEndpoint(l: MachinedLease): Promise<MachineEndpoint | null> {
    if (this.#endpoint?.machine_id === l.machine_id) return this.#endpoint.endpoint;
    const { provider } = await this.#providerAccount(l);
    const m = await provider.getMachine(l.machine_id);
    const endpoint = m && provider.endpoint ? await provider.endpoint(m, MODEL_PORT) : null;
    if (endpoint) this.#endpoint = { machine_id: l.machine_id, endpoint };
    return endpoint;
  }

  #endpoint: { machine_id: string; endpoint: MachineEndpoint } | null = null;

  /** Saves one transition: its record and its event. */
  step(before: LeaseRecord, step: Step, now: number): LeaseRecord {
    return this.save(before, step.next, step.effect, now);
  }

  /**
   * Writes `after` over `before` (which must be the stored record) and returns what was stored.
   * The backoff starts over only once a change of state is stored: a write that fails is a failed
   * step like any other, and its retries back off (retry.ts).
   */
  save(before: LeaseRecord, after: LeaseRecord, effect: Effect | null, now: number): LeaseRecord {
    // A release that will not wait for the outputs says so in its first write (transitions.ts `releaseDecided`).
    const decided = after.state === "releasing" && after.outputs_wait === undefined ? releaseDecided(after, this.facts(), now) : after;
    const stored = this.#store.save(before, decided, effect, now);
    this.#failures = failuresAfter(before, stored, this.#failures);
    if (effect) this.#host.appended(stored);
    return stored;
  }

  /** Reserves `need` against the org's caps: null when admitted, the 402 when refused. */
  async reserve(l: LeaseRecord, need: Reservation, now: number): Promise<ApiError | null> {
    try {
      await reserveBudget(this.#env.DB, database(this.#env.DB), { lease_id: l.id, org_id: l.org_id, need }, now);
      return null;
    } catch (e) {
      if (e instanceof ApiError && e.status === 402) return e;
      throw e;
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
      // A deployment is ready when its model answers, not when its machine runs (model-probe.ts).
      if (l.model && l.state === "booting" && obs.machine?.status === "running") Object.assign(obs, await probeModelServer(provider, obs.machine, l.model));
      const read = observed(l, obs.machine ? obs.machine.status : "terminated", now);
      if (observationChanged(l, read)) this.save(l, read, null, now);
      else this.#store.holdObserved(now);
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
        return void this.step(l, markExited(l, obs.agent!.exit!), now);
      case "signal": {
        const queued = this.#host.occupant()!.queue({ kind: "signal", signal: d.signal! }, now);
        if (!queued) {
          this.#backoff(new Error("the agent's command queue is full"), now, "signal_failed");
          throw new StopRun();
        }
        return void this.step(l, signalQueued(l, d.signal!, d.reason as KillCause, queued.id, now), now);
      }
      case "diagnose": {
        const queued = this.#host.occupant()!.queue({ kind: "exec", cmd: DIAGNOSTICS_CMD }, now);
        return void this.step(l, stalled(l, d.since!, queued?.id ?? null, now), now);
      }
      case "report_silent":
        return void this.step(l, agentSilent(l, d.since!), now);
      case "mark_ready":
        return void this.step(l, markReady(machined(l), now), now);
      case "mark_stopped":
        return void this.step(l, markStopped(machined(l), d.reason, now), now);
      case "reserve":
        return this.#reserveRented(l, now);
    }
    try {
      const { provider, account } = await this.#providerAccount(l);
      switch (d.action) {
        case "provision":
          return await this.#provision(l, provider, account, now);
        case "stop":
          return await this.#stop(machined(l), provider, d.reason, now);
        case "start": {
          // The machine's agent runs again, and enrolls again (token.ts `mayEnroll`).
          this.#host.occupant()!.reopenEnrollment(enrollOpenUntil(l.policy.boot_timeout, now));
          await provider.startMachine(machined(l).machine_id);
          return void this.step(l, started(machined(l), now), now);
        }
        case "replace_host":
          return await this.#replaceHost(l, provider, d.reason!, obs, now);
        case "recover":
          return await this.#recover(l, provider, d.reason as Recoverable, obs, now);
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
      return void this.step(l, found.step, now);
    }
    const plan = rentPlan(l, now);
    if ("release" in plan) return void this.step(l, plan.release, now);
    const { offer, reserve, gpus } = plan;
    // Rented only within what the lease holds against its org's caps: more is reserved first.
    const refused = reserve ? await this.reserve(l, reserve, now) : null;
    if (refused) return void this.step(l, budgetRefused(l, offer, refused.details, now), now);
    // And within its GPU quota: a fallback host with more GPUs is admitted for them first.
    if (gpus !== null) {
      const overQuota = await growGpuHold(this.#env.DB, database(this.#env.DB), { lease_id: l.id, org_id: l.org_id, kind: l.kind, gpus }, now);
      if (overQuota) return void this.step(l, quotaRefused(l, offer, overQuota, now), now);
      l = gpusHeld(l, gpus);
    }
    const ahead = writeAhead(l, offer, reserve, this.#installation(), now);
    const before = this.save(l, ahead.next, ahead.effect, now);
    let m: Machine;
    let after: LeaseRecord;
    try {
      // Each machine gets an enrollment of its own, never the lease token (docs/agent.md "The
      // token"); the token of the machine before stops working.
      const enroll = await this.#host.occupant()!.mintEnrollment(enrollOpenUntil(l.policy.boot_timeout, now));
      const agent = agentAccess(this.#env, l.id, enroll) ?? undefined;
      m = await provider.createMachine({
        label: before.label!, offer_id: offer.provider_offer_id, image: l.image ?? undefined, agent,
        // A deployment runs its provider's model server (its own cmd, where a caller of createLease named one), which requires the machine's own key and serves on MODEL_PORT.
        ...(l.model
          ? { cmd: l.cmd ?? modelServerCommand(offer.provider, { model: l.model.id, engine_args: l.model.engine_args }), env: { ...l.env, LESSOR_MODEL_KEY: l.model.key }, ports: [MODEL_PORT] }
          : { cmd: l.cmd ?? undefined, env: withRestart(l.env ?? null, restartEnv(l)) }),
        ...(l.volumes?.length ? { volumes: l.volumes.map((v) => ({ id: v.provider_volume_id, path: v.path })) } : {}),
        // A spot offer is rented interruptible, at most at the price its reservation holds.
        ...(offer.spot ? { bid_usd: offer.hourly_usd } : {}),
      });
      after = this.step(before, created(before, m, offer, provider.name, account, now), now);
    } catch (e) {
      const outcome = createFailed(before, offer, failureOf(e), canStop, now);
      this.save(before, outcome.next, outcome.effect, now);
      if (outcome.rethrow) throw e;
      return;
    }
    // Where the machine landed, read back; outside the lease's regions it is replaced.
    const landed = m.region ? m : ((await provider.getMachine(m.id).catch(() => null)) ?? m);
    const why = misplacement(l, landed);
    if (why) return this.#replaceHost(after, provider, "host_failed", { machine: landed }, now, why);
  }

  /**
   * The machine rents above what the lease holds: its price re-reserved against the org's caps, or
   * the lease released (`budget_exceeded`) before it goes on (rent.ts `rentedAboveReserved`).
   */
  async #reserveRented(l: LeaseRecord, now: number): Promise<void> {
    const need = rentedReservation(l, now);
    if (!need) return;
    try {
      const refused = await this.reserve(l, need, now);
      this.step(l, rentedReserve(l, need, refused?.details ?? null, now), now);
    } catch (e) {
      this.#backoff(e, now, "reserve_failed");
      throw new StopRun();
    }
  }

  /** Destroys the machine first, confirms it is gone, and only then rents another (guarantee 1). */
  async #replaceHost(l: LeaseRecord, provider: Provider, reason: Reason, obs: Observation, now: number, why: Record<string, unknown> = {}): Promise<void> {
    if (destroyFirst(l, obs)) {
      await provider.destroyMachine(l.machine_id!);
      if (isAlive(await provider.getMachine(l.machine_id!))) throw new ProviderError(l.provider, "unavailable", "destroy not yet carried out");
    }
    const replaced = hostReplaced(l, reason, why, canStop, now);
    const stored = this.save(l, { ...l }, replaced.destroyed, now);
    this.step(stored, replaced.then(stored), now);
    await this.#rememberBadHost(l, reason, why, now);
  }

  /**
   * A job lost its machine and recovers (recovery.ts): the machine is destroyed and confirmed gone,
   * or was proven gone by the account that created it (#observe), before anything else is rented
   * (guarantee 1); then the lease waits its backoff in provisioning and rents the next offer as a
   * new attempt. No offer left: released with the loss.
   */
  async #recover(l: LeaseRecord, provider: Provider, reason: Recoverable, obs: Observation, now: number): Promise<void> {
    const destroyed = destroyFirst(l, obs);
    if (destroyed) {
      await provider.destroyMachine(l.machine_id!);
      if (isAlive(await provider.getMachine(l.machine_id!))) throw new ProviderError(l.provider, "unavailable", "destroy not yet carried out");
    }
    const step = restartScheduled(l, reason, canStop, now);
    if (!step) return void this.step(l, beginRelease(l, reason, now, { restarts: l.restarts ?? 0, offers_left: 0 }), now);
    this.step(l, { next: step.next, effect: { ...step.effect, detail: { ...step.effect.detail, destroyed } } }, now);
    this.#host.occupant()?.nextAttempt();
    await this.#rememberBadHost(l, reason, {}, now);
  }

  /**
   * The org's selections leave the failed host out (bad-host.ts). Advisory: a failed write is
   * logged and the lease goes on, since the machine is already destroyed and its replacement due.
   */
  async #rememberBadHost(l: LeaseRecord, reason: Reason, why: Record<string, unknown>, now: number): Promise<void> {
    const mark = badHostMark(l, reason, why, badHostTtlMs(this.#env.LESSOR_BAD_HOST_TTL) ?? DEFAULT_BAD_HOST_TTL_MS, now);
    if (!mark) return;
    try {
      await recordBadHost(database(this.#env.DB), mark, now);
    } catch (e) {
      console.error(JSON.stringify({ msg: "bad host not recorded", lease_id: l.id, provider: mark.provider, host_id: mark.host_id, error: failureOf(e).text }));
    }
    // After D1: the org's object refuses quotes on it from now on (src/catalog/quote-store.ts).
    try {
      await tellBadHost(this.#env, mark);
    } catch (e) {
      console.error(JSON.stringify({ msg: "bad host not told to the org's object", lease_id: l.id, provider: mark.provider, host_id: mark.host_id, error: failureOf(e).text }));
    }
  }

  async #stop(l: MachinedLease, provider: Provider, reason: Reason | null, now: number): Promise<void> {
    // An automatic stop records why before anything is called (guarantee 3).
    const request = stopRequested(l, reason, now);
    const current = request ? machined(this.step(l, request, now)) : l;
    try {
      await provider.stopMachine(current.machine_id);
      this.step(current, stopIssued(current, now), now);
    } catch (e) {
      this.save(current, stopFailed(current, now), null, now);
      throw e;
    }
  }

  /** Destroys every machine the lease ever labelled, and releases once none is left. */
  async #release(l: LeaseRecord, provider: Provider, account: string, reason: Reason | null, now: number): Promise<void> {
    const begun = releaseStarted(l, reason, now, reason === "model_server_failed" ? this.#serverExit() : {});
    if (begun) l = this.step(l, begun, now);
    if (l.outputs_wait === undefined) {
      // Decided once: in the release's first write when it will not wait (`save`), else here, at
      // its first run: the agent collects the outputs before the machine goes, and decide.ts holds
      // the release until it has, or until the bound.
      const queued = collectsOutputs(l, this.facts(), now) ? this.#host.occupant()!.queue({ kind: "collect" }, now) : null;
      const decided = outputsRequested(l, queued === null ? null : outputsWaitFrom(l, queued.id, now));
      l = this.save(l, decided.next, decided.effect, now);
      if (queued) {
        await this.commandQueued(l).catch(() => undefined);
        return;
      }
    }
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
    this.step(l, released(l, [...ids], at), at);
  }

  /**
   * A model server's exit as the event shows it: its code or signal, and its log's last lines,
   * bounded in lines and bytes (excerpt.ts): a log without newlines is one line of up to 16 MiB.
   */
  #serverExit(): Record<string, unknown> {
    const occupant = this.#host.occupant();
    const exit = occupant?.facts().exit ?? null;
    const bound = EXCERPTS.server_log;
    // A line more than is kept, so that the excerpt can tell whether there was more.
    const tail = excerpt(occupant?.tail(bound.lines + 1, bound.bytes).text ?? "", bound);
    return { exit_code: exit?.code ?? null, signal: exit?.signal ?? null, log_tail: tail.text, log_tail_cut: tail.cut };
  }

  /** Records a failed step's backoff (retry.ts) on the lease as stored now; the next run waits for it. */
  #backoff(e: unknown, now: number, event: string) {
    const current = this.#store.load();
    if (!current) return;
    const step = backoff(current, event, failureOf(e), this.#failures++, Math.random(), now);
    this.step(current, step, now);
  }

  /** Consecutive failed steps since the last state change (in memory; drives the backoff). */
  #failures = 0;

  /**
   * The lease's provider, acting with its org's own key (ProviderError `auth` when it has none),
   * and the account that key is (registry.ts `accountOf`).
   */
  /** Tells the lease's provider a command waits for its machine's agent (contract.ts `commandQueued`). */
  async commandQueued(l: LeaseRecord): Promise<void> {
    if (l.machine_id === null) return;
    const { provider } = await this.#providerAccount(l);
    await provider.commandQueued?.(l.machine_id);
  }

  #providerAccount(l: LeaseRecord): Promise<{ provider: Provider; account: string }> {
    // Built (and its key decrypted) once per run and provider: a run takes several steps, and a
    // lease that moves to a fallback offer may change provider between them.
    let built = this.#providers.get(l.provider);
    if (!built) {
      built = providerWithAccount(this.#env, database(this.#env.DB), l.org_id, l.provider);
      this.#providers.set(l.provider, built);
    }
    return built;
  }

  /** The providers built in the current run (`run` clears it: a key stored meanwhile is read next run). */
  #providers = new Map<string, Promise<{ provider: Provider; account: string }>>();

  /** Throws when the key in use is not the account that created the machine: its absence proves nothing. */
  #sameAccount(l: LeaseRecord, account: string): void {
    const mismatch = accountMismatch(l, account);
    if (mismatch) throw new ProviderError(l.provider, "auth", mismatch);
  }

  #installation(): string {
    return installationId(this.#env);
  }
}

/** The lease's environment with lessor's own for this attempt (`LESSOR_RESTART`); undefined when both are empty, as before recovery. */
function withRestart(env: Record<string, string> | null, restart: Record<string, string>): Record<string, string> | undefined {
  if (env === null && Object.keys(restart).length === 0) return undefined;
  return { ...env, ...restart };
}

/** Ends a run early; the alarm set in `finally` resumes it. */
class StopRun extends Error {}
