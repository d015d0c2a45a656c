/**
 * The Deployment Durable Object (issue 32, docs/deployments.md "Replicas"): one per deployment,
 * named by its id. It holds the deployment's replicas (each a lease of kind `deployment`), the
 * requests in flight on each, the gateway's key digest and request budget, and the scaler's clock.
 *
 * - The gateway's one call per request (`request`) is answered from memory: the key's digest, the
 *   budget, the pick of a ready replica with the fewest requests in flight (never one starting or
 *   draining), and the send to that replica's model server with its machine's key. No storage is
 *   read or written on that path; the request's end is counted here, as its body ends.
 * - What each replica's lease says (ready, its endpoint) is read back from its object on the
 *   scaler's ticks and after a failed send, never per request.
 * - The scaler (scaler.ts `decideScale`) decides; this object acts (creates a lease through the
 *   same admission as `POST /v1/leases`, drains, releases, wakes, puts to sleep), records each
 *   action with its reason, and keeps one alarm at the scaler's next check (STYLE.md rule 7).
 * - Each replica's lease is told its gateway requests (`gatewayActivity`), at most every
 *   ACTIVITY_PUSH_MS, so its own rules (idle stop) see the traffic as before.
 *
 * Its storage (SQLite, one `kv` table): `summary` (the deployment's row as the object needs it),
 * `digest` (the api_key's SHA-256), `replicas`, `scaler` (its remembered times) and `events` (the
 * last EVENTS_KEPT scale events). docs/storage.md.
 */
import { MeteredObject } from "../metered-object";
import { meteredAlarm } from "../metering";
import { database } from "../db";
import type { Env } from "../env";
import { ApiError } from "../errors";
import { hexEquals, newId } from "../ids";
import { TokenBucket, type RateDecision } from "../auth/token-bucket";
import { createLease } from "../lease/create";
import type { ActResult } from "../lease/object";
import type { GatewayBudget } from "./gateway-budget";
import type { LeaseState } from "../lease/state";
import type { MachineEndpoint } from "../providers/contract";
import { endpointAt } from "../providers/endpoint";
import { failureOf } from "../lease/retry";
import { replicasOf, type StoredConfig } from "./config";
import { newDeploymentKey, renewLease } from "./deployments";
import type { Replicas } from "./replicas";
import { decideScale, REFUSED_BACKOFF_MS, type ReplicaObs, type ReplicaState, type ScaleAction, type ScaleDecision, type ScalerNext } from "./scaler";

/** What the object needs of the deployment's row (deployments.ts `objectSummary`). */
export interface DeploymentSummary {
  id: string;
  org_id: string;
  name: string;
  /** The primary replica: the row's `lease_id`, the lease the PUT makes. */
  lease_id: string;
  fingerprint: string;
  config: StoredConfig;
}

/** How a gateway request proves the deployment's key: its digest, or one the Worker checked against the row (with the row). */
export type DeploymentKeyCheck = { digest: string } | { verified: string; summary: DeploymentSummary };

export type RequestAnswer = Response | { state: LeaseState | "unreachable"; name: string } | { check: "key" } | { limited: RateDecision };

interface StoredReplica {
  lease_id: string;
  primary: boolean;
  draining_since: number | null;
  created_at: number;
}

interface ScalerMemory {
  below_since: number | null;
  refused_until: number | null;
  primary_asleep: boolean;
}

export interface ScaleEvent {
  at: string;
  action: ScaleAction["do"] | "refused" | "config_changed";
  lease_id: string | null;
  reason: string;
  detail: string;
}

/** A replica as the deployment's GET shows it. */
export interface ReplicaView {
  lease_id: string;
  primary: boolean;
  state: ReplicaState | "draining";
  lease_state: LeaseState | null;
  in_flight: number;
  failures: number;
}

export interface ScalerView {
  replicas: ReplicaView[];
  in_flight: number;
  queued: number;
  desired: number;
  next: Omit<ScalerNext, "at"> & { at: string | null };
  events: ScaleEvent[];
}

/** In memory, per replica: what its lease last said and what is in flight on it. */
interface Runtime {
  lease_state: LeaseState | null;
  target: { endpoint: MachineEndpoint; key: string } | null;
  in_flight: Map<string, number>;
  failures: number;
  ended_at: number | null;
  /** Its in-flight set or last end changed since the lease was told. */
  dirty: boolean;
}

/** The answer's header naming the replica (its lease's id) that served it. */
export const REPLICA_HEADER = "lessor-replica";

/** The lease is told of its gateway requests at most this often. */
const ACTIVITY_PUSH_MS = 1_000;
/** While anything moves (a replica starting or draining, requests recently), the replicas are read back this often. */
const BUSY_TICK_MS = 2_000;
/** Otherwise, while any replica is live. */
const QUIET_TICK_MS = 30_000;
/** Traffic this recent keeps the busy tick. */
const RECENT_MS = 60_000;
/** A request held in the gateway counts as waiting while it asked within this. */
const WAITING_MS = 2_000;
const EVENTS_KEPT = 50;

/**
 * `body` passed through as it comes, calling `ended` once it ends, fails or its reader goes away.
 * A native pipe (no JavaScript per chunk, unlike a pulled ReadableStream): the gateway's every
 * answer passes here.
 */
function untilEnd(body: ReadableStream<Uint8Array> | null, ended: () => void): ReadableStream<Uint8Array> | null {
  if (!body) {
    ended();
    return null;
  }
  const { readable, writable } = new IdentityTransformStream();
  body.pipeTo(writable).then(ended, ended);
  return readable;
}

const stateOfLease = (s: LeaseState | null, target: boolean): ReplicaState => {
  if (s === null) return "starting";
  if (s === "ready") return target ? "ready" : "starting";
  if (s === "releasing" || s === "released") return "gone";
  if (s === "stopping" || s === "stopped") return "stopped";
  return "starting";
};

export class DeploymentObject extends MeteredObject {
  #summary: DeploymentSummary | null = null;
  #digest: string | null = null;
  #replicas: StoredReplica[] = [];
  #memory: ScalerMemory = { below_since: null, refused_until: null, primary_asleep: false };
  #events: ScaleEvent[] = [];
  readonly #runtime = new Map<string, Runtime>();
  readonly #budget = new TokenBucket();
  readonly #waiting = new Map<string, number>();
  #lastRequestAt: number | null = null;
  #rr = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
      for (const row of ctx.storage.sql.exec<{ key: string; value: string }>("SELECT key, value FROM kv")) {
        const v = JSON.parse(row.value);
        if (row.key === "summary") this.#summary = v;
        else if (row.key === "digest") this.#digest = v;
        else if (row.key === "replicas") this.#replicas = v;
        else if (row.key === "scaler") this.#memory = v;
        else if (row.key === "events") this.#events = v;
      }
      // Requests in flight were lost with the memory that held them; the replicas' leases still count theirs for at most their bound.
      this.#lastRequestAt = this.#summary ? Date.now() : null;
    });
  }

  #put(key: "summary" | "digest" | "replicas" | "scaler" | "events", value: unknown): void {
    this.ctx.storage.sql.exec("INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, JSON.stringify(value));
  }

  #rt(leaseId: string): Runtime {
    let rt = this.#runtime.get(leaseId);
    if (!rt) this.#runtime.set(leaseId, (rt = { lease_state: null, target: null, in_flight: new Map(), failures: 0, ended_at: null, dirty: false }));
    return rt;
  }

  /** The replicas' settings, made once per summary (the gateway's path asks for them). */
  #settings(): Replicas {
    const s = this.#summary!;
    if (this.#settingsOf !== s) {
      this.#settingsOf = s;
      this.#cachedSettings = replicasOf(s.config);
    }
    return this.#cachedSettings!;
  }
  #settingsOf: DeploymentSummary | null = null;
  #cachedSettings: Replicas | null = null;

  // ---- RPC surface -----------------------------------------------------------------------------

  /**
   * The deployment as its row now is (a PUT, a recreate, the gateway's full path): a new primary
   * takes the old one's place; a new fingerprint drains every other replica (it runs the old
   * configuration), and the scaler makes new ones as the load asks.
   */
  async sync(summary: DeploymentSummary): Promise<void> {
    await this.#exclusive(async () => this.#sync(summary));
  }

  #sync(summary: DeploymentSummary): void {
    const before = this.#summary;
    const now = Date.now();
    // A deployment just made (or woken by a PUT) counts as used now: its idle timeout starts here.
    if (!before) this.#lastRequestAt ??= now;
    this.#summary = summary;
    this.#put("summary", summary);
    const primary = this.#replicas.find((r) => r.primary);
    if (primary?.lease_id !== summary.lease_id) {
      this.#replicas = [...this.#replicas.filter((r) => !r.primary), { lease_id: summary.lease_id, primary: true, draining_since: null, created_at: now }];
      if (primary) this.#runtime.delete(primary.lease_id);
      this.#memory = { ...this.#memory, primary_asleep: false };
      this.#put("scaler", this.#memory);
    }
    if (before && before.fingerprint !== summary.fingerprint) {
      for (const r of this.#replicas) {
        if (r.primary || r.draining_since !== null) continue;
        r.draining_since = now;
        this.#record(now, { action: "config_changed", lease_id: r.lease_id, reason: "config_changed", detail: "the deployment's configuration changed: this replica runs the old one" });
      }
    }
    this.#put("replicas", this.#replicas);
    this.#poke();
  }

  /** The deployment was deleted: its other replicas end (the primary is ended by the delete) and the object forgets it. */
  async forget(orgId: string): Promise<void> {
    await this.#exclusive(async () => {
      if (!this.#summary || this.#summary.org_id !== orgId) return;
      await Promise.all(this.#replicas.filter((r) => !r.primary).map((r) => this.#end(r.lease_id)));
      this.ctx.storage.sql.exec("DELETE FROM kv");
      this.#summary = null;
      this.#digest = null;
      this.#replicas = [];
      this.#events = [];
      this.#memory = { below_since: null, refused_until: null, primary_asleep: false };
      this.#runtime.clear();
      await this.ctx.storage.deleteAlarm();
    });
  }

  /** A rotated key: only the new one's digest is let through from now on (deployments.ts `rotateDeploymentKey`). */
  setKey(orgId: string, digest: string): boolean {
    if (!this.#summary || this.#summary.org_id !== orgId) return false;
    this.#digest = digest;
    this.#put("digest", digest);
    return true;
  }

  /**
   * One gateway request (src/deployments/gateway.ts): sent to the ready replica with the fewest in
   * flight, with its machine's key in place of the caller's, its answer streamed back as it comes.
   * `check: key`: the caller's digest is not the one held (or none is): the Worker checks the key
   * against the row and asks again with it. A state: no replica is ready (nothing was sent); the
   * request counts as waiting while it keeps asking (`waitId`).
   */
  async request(
    path: string,
    init: { method: string; headers: [string, string][]; body: ArrayBuffer | null },
    key: DeploymentKeyCheck,
    budget: GatewayBudget,
    waitId: string,
  ): Promise<RequestAnswer> {
    if ("verified" in key) {
      // Not behind the scaler's turn (a replica being made can take seconds): the row is taken as it is now.
      if (!this.#summary || this.#summary.lease_id !== key.summary.lease_id || this.#summary.fingerprint !== key.summary.fingerprint) this.#sync(key.summary);
      // Kept unless one is held: a rotate's new digest is never undone by a request the old key made before it.
      if (this.#digest === null) {
        this.#digest = key.verified;
        this.#put("digest", key.verified);
      }
    } else if (!this.#summary || this.#digest === null || !hexEquals(this.#digest, key.digest)) return { check: "key" };
    const summary = this.#summary!;
    const now = Date.now();
    if (!budget.counted) {
      const decision = this.#budget.take(budget.limit_per_minute, now);
      if (!decision.allowed) return { limited: decision };
    }
    this.#lastRequestAt = now;
    let pick = this.#pick();
    if (!pick && this.#replicas.some((r) => !this.#runtime.get(r.lease_id)?.lease_state)) {
      // An object just made (or evicted) has not read its replicas back yet: once, here, rather than after the gateway's wait.
      await this.#refreshShared();
      pick = this.#pick();
    }
    if (!pick) {
      this.#waiting.set(waitId, now);
      this.#poke();
      return { state: this.#primaryState(), name: summary.name };
    }
    this.#waiting.delete(waitId);
    const [leaseId, rt] = pick;
    const id = crypto.randomUUID();
    rt.in_flight.set(id, now);
    this.#touched(rt);
    if (this.#overTarget()) this.#poke();
    const ended = () => {
      if (!rt.in_flight.delete(id)) return;
      const at = Date.now();
      this.#lastRequestAt = at;
      rt.ended_at = at;
      this.#touched(rt);
      const r = this.#replicas.find((x) => x.lease_id === leaseId);
      if (r?.draining_since != null && rt.in_flight.size === 0) this.#poke();
    };
    const headers = new Headers(init.headers);
    headers.set("authorization", `Bearer ${rt.target!.key}`);
    let answer: Response;
    try {
      answer = await rt.target!.endpoint.fetch(path, { method: init.method, headers, body: init.body });
    } catch {
      // Not answering: not ready until its lease says so again.
      ended();
      rt.failures++;
      rt.target = null;
      this.#poke();
      return { state: "unreachable", name: summary.name };
    }
    if (answer.status >= 500) {
      if (++rt.failures >= 5) this.#poke();
    } else rt.failures = 0;
    const out = new Response(untilEnd(answer.body, ended), { status: answer.status, headers: answer.headers });
    // Which replica answered: for the caller's logs, and the chaos run's check that none was sent to one not ready.
    out.headers.set(REPLICA_HEADER, leaseId);
    return out;
  }

  /** A stopped deployment woken by a request: "over_budget" when its org's budget refuses the start. */
  async wake(): Promise<"ok" | "over_budget" | "gone"> {
    return this.#exclusive(async () => {
      const primary = this.#replicas.find((r) => r.primary);
      if (!this.#summary || !primary) return "gone";
      await this.#refresh();
      const rt = this.#rt(primary.lease_id);
      const state = stateOfLease(rt.lease_state, rt.target !== null);
      if (state !== "stopped" && !(state === "gone" && this.#memory.primary_asleep)) return state === "gone" ? "gone" : "ok";
      const out = await this.#act({ do: "wake", lease_id: primary.lease_id, reason: "request_waiting", detail: "a request came" }, Date.now());
      await this.#finish();
      return out === "refused" ? "over_budget" : "ok";
    });
  }

  /** The replicas, their states and in-flight counts, and what the scaler will do next and why; null: the object does not know the deployment yet. */
  async status(orgId: string): Promise<ScalerView | null> {
    if (!this.#summary || this.#summary.org_id !== orgId) return null;
    if ([...this.#runtime.values()].length < this.#replicas.length) await this.#exclusive(() => this.#refresh());
    const d = this.#decide(Date.now());
    return {
      replicas: this.#replicas.map((r) => {
        const rt = this.#rt(r.lease_id);
        return { lease_id: r.lease_id, primary: r.primary, state: r.draining_since !== null ? "draining" : stateOfLease(rt.lease_state, rt.target !== null), lease_state: rt.lease_state, in_flight: rt.in_flight.size, failures: rt.failures };
      }),
      in_flight: [...this.#runtime.values()].reduce((n, rt) => n + rt.in_flight.size, 0),
      queued: this.#queued(Date.now()),
      desired: d.desired,
      next: { ...d.next, at: d.next.at === null ? null : new Date(d.next.at).toISOString() },
      events: [...this.#events].reverse(),
    };
  }

  override async alarm(): Promise<void> {
    await meteredAlarm(() => this.#exclusive(() => this.#scale()));
  }

  // ---- picking ---------------------------------------------------------------------------------

  /** The ready, not draining replica with the fewest requests in flight (ties taken in turn). */
  #pick(): [string, Runtime] | null {
    let best: [string, Runtime] | null = null;
    const n = this.#replicas.length;
    for (let i = 0; i < n; i++) {
      const r = this.#replicas[(this.#rr + i) % n]!;
      if (r.draining_since !== null) continue;
      const rt = this.#runtime.get(r.lease_id);
      if (!rt || rt.target === null || rt.lease_state !== "ready") continue;
      if (!best || rt.in_flight.size < best[1].in_flight.size) best = [r.lease_id, rt];
    }
    this.#rr = (this.#rr + 1) % Math.max(1, n);
    return best;
  }

  #overTarget(): boolean {
    const cfg = this.#settings();
    let serving = 0;
    let inFlight = 0;
    for (const r of this.#replicas) {
      if (r.draining_since !== null) continue;
      serving++;
      inFlight += this.#runtime.get(r.lease_id)?.in_flight.size ?? 0;
    }
    return serving < cfg.max && inFlight > serving * cfg.target_inflight;
  }

  #queued(now: number): number {
    for (const [id, at] of this.#waiting) if (now - at > WAITING_MS) this.#waiting.delete(id);
    return this.#waiting.size;
  }

  #primaryState(): LeaseState | "unreachable" {
    const primary = this.#replicas.find((r) => r.primary);
    const s = primary ? this.#runtime.get(primary.lease_id)?.lease_state ?? null : null;
    if (this.#memory.primary_asleep && (s === "released" || s === "releasing" || s === null)) return "stopped";
    if (s === "ready") return "unreachable";
    return s ?? "pending";
  }

  // ---- the scaler's loop -----------------------------------------------------------------------

  /** The scaler runs soon (once, however many asked). */
  #poke(): void {
    if (this.#poked) return;
    this.#poked = true;
    this.ctx.waitUntil(
      this.#exclusive(async () => {
        this.#poked = false;
        await this.#scale();
      }).catch((e: unknown) => console.error(JSON.stringify({ msg: "deployment scaler failed", deployment: this.#summary?.id, error: failureOf(e).text }))),
    );
  }
  #poked = false;

  /**
   * A replica's requests changed: its lease is told at once when it was not told within
   * ACTIVITY_PUSH_MS, else at the end of that time (one call for every change meanwhile).
   */
  #touched(rt: Runtime): void {
    rt.dirty = true;
    if (this.#pushing) return;
    this.#pushing = true;
    const wait = Math.max(0, this.#pushedAt + ACTIVITY_PUSH_MS - Date.now());
    this.ctx.waitUntil(
      (async () => {
        if (wait > 0) await scheduler.wait(wait);
        this.#pushing = false;
        this.#pushedAt = Date.now();
        await this.#pushActivity(false);
      })().catch(() => undefined),
    );
  }
  #pushing = false;
  #pushedAt = 0;

  /** Tells each replica's lease of its gateway requests: those that changed, or (`all`) every one with some in flight. */
  async #pushActivity(all: boolean): Promise<void> {
    const s = this.#summary;
    if (!s) return;
    await Promise.all(
      this.#replicas.map(async (r) => {
        const rt = this.#runtime.get(r.lease_id);
        if (!rt || !(rt.dirty || (all && rt.in_flight.size > 0))) return;
        rt.dirty = false;
        const endedAt = rt.ended_at;
        rt.ended_at = null;
        await this.#lease(r.lease_id).gatewayActivity(s.org_id, [...rt.in_flight.values()], endedAt).catch(() => undefined);
      }),
    );
  }

  #lease(id: string) {
    return this.env.LEASE.get(this.env.LEASE.idFromName(id));
  }

  /** What each replica's lease says now: its state and, once ready, where its model server answers. */
  async #refresh(): Promise<void> {
    const s = this.#summary;
    if (!s) return;
    await Promise.all(
      this.#replicas.map(async (r) => {
        const rt = this.#rt(r.lease_id);
        const t = await this.#lease(r.lease_id).modelTarget(s.org_id).catch(() => undefined);
        if (t === undefined) return; // not reached: kept as it was
        if (t === null) {
          // Not made yet (a create under way) or never made: starting until its create says otherwise.
          rt.lease_state = r.created_at > Date.now() - 5 * 60_000 ? null : "released";
          rt.target = null;
          return;
        }
        rt.lease_state = t.state;
        if (t.url === null || t.key === null) rt.target = null;
        else if (rt.target?.endpoint.url !== t.url || rt.target.key !== t.key) {
          const endpoint = endpointAt(this.env, t.url);
          rt.target = endpoint ? { endpoint, key: t.key } : null;
          if (endpoint) rt.failures = 0;
        }
      }),
    );
  }

  /** One read-back for every request that asks while it runs. */
  #refreshShared(): Promise<void> {
    this.#refreshing ??= this.#refresh().finally(() => (this.#refreshing = null));
    return this.#refreshing;
  }
  #refreshing: Promise<void> | null = null;

  #decide(now: number): ScaleDecision {
    const replicas: ReplicaObs[] = this.#replicas.map((r) => {
      const rt = this.#rt(r.lease_id);
      return { lease_id: r.lease_id, primary: r.primary, state: stateOfLease(rt.lease_state, rt.target !== null), draining_since: r.draining_since, in_flight: rt.in_flight.size, failures: rt.failures };
    });
    return decideScale(this.#settings(), { replicas, queued: this.#queued(now), last_request_at: this.#lastRequestAt, below_since: this.#memory.below_since, refused_until: this.#memory.refused_until, primary_asleep: this.#memory.primary_asleep, now });
  }

  /** Reads the replicas back, decides, acts on each action (recording it), and sets the one alarm. */
  async #scale(): Promise<void> {
    if (!this.#summary) return;
    try {
      await this.#refresh();
      const now = Date.now();
      const d = this.#decide(now);
      if (d.below_since !== this.#memory.below_since) {
        this.#memory = { ...this.#memory, below_since: d.below_since };
        this.#put("scaler", this.#memory);
      }
      for (const a of d.actions) await this.#act(a, now);
      if (d.actions.length > 0) await this.#refresh();
      await this.#pushActivity(true);
    } finally {
      await this.#finish();
    }
  }

  /** One scaler action, recorded with its reason. "refused": the budget or quota (or the provider) refused it. */
  async #act(a: ScaleAction, now: number): Promise<"done" | "refused"> {
    const s = this.#summary!;
    const save = () => this.#put("replicas", this.#replicas);
    switch (a.do) {
      case "add": {
        for (let i = 0; i < a.count; i++) {
          const leaseId = newId("ls", Date.now());
          // Stored before it is made: a create cut short is found again (and ended) rather than lost.
          this.#replicas.push({ lease_id: leaseId, primary: false, draining_since: null, created_at: Date.now() });
          save();
          try {
            await this.#createReplica(leaseId);
            this.#record(now, { action: "add", lease_id: leaseId, reason: a.reason, detail: a.detail });
          } catch (e) {
            const made = await this.#lease(leaseId).modelTarget(s.org_id).catch(() => null);
            if (made === null) {
              this.#replicas = this.#replicas.filter((r) => r.lease_id !== leaseId);
              save();
            }
            this.#refused(now, e, "a new replica");
            return "refused";
          }
        }
        return "done";
      }
      case "drain": {
        const r = this.#replicas.find((x) => x.lease_id === a.lease_id);
        if (r) r.draining_since = now;
        save();
        break;
      }
      case "release":
      case "forget": {
        if (a.do === "release") await this.#end(a.lease_id);
        this.#replicas = this.#replicas.filter((r) => r.lease_id !== a.lease_id);
        this.#runtime.delete(a.lease_id);
        save();
        break;
      }
      case "wake": {
        if (this.#memory.primary_asleep) {
          try {
            await this.#renewPrimary();
          } catch (e) {
            this.#refused(now, e, "waking the deployment");
            return "refused";
          }
        } else {
          const out = (await this.#lease(a.lease_id).act(s.org_id, "start")) as ActResult;
          if (!out.ok && out.status === 402) {
            this.#refused(now, new ApiError(402, out.code, out.message, {}), "waking the deployment");
            return "refused";
          }
        }
        break;
      }
      case "sleep": {
        if (a.mode === "release") {
          await this.#end(a.lease_id);
          this.#memory = { ...this.#memory, primary_asleep: true };
          this.#put("scaler", this.#memory);
        } else await this.#lease(a.lease_id).act(s.org_id, "stop");
        const rt = this.#rt(a.lease_id);
        rt.target = null;
        break;
      }
      case "replace": {
        await this.#end(a.lease_id);
        try {
          await this.#renewPrimary();
        } catch (e) {
          this.#refused(now, e, "a replica in place of a failing one");
          return "refused";
        }
        break;
      }
    }
    this.#record(now, { action: a.do, lease_id: a.lease_id, reason: a.reason, detail: a.detail });
    return "done";
  }

  /** A new extra replica: a lease like the primary's, through the admission of every create (budget, GPU quota, daily cap). */
  async #createReplica(leaseId: string): Promise<void> {
    const s = this.#summary!;
    const c = s.config;
    await createLease(database(this.env.DB), this.env, s.org_id, {
      id: leaseId,
      kind: "deployment",
      spec: c.spec,
      ...(c.policy ? { policy: c.policy } : {}),
      ...(c.image ? { image: c.image } : {}),
      ...(c.volumes?.length ? { volumes: c.volumes } : {}),
      model: { id: c.model, key: newDeploymentKey(), engine_args: c.engine_args },
    }, Date.now());
  }

  /** The primary made anew (after `sleep: release`, or in place of a failing one): the deployment's row points at it. */
  async #renewPrimary(): Promise<void> {
    const s = this.#summary!;
    const leaseId = await renewLease(database(this.env.DB), this.env, s.org_id, s.id, s.lease_id, Date.now());
    this.#sync({ ...s, lease_id: leaseId });
  }

  async #end(leaseId: string): Promise<void> {
    const s = this.#summary!;
    await this.#lease(leaseId).act(s.org_id, "end").catch((e: unknown) => console.error(JSON.stringify({ msg: "replica not ended; the scaler will try again", lease: leaseId, error: failureOf(e).text })));
  }

  #refused(now: number, e: unknown, what: string): void {
    const code = e instanceof ApiError ? e.code : "error";
    const status = e instanceof ApiError ? e.status : 500;
    if (!(e instanceof ApiError)) console.error(JSON.stringify({ msg: "deployment scaler action failed", deployment: this.#summary?.id, error: failureOf(e).text }));
    this.#memory = { ...this.#memory, refused_until: now + REFUSED_BACKOFF_MS };
    this.#put("scaler", this.#memory);
    this.#record(now, { action: "refused", lease_id: null, reason: code, detail: `${what} was refused (${status} ${code}); the traffic already served goes on` });
  }

  #record(now: number, e: Omit<ScaleEvent, "at">): void {
    this.#events = [...this.#events, { at: new Date(now).toISOString(), ...e }].slice(-EVENTS_KEPT);
    this.#put("events", this.#events);
    console.log(JSON.stringify({ msg: "deployment scale event", deployment: this.#summary?.id, ...e }));
  }

  /** Sets the one alarm: the scaler's next check, or the read-back tick while anything moves. */
  async #finish(): Promise<void> {
    if (!this.#summary || this.env.LESSOR_DEV_DISABLE_ALARMS === "1") return;
    const now = Date.now();
    const d = this.#decide(now);
    const states = this.#replicas.map((r) => (r.draining_since !== null ? "draining" : stateOfLease(this.#rt(r.lease_id).lease_state, this.#rt(r.lease_id).target !== null)));
    const busy = states.some((s) => s === "starting" || s === "draining") || this.#queued(now) > 0 || (this.#lastRequestAt !== null && now - this.#lastRequestAt < RECENT_MS);
    const live = states.some((s) => s !== "gone" && s !== "stopped");
    const tick = busy ? now + BUSY_TICK_MS : live ? now + QUIET_TICK_MS : null;
    const next = [d.check_at, tick].filter((x): x is number => x !== null);
    if (next.length === 0) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(Math.max(now + 100, Math.min(...next)));
  }

  #queue: Promise<unknown> = Promise.resolve();

  /** One scaler turn at a time; the gateway's requests never wait for it. */
  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work, work);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}
