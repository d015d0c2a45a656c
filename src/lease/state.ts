/**
 * A lease and its states (docs/design.md "Lease states"):
 *
 *   pending -> provisioning -> booting -> ready <-> (stopping -> stopped -> starting -> booting)
 *   and from any live state -> releasing -> released
 *
 * `failed` is never a place to leave a machine: it is the reason of a release.
 */
import type { LeaseVolume } from "../volumes/volumes";
import type { LeaseBilling } from "../billing/accrual";
import type { Reservation } from "../billing/ceiling";
import type { Offer } from "../catalog/offer";
import type { Spec } from "../catalog/spec";
import type { Machine } from "../providers/contract";
import type { ConfigWarning } from "./config-check";
import type { LeaseKind, Policy } from "./policy";

export const LEASE_STATES = [
  "pending",
  "provisioning",
  "booting",
  "ready",
  "stopping",
  "stopped",
  "starting",
  "releasing",
  "released",
] as const;
export type LeaseState = (typeof LEASE_STATES)[number];

/** States in which the lease may hold a machine that bills. */
export const LIVE_STATES: readonly LeaseState[] = LEASE_STATES.filter((s) => s !== "released");
/** States of a running session: max_lifetime and max_session_usd count here. */
export const SESSION_STATES: readonly LeaseState[] = ["provisioning", "booting", "ready", "stopping", "starting"];
/** States whose lease holds a machine it reads back from the provider. */
export const MACHINE_STATES: readonly MachineState[] = ["booting", "ready", "stopping", "stopped", "starting"];
/** States a lease never leaves for a live one: it is ending or has ended. */
export const TERMINAL_STATES: readonly LeaseState[] = ["releasing", "released"];

export function isLive(s: LeaseState): boolean {
  return LIVE_STATES.includes(s);
}
export function inSession(s: LeaseState): boolean {
  return SESSION_STATES.includes(s);
}
export function holdsMachine(s: LeaseState): s is MachineState {
  return (MACHINE_STATES as readonly LeaseState[]).includes(s);
}

/** Whether the lease is in a state that holds a machine (and so has its id by type). */
export function hasMachine(l: LeaseRecord): l is MachinedLease {
  return holdsMachine(l.state);
}

/** The lease as one that holds a machine; decide.ts only asks for machine actions in such states. */
export function machined(l: LeaseRecord): MachinedLease {
  if (!hasMachine(l)) throw new Error(`lease ${l.id} is ${l.state}, which holds no machine`);
  return l;
}

/** A state set as an SQL list, `('a', 'b')`, for raw D1 statements: built from the set, never retyped. */
export function sqlList(states: readonly LeaseState[]): string {
  return `(${states.map((s) => `'${s}'`).join(", ")})`;
}

/** Why a lease was stopped or released (guarantee 3). */
export const REASONS = [
  "user_end",
  "user_stop",
  "user_start",
  "ttl_expired",
  "idle_timeout",
  "max_lifetime",
  "budget_exceeded",
  "stopped_ttl",
  "boot_timeout",
  "startup_timeout",
  "host_failed",
  "no_capacity",
  "provider_refused",
  "provider_lost",
  "provider_stopped",
  "stop_failed",
  "orphan",
  "preempted",
  "unexpected_start",
  "max_runtime",
  "inactivity",
  "job_exited",
  "model_server_failed",
  "endpoint_exposed",
  "quota_exceeded",
  "over_budget",
] as const;
export type Reason = (typeof REASONS)[number];

/** States whose lease holds a machine it reads back from the provider: it has one by type. */
export type MachineState = "booting" | "ready" | "stopping" | "stopped" | "starting";
/** States without a machine (not yet rented, or being given back: a releasing lease may still name one). */
export type UnmachinedState = Exclude<LeaseState, MachineState>;

/**
 * A lease, by its state (STYLE.md rule 6): a lease in a state that holds a machine has a
 * `machine_id` by type; the others may name one (a release in progress) or not.
 */
export type LeaseRecord = (LeaseFields & { state: MachineState; machine_id: string }) | (LeaseFields & { state: UnmachinedState; machine_id: string | null });
/** A lease that holds a machine. */
export type MachinedLease = Extract<LeaseRecord, { state: MachineState }>;

export interface LeaseFields {
  id: string;
  org_id: string;
  kind: LeaseKind;
  /** When the lease entered its current state. */
  state_since: number;
  policy: Policy;
  spec: Spec | null;
  quote_id: string | null;
  /** The chosen offer first, then the ranked fallbacks. */
  offers: Offer[];
  /** Index into `offers` of the offer being rented now. */
  offer_index: number;
  /** Hosts that failed this lease; never rented again for it. */
  excluded_hosts: string[];
  /** Machine creates attempted so far (labels carry it). */
  attempt: number;
  /**
   * `attempt` when the job last restarted after a loss (policy.recovery): each restart may try
   * `host_attempts` hosts of its own, while labels keep counting. Absent: 0.
   */
  attempt_base?: number;
  /** How many times the job restarted on a new machine after a loss (policy.recovery). Absent: 0. */
  restarts?: number;
  /** When the loss the job is recovering from was noticed; null once its new machine runs (the event `resumed` says how long it took). */
  lost_at?: number | null;
  provider: string;
  /** Whether the provider can stop a machine (else a stop is a release). */
  can_stop: boolean;
  /**
   * The provider account (src/providers/registry.ts `accountOf`: '' installation-wide, else a
   * fingerprint of the org's key, never the key) that created or adopted the current machine. A
   * machine that account's key no longer reads is not gone until that account says so
   * (docs/design.md "Money 4"). Absent on leases stored before it was kept.
   */
  machine_account?: string | null;
  label: string | null;
  /** The last machine status observed, and when. */
  machine_status: Machine["status"] | null;
  observed_at: number | null;
  /** When the observed status last changed: the read-back schedule restarts then (decide.ts `pollAt`). */
  observed_change_at?: number | null;
  /** When lessor last started this stopped machine again (decide.ts `RESTART_ERROR_GRACE_MS`). */
  start_issued_at?: number | null;
  hourly_usd: number;
  /** What the machine bills an hour while stopped (its disk); 0 where stopping ends billing. */
  stopped_hourly_usd: number;
  /** Every machine this lease ever held: the provider's billing records are attributed by these. */
  machine_ids: string[];
  /**
   * What the lease holds against its org's caps (src/billing/budget.ts): its rate and its worst
   * case by month, as last reserved. An action that needs more re-reserves first. Absent on leases
   * stored before it was kept (they re-reserve on their next such action).
   */
  reserved?: Reservation | null;
  /**
   * The GPUs the lease holds under its org's GPU quota (src/lease/quota.ts): its chosen offer's at
   * create, more once a fallback host with more was admitted. Absent on leases stored before it
   * was kept: their chosen offer's.
   */
  held_gpus?: number | null;
  /** The org's volumes each of its machines mounts, and where (src/volumes/volumes.ts); absent: none. */
  volumes?: LeaseVolume[];
  /** The estimate (accrual) and the billing status beside the state (src/lease/billing.ts). */
  billing: LeaseBilling;
  /** A create's outcome is unknown: list by label before anything is created (guarantee 2). */
  reconcile_required: boolean;
  /** Earliest time the next provider call may be made (rate limits, backoff). */
  retry_at: number | null;
  created_at: number;
  session_started_at: number | null;
  ready_at: number | null;
  /** created_at + ttl + every extension; null without a ttl. */
  ttl_deadline: number | null;
  last_activity_at: number | null;
  lock_until: number | null;
  /** First time the machine was seen stopped in this stop. */
  stopped_at: number | null;
  /** When the current unbroken run of failed stop calls began. */
  stop_failing_since: number | null;
  /** When a stop was last issued (re-issued if the machine still runs). */
  stop_issued_at: number | null;
  release_reason: Reason | null;
  released_at: number | null;
  image: string | null;
  cmd: string | null;
  /** The name it was created with, unique among its org's live leases (src/lease/names.ts); absent on leases stored before names. */
  name?: string | null;
  /** The configuration check's warnings at create (src/lease/config-check.ts); messages alone on leases stored before. */
  warnings: (ConfigWarning | string)[];
  /**
   * The command's environment, handed to the machine at provision (every host of the lease). Kept
   * in the lease's object only: answers, events and the D1 index show the names, never a value.
   * Absent on leases stored before it was kept.
   */
  env?: Record<string, string> | null;
  /**
   * A deployment's model server (src/deployments/): the model it serves and the machine's own key
   * for it (LESSOR_MODEL_KEY on the machine, a secret only lessor and the machine hold; never
   * answered, never in an event). null or absent: the lease serves no model.
   */
  model?: ServedModel | null;
  /** What the lease's rules did about its command this session (decide.ts "the command"); reset when it becomes ready. */
  job?: JobProgress | null;
  /**
   * A deployment's: the last heartbeat whose model-server metrics showed requests (src/lease/model-metrics.ts),
   * the machine's own word, kept apart from `last_activity_at` (users and the gateway) because it
   * counts only within `machine_activity_max` (decide.ts `machineUseUntil`). Absent: never.
   */
  machine_activity_at?: number | null;
  /**
   * How long into a session what the machine reports may keep it in use, ms: its org's setting
   * when it was created (src/orgs/settings.ts). Absent: decide.ts `DEFAULT_MACHINE_ACTIVITY_MAX_MS`.
   */
  machine_activity_max?: number | null;
  /**
   * A release waiting for the command's outputs (decide.ts `collectsOutputs`, docs/artifacts.md):
   * since when, the bound it waits to at most (`since` + `policy.outputs_wait`), and the `collect`
   * command queued for the agent. null: the release decided not to wait; absent: not decided yet
   * (a lease not releasing, or one whose release has not run).
   */
  outputs_wait?: OutputsWait | null;
  /** Bumped on every write; the D1 index keeps the version it last saw. */
  version: number;
}

export interface OutputsWait {
  since: number;
  until: number;
  command_id: string;
}

/** The model a deployment's lease serves, and the key its model server requires. */
export interface ServedModel {
  id: string;
  key: string;
  /** More arguments for the engine (src/providers/model-server.ts). */
  engine_args: string[];
}

/** Why lessor ends a command with TERM, then KILL. */
export type KillCause = "max_runtime" | "inactivity";

/** The command's rules' progress in this session; every field null until its rule acts. */
export interface JobProgress {
  /** The command's exit as the agent reported it (`at` in ms); the lease shows it. */
  exit: { code: number | null; signal: string | null; at: number } | null;
  /** A runtime cap or inactivity terminate began: the release that follows gives this reason. */
  kill_cause: KillCause | null;
  /** When lessor queued the TERM, and the KILL after kill_grace. */
  term_at: number | null;
  kill_at: number | null;
  /** The start of the output silence already reported as `stalled` (one event per stall). */
  stalled_since: number | null;
  /** The diagnostics command queued for the last stall, whose result is attached to an event. */
  diagnostics_id: string | null;
  /** The last heartbeat of the agent silence already reported (`agent_silent`, once per silence). */
  silent_after: number | null;
}

export const NO_JOB_PROGRESS: JobProgress = { exit: null, kill_cause: null, term_at: null, kill_at: null, stalled_since: null, diagnostics_id: null, silent_after: null };

/**
 * What the machine's agent has reported (src/occupant/), read by the object from the agent's tables
 * and passed in: the lease's rules never read storage. Times in ms.
 */
export interface AgentFacts {
  /** The agent's last heartbeat, as far as the object knows (it holds some in memory: src/occupant/heartbeat.ts). */
  last_heartbeat_at: number | null;
  /**
   * Before the object has heard a heartbeat since it started: the latest a heartbeat that the object
   * before it held in memory, and lost, can have come (src/occupant/heartbeat.ts `beatBound`). The
   * rules count the agent as heard until then (decide.ts `heardUntil`). Absent or null: none lost.
   */
  beat_bound?: number | null;
  /** When the last log chunk arrived. */
  last_output_at: number | null;
  exit: { code: number | null; signal: string | null; at: number } | null;
  /**
   * Not the agent's word but read beside it: when each request now in flight through the gateway
   * began (src/deployments/gateway.ts). The object keeps them in memory: a request outlives no
   * restart of the object, which ends its stream. Absent: none.
   */
  in_flight?: readonly number[];
  /**
   * Also beside the agent's word: when the last gateway request ended, held in memory until it is
   * written as the lease's `last_activity_at` (src/lease/object.ts `#noteActivity`). Absent or
   * null: none waiting.
   */
  gateway_ended_at?: number | null;
  /**
   * On a machine that serves a model: when the agent last read its server's metrics
   * (src/lease/model-metrics.ts), and when a read last failed (unreadable, malformed, missing).
   * Absent or null: never.
   */
  metrics_read_at?: number | null;
  metrics_failed_at?: number | null;
  /**
   * When the agent last said it can collect the command's outputs (it long-polls with `collect=1`,
   * docs/agent.md), and when it last answered a `collect` command (its outputs are uploaded or
   * failed for good). Absent or null: never.
   */
  collects_at?: number | null;
  collected_at?: number | null;
}

export const NO_AGENT: AgentFacts = { last_heartbeat_at: null, last_output_at: null, exit: null };

/** What the lease's object last learned from the provider. */
export interface Observation {
  /** What the agent reported; absent: nothing (a lease whose agent never called). */
  agent?: AgentFacts;
  /** undefined: not observed this time; null: the provider no longer has the machine. */
  machine: Machine | null | undefined;
  /**
   * The workload answers: for a lease that serves a model, its server lists the model on
   * `GET /v1/models` with the machine's key; for any other, the machine runs.
   */
  app_ready?: boolean;
  /** A model server that answered `GET /v1/models` without its key: it is open to anyone. */
  exposed?: boolean;
}
