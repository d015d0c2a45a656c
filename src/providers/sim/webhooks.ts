/**
 * The sim's webhooks (docs/ingress.md "The sim"): like a real cloud, it tells lessor when one of
 * its machines changes status (created, booted, running, stopped, failed, destroyed, vanished),
 * signed with Standard Webhooks (src/webhooks/secrets.ts) under a key derived from the ingress token
 * (src/ingress/sim-key.ts), sent to `<LESSOR_PUBLIC_URL>/v1/ingress/sim/<LESSOR_INGRESS_TOKEN>`.
 * Without both settings it sends nothing. Pure functions here; the SimCloud object (cloud.ts)
 * keeps the outbox, and its alarm sends it, so no request waits on a delivery.
 */
import { publicUrl } from "../../config";
import type { Env } from "../../env";
import type { SimMachineClock, SimStatus } from "./machines";

/** A delivery is tried this many times, then dropped: a webhook is a hint, and the cron backstop still comes. */
export const SIM_WEBHOOK_MAX_ATTEMPTS = 5;
/** At most this many deliveries per alarm, so one alarm stays short. */
export const SIM_WEBHOOK_BATCH = 50;

/** Where the sim sends its webhooks and the token they are signed under; null: ingress is not configured. */
export function simWebhookTarget(env: Pick<Env, "LESSOR_PUBLIC_URL" | "LESSOR_INGRESS_TOKEN">): { url: string; token: string } | null {
  const origin = publicUrl(env);
  const token = env.LESSOR_INGRESS_TOKEN;
  return origin && token ? { url: `${origin}/v1/ingress/sim/${token}`, token } : null;
}

/** One webhook's body: what changed, in the sim's own words. */
export function simWebhookBody(e: { machine_id: string; status: SimStatus; at: number }): string {
  return JSON.stringify({ type: "machine.status", machine_id: e.machine_id, status: e.status, at: e.at });
}

/** When the passage of time alone changes a machine's status next (boot done, vanished); null: never. */
export function nextClockChangeAt(c: Pick<SimMachineClock, "status" | "since" | "provision_ms" | "boot_ms" | "vanish_at" | "preempt_at">): number | null {
  if (c.status === "TERMINATED") return null;
  const boot = c.status === "PROVISIONING" ? c.since + c.provision_ms : c.status === "STARTING" ? c.since + c.boot_ms : null;
  // A take-back comes only while the machine runs or boots (machines.ts `advance`).
  const takeBack = c.status === "RUNNING" || c.status === "STARTING" ? (c.preempt_at ?? null) : null;
  const times = [boot, c.vanish_at, takeBack].filter((t): t is number => t !== null);
  return times.length === 0 ? null : Math.min(...times);
}

/**
 * What becomes of a delivery after an attempt: done (a 2xx, or a refusal a retry cannot change, any
 * 4xx but 408 and 429), retried after a backoff of 1, 2, 4, 8 s, or dropped after the last attempt.
 */
export function afterAttempt(status: number | null, attempts: number, now: number): { done: true } | { done: false; next_at: number } {
  const retryable = status === null || status >= 500 || status === 408 || status === 429;
  if (!retryable || attempts >= SIM_WEBHOOK_MAX_ATTEMPTS) return { done: true };
  return { done: false, next_at: now + 1000 * 2 ** (attempts - 1) };
}
