/**
 * A lease's policy (docs/design.md "Words"): its hard caps, idle rules and boot graces, with the
 * defaults each kind gets. Every kind has a finite hard cap unless the caller passes `null` for
 * it explicitly. Durations are parsed in src/duration.ts alone.
 */
import { z } from "@hono/zod-openapi";
import { DurationSchema, formatDuration, parseDuration } from "../duration";
import { badRequest } from "../errors";

export const LEASE_KINDS = ["deployment", "scratch", "job"] as const;
export type LeaseKind = (typeof LEASE_KINDS)[number];

const S = 1_000;
const M = 60 * S;
const H = 60 * M;

/** Durations in milliseconds; null where the caller removed the rule. */
export interface Policy {
  ttl: number | null;
  idle_timeout: number | null;
  max_lifetime: number | null;
  stopped_ttl: number | null;
  heartbeat_grace: number;
  boot_timeout: number;
  startup_timeout: number | null;
  host_attempts: number;
  max_session_usd: number | null;
  /** A job's command may run this long from when the lease became ready; then TERM, KILL, release. */
  max_runtime: number | null;
  /** How long after a TERM (lessor's own, or a kill's) the KILL follows. */
  kill_grace: number;
  /** Output silence (no log chunk since this long, or since the start) that counts as a stall. */
  max_inactivity: number | null;
  inactivity_action: InactivityAction;
  /** What happens when the command exits: release the machine, stop it, or keep it. */
  on_exit: OnExit;
  /**
   * How long a release waits for the command's outputs (docs/artifacts.md) before it destroys the
   * machine: at most OUTPUTS_WAIT_MAX_MS, never off, so no release waits unbounded. Absent on
   * leases stored before it was kept: OUTPUTS_WAIT_MS.
   */
  outputs_wait: number;
  /**
   * A job's recovery from losing its machine (docs/leases.md "Recovery"): which losses restart the
   * command on a new machine, how often, and after how long. null or absent: none, the loss
   * releases the lease (as before recovery existed).
   */
  recovery?: Recovery | null;
}

/** The losses a job may recover from: its machine taken back (spot), failed, or gone. */
export const RECOVERABLE = ["preempted", "host_failed", "provider_lost"] as const;
export type Recoverable = (typeof RECOVERABLE)[number];
/** The most restarts a recovery policy may allow (each a machine: labels carry the attempt, src/lease/label.ts). */
export const MAX_RESTARTS = 10;
/**
 * The most machine creates one lease may make, its restarts' hosts included: a provider whose list
 * has no prefix filter is asked for a lease's machines by their exact labels, each attempt one
 * (src/providers/vast/adapter.ts `VAST_LABEL_ATTEMPTS`), so a policy may not allow more.
 */
export const MAX_LEASE_ATTEMPTS = 48;
/** The longest wait before a restart. */
export const MAX_RESTART_BACKOFF_MS = 60 * 60_000;

export interface Recovery {
  on: Recoverable[];
  max_restarts: number;
  /** How long after the old machine is gone the next one is rented, ms. */
  backoff: number;
  /** A spot job whose spot offers are used up may rent on-demand (its offers include them, after the spot ones). */
  fallback_on_demand: boolean;
}

/** The default `outputs_wait`, and the most a policy may set: a release is never held longer. */
export const OUTPUTS_WAIT_MS = 5 * 60_000;
export const OUTPUTS_WAIT_MAX_MS = 60 * 60_000;

export const INACTIVITY_ACTIONS = ["diagnose", "terminate"] as const;
export type InactivityAction = (typeof INACTIVITY_ACTIONS)[number];
export const ON_EXIT = ["release", "stop", "keep"] as const;
export type OnExit = (typeof ON_EXIT)[number];

const COMMON = {
  stopped_ttl: 24 * H,
  heartbeat_grace: 2 * M,
  boot_timeout: 10 * M,
  host_attempts: 3,
  max_session_usd: null,
  max_runtime: null,
  kill_grace: 10 * S,
  max_inactivity: null,
  inactivity_action: "diagnose",
  outputs_wait: OUTPUTS_WAIT_MS,
} as const;

export const POLICY_DEFAULTS: Record<LeaseKind, Policy> = {
  // A scratch session has no idle timeout by default: its ttl bounds it, as scratch tools do.
  scratch: { ...COMMON, ttl: 4 * H, idle_timeout: null, max_lifetime: 24 * H, startup_timeout: null, on_exit: "keep" },
  job: { ...COMMON, ttl: null, idle_timeout: null, max_lifetime: 24 * H, startup_timeout: null, on_exit: "release" },
  deployment: { ...COMMON, ttl: null, idle_timeout: 30 * M, max_lifetime: 24 * H, startup_timeout: 20 * M, on_exit: "keep" },
};

/**
 * The request's view of a policy: durations as text; `null` removes a nullable rule. A union with
 * null rather than `.nullable()`: on a named schema the generator writes `.nullable()` as
 * `allOf: [Duration, {type: [string, null]}]`, which no null satisfies.
 */
const Duration = DurationSchema;
const NullableDuration = z.union([Duration, z.null()]);
/** The most hosts a lease may try (`host_attempts`); it replaces at most one fewer, each marked bad at most once. */
export const MAX_HOST_ATTEMPTS = 10;

export const RecoveryInputSchema = z
  .strictObject({
    on: z.array(z.enum(RECOVERABLE)).min(1).max(RECOVERABLE.length).describe("the losses that restart the command on a new machine"),
    max_restarts: z.number().int().min(0).max(MAX_RESTARTS).optional().describe("restarts allowed (default 3); one more loss releases the lease with its reason"),
    backoff: Duration.optional().describe("how long after the lost machine is gone the next is rented (default 30s, at most 1h)"),
    fallback_on_demand: z.boolean().optional().describe("a spot job may rent on-demand offers once its spot offers are used up (default false)"),
  })
  .openapi("RecoveryInput", { description: "a job's recovery from losing its machine (docs/leases.md \"Recovery\"); jobs only" });

export const PolicyInputSchema = z
  .strictObject({
    ttl: NullableDuration.optional(),
    idle_timeout: NullableDuration.optional(),
    max_lifetime: NullableDuration.optional(),
    stopped_ttl: NullableDuration.optional(),
    heartbeat_grace: Duration.optional(),
    boot_timeout: Duration.optional(),
    startup_timeout: NullableDuration.optional(),
    host_attempts: z.number().int().min(1).max(MAX_HOST_ATTEMPTS).optional(),
    max_session_usd: z.number().positive().max(1_000_000).nullable().optional(),
    max_runtime: NullableDuration.optional(),
    kill_grace: Duration.optional(),
    max_inactivity: NullableDuration.optional(),
    inactivity_action: z.enum(INACTIVITY_ACTIONS).optional(),
    on_exit: z.enum(ON_EXIT).optional(),
    outputs_wait: Duration.optional(),
    recovery: z.union([RecoveryInputSchema, z.null()]).optional(),
  })
  .openapi("PolicyInput");
export type PolicyInput = z.infer<typeof PolicyInputSchema>;

const DURATION_FIELDS = [
  "ttl", "idle_timeout", "max_lifetime", "stopped_ttl", "heartbeat_grace", "boot_timeout", "startup_timeout", "max_runtime", "kill_grace", "max_inactivity", "outputs_wait",
] as const;

export function parseDurationField(field: string, text: string): number {
  const ms = parseDuration(text);
  if (ms === null) {
    throw badRequest("invalid_duration", `${field}: "${text}" is not a duration; write 90s, 15m, 2h or 1d`, { field });
  }
  return ms;
}

/** The caller's policy over the kind's defaults: absent takes the default, `null` removes it. */
export function resolvePolicy(kind: LeaseKind, input: PolicyInput = {}): Policy {
  const policy: Policy = { ...POLICY_DEFAULTS[kind] };
  for (const field of DURATION_FIELDS) {
    const value = input[field];
    if (value === undefined) continue;
    (policy as unknown as Record<string, number | null>)[field] = value === null ? null : parseDurationField(`policy.${field}`, value);
  }
  if (input.host_attempts !== undefined) policy.host_attempts = input.host_attempts;
  if (input.max_session_usd !== undefined) policy.max_session_usd = input.max_session_usd;
  if (input.inactivity_action !== undefined) policy.inactivity_action = input.inactivity_action;
  if (input.on_exit !== undefined) policy.on_exit = input.on_exit;
  if (input.recovery !== undefined) policy.recovery = input.recovery === null ? null : resolveRecovery(kind, input.recovery);
  if (policy.recovery && policy.host_attempts * (policy.recovery.max_restarts + 1) > MAX_LEASE_ATTEMPTS) {
    throw badRequest("invalid_request", `policy: host_attempts times (recovery.max_restarts + 1) is at most ${MAX_LEASE_ATTEMPTS}, the machines one lease may create`, { field: "policy.recovery.max_restarts" });
  }
  if (policy.outputs_wait > OUTPUTS_WAIT_MAX_MS) {
    throw badRequest("invalid_duration", `policy.outputs_wait: at most ${formatDuration(OUTPUTS_WAIT_MAX_MS)}`, { field: "policy.outputs_wait" });
  }
  return policy;
}

/** The defaults of a recovery policy's fields. */
export const RECOVERY_DEFAULTS = { max_restarts: 3, backoff: 30_000, fallback_on_demand: false } as const;

/** A request's recovery over its defaults: only a job recovers (a scratch session or a deployment is not a command that ends). */
function resolveRecovery(kind: LeaseKind, input: z.infer<typeof RecoveryInputSchema>): Recovery {
  if (kind !== "job") throw badRequest("invalid_request", "policy.recovery: only a job recovers from losing its machine", { field: "policy.recovery" });
  const backoff = input.backoff === undefined ? RECOVERY_DEFAULTS.backoff : parseDurationField("policy.recovery.backoff", input.backoff);
  if (backoff > MAX_RESTART_BACKOFF_MS) {
    throw badRequest("invalid_duration", `policy.recovery.backoff: at most ${formatDuration(MAX_RESTART_BACKOFF_MS)}`, { field: "policy.recovery.backoff" });
  }
  return {
    on: [...new Set(input.on)],
    max_restarts: input.max_restarts ?? RECOVERY_DEFAULTS.max_restarts,
    backoff,
    fallback_on_demand: input.fallback_on_demand ?? RECOVERY_DEFAULTS.fallback_on_demand,
  };
}

/** A policy's recovery as answers show it; null: none. */
export function renderRecovery(r: Recovery | null | undefined) {
  return r ? { on: [...r.on], max_restarts: r.max_restarts, backoff: formatDuration(r.backoff), fallback_on_demand: r.fallback_on_demand } : null;
}

export function renderPolicy(p: Policy) {
  const d = (ms: number | null) => (ms === null ? null : formatDuration(ms));
  return {
    ttl: d(p.ttl),
    idle_timeout: d(p.idle_timeout),
    max_lifetime: d(p.max_lifetime),
    stopped_ttl: d(p.stopped_ttl),
    heartbeat_grace: formatDuration(p.heartbeat_grace),
    boot_timeout: formatDuration(p.boot_timeout),
    startup_timeout: d(p.startup_timeout),
    host_attempts: p.host_attempts,
    max_session_usd: p.max_session_usd,
    max_runtime: d(p.max_runtime),
    kill_grace: formatDuration(p.kill_grace),
    max_inactivity: d(p.max_inactivity),
    inactivity_action: p.inactivity_action,
    on_exit: p.on_exit,
    outputs_wait: formatDuration(p.outputs_wait ?? OUTPUTS_WAIT_MS),
    recovery: renderRecovery(p.recovery),
  };
}

/**
 * How long a release at the lease's ttl may hold its machine for the command's outputs
 * (docs/artifacts.md): the policy's `outputs_wait` for a job or a scratch session, nothing for a
 * deployment, which has no outputs. Its money is reserved with the rest (src/billing/ceiling.ts).
 */
export function outputsWaitMs(kind: LeaseKind, p: Pick<Policy, "outputs_wait">): number {
  return kind === "deployment" ? 0 : (p.outputs_wait ?? OUTPUTS_WAIT_MS);
}

/**
 * What a release at the ttl may bill past it while it waits for the outputs: the wait, but no
 * later than `max_lifetime`, whose release never waits. Zero when no ttl ends the lease first.
 */
export function ttlWaitMs(p: Pick<Policy, "ttl" | "max_lifetime">, waitMs: number): number {
  const capped = cappedDurationMs(p);
  if (capped === null || capped.basis !== "ttl") return 0;
  return p.max_lifetime === null ? waitMs : Math.max(0, Math.min(p.ttl! + waitMs, p.max_lifetime) - p.ttl!);
}

/** The longest a lease under this policy can bill for in one session, or null when uncapped. */
export function cappedDurationMs(p: Pick<Policy, "ttl" | "max_lifetime">): { ms: number; basis: "ttl" | "max_lifetime" } | null {
  const { ttl, max_lifetime } = p;
  if (ttl === null && max_lifetime === null) return null;
  if (max_lifetime === null || (ttl !== null && ttl <= max_lifetime)) return { ms: ttl!, basis: "ttl" };
  return { ms: max_lifetime, basis: "max_lifetime" };
}
