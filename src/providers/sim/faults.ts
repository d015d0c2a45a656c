/**
 * What the simulated cloud gets wrong on purpose, and how slow it is. Every rate is a probability
 * in [0, 1] drawn from one seeded PRNG that the cloud stores, so a run with the same seed and the
 * same calls meets the same faults.
 */
import { z } from "zod";

const rate = z.number().min(0).max(1);
const ms = z.number().int().min(0).max(86_400_000);

export const SIM_FAULTS_SCHEMA = z
  .object({
    /** Any machine call answers 503 without doing anything. */
    api_error_rate: rate,
    /** Any machine call answers 429 with `Retry-After: retry_after_s`, without doing anything. */
    rate_limit_rate: rate,
    /** A create makes the machine and then answers 502 or 504: the caller cannot know. */
    ambiguous_create_rate: rate,
    /** A boot (at create or start) ends in ERROR instead of RUNNING. */
    boot_failure_rate: rate,
    /** A created machine vanishes (TERMINATED, no call) vanish_min_ms..vanish_max_ms after it first runs. */
    vanish_rate: rate,
    /** A create answers 409 `no_capacity` and makes nothing. */
    no_capacity_rate: rate,
    /**
     * A machine of a spot (interruptible) offer is taken back by the cloud (EXITED, `interrupted`)
     * vanish_min_ms..vanish_max_ms after it first runs (docs/sim.md "Spot").
     */
    preempt_rate: rate,
    provision_delay_ms: ms,
    boot_delay_ms: ms,
    retry_after_s: z.number().int().min(0).max(3600),
    vanish_min_ms: ms,
    vanish_max_ms: ms,
    seed: z.number().int().min(0).max(0xffffffff),
    /**
     * How long one billing window lasts: an hour, as at RunPod. Shorter only so that a test can
     * watch a simulated day of windows close in seconds; prices stay per real hour, so amounts
     * stay true. Change it only on a fresh sim (after a reset): records of windows of another
     * length would overlap.
     */
    billing_window_ms: z.number().int().min(100).max(86_400_000),
    /** How long after a window closes its records are published (a provider's billing lag). */
    billing_delay_ms: ms,
    /** Records charge this fraction more than the machine's price: a provider's billing error. */
    billing_markup: z.number().min(0).max(100),
    /**
     * How often a machine's agent heartbeats (docs/sim.md "The agent"): 30 s, as agent.sh's
     * LESSOR_AGENT_HEARTBEAT_S. Shorter only so that a test can watch heartbeats arrive.
     */
    agent_heartbeat_ms: z.number().int().min(100).max(86_400_000),
    /**
     * How fast a sim machine's model server produces tokens (docs/sim.md "The model server"):
     * 200 a second, a small model on one GPU. Higher only so that a test need not wait.
     */
    model_tokens_per_s: z.number().int().min(1).max(1_000_000),
  })
  .strict()
  .refine((f) => f.vanish_min_ms <= f.vanish_max_ms, { message: "vanish_min_ms must not exceed vanish_max_ms" });

export type SimFaults = z.infer<typeof SIM_FAULTS_SCHEMA>;

/** Defaults: no faults; a machine provisions for 0.5 s and boots for 1.5 s, like a fast real cloud. */
export const SIM_DEFAULT_FAULTS: SimFaults = {
  api_error_rate: 0,
  rate_limit_rate: 0,
  ambiguous_create_rate: 0,
  boot_failure_rate: 0,
  vanish_rate: 0,
  no_capacity_rate: 0,
  preempt_rate: 0,
  provision_delay_ms: 500,
  boot_delay_ms: 1500,
  retry_after_s: 1,
  vanish_min_ms: 2000,
  vanish_max_ms: 20_000,
  seed: 1,
  billing_window_ms: 3_600_000,
  billing_delay_ms: 0,
  billing_markup: 0,
  agent_heartbeat_ms: 30_000,
  model_tokens_per_s: 200,
};

/** A partial update over the current faults; unknown fields and out-of-range values are refused. */
export function mergeFaults(current: SimFaults, patch: unknown): { ok: true; faults: SimFaults } | { ok: false; message: string } {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return { ok: false, message: "body must be a JSON object" };
  const parsed = SIM_FAULTS_SCHEMA.safeParse({ ...current, ...patch });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
    return { ok: false, message: `${where}${issue?.message ?? "invalid faults"}` };
  }
  return { ok: true, faults: parsed.data };
}
