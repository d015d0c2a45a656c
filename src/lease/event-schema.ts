/**
 * A lease's event as `GET /v1/leases/:id/events` answers it: one schema per event type, each with
 * the `detail` that type carries (the pure rules of src/lease/ make them, the lease's object stores them).
 * The object types an event's `type` as a string and its `detail` as a record, so the compile-time
 * check below runs the other way from `sameShape`'s usual one: every event this schema admits
 * fits what the object stores. That the object writes nothing this schema leaves out is checked
 * at run time, on every answer the tests receive (test/support/response-check.ts).
 */
import { z } from "@hono/zod-openapi";
import { STEP_ACTIONS } from "./decide";
import type { LeaseEvent } from "./object";
import { LEASE_KINDS } from "./policy";
import { LEASE_STATES } from "./state";
import { sameShape } from "../same-shape";

const Time = z.string().describe("ISO 8601, UTC");
const ReservedUsd = z.number().optional().describe("what the step reserved against the org's caps, where it reserved");

/** An event of `type` whose detail is `detail`. */
function event<T extends readonly [string, ...string[]], D extends z.ZodRawShape>(types: T, detail: D) {
  return z.object({
    seq: z.number().int(),
    at: Time,
    type: z.enum(types),
    from: z.enum(LEASE_STATES).nullable(),
    to: z.enum(LEASE_STATES).nullable(),
    reason: z.string().nullable().describe("why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons)"),
    detail: z.strictObject(detail),
  });
}

/** A step the lease's object tried and will retry: `<action>_failed`, or the run or read around it. */
const FAILED_TYPES = [
  "run_failed",
  "observe_failed",
  ...STEP_ACTIONS.map((a) => `${a}_failed` as const),
] as [`${string}_failed`, ...`${string}_failed`[]];

export const LeaseEventSchema = z
  .discriminatedUnion("type", [
    event(["created"], { offer: z.string(), kind: z.enum(LEASE_KINDS) }),
    event(["provisioning"], { offer: z.string(), provider: z.string(), label: z.string(), reserved_usd: ReservedUsd }),
    event(["budget_reserved"], {
      offer: z.string(),
      provider: z.string(),
      hourly_usd: z.number().optional().describe("the machine's price, where above what the lease held"),
      reserved_usd: ReservedUsd,
    }),
    event(["machine_created"], { machine_id: z.string(), label: z.string(), host: z.string(), region: z.string(), provider: z.string() }),
    event(["machine_adopted"], { machine_id: z.string(), label: z.string().nullable(), extra_destroyed: z.number().int() }),
    event(["create_ambiguous"], { label: z.string(), error: z.string() }),
    event(["machine_destroyed"], {
      machine_id: z.string().nullable(),
      host: z.string(),
      misplaced_in: z.string().optional().describe("the region the machine landed in, outside the lease's placement"),
      allowed: z.array(z.string()).optional().describe("the regions the placement allows"),
    }),
    event(["host_excluded"], { host: z.string(), provider: z.string(), next_offer: z.string(), next_provider: z.string() }),
    event(["attempt_ended"], {
      attempt: z.number().int().describe("the attempt that ended, 1 the first (docs/leases.md \"Recovery\")"),
      machine_id: z.string().nullable(),
      provider: z.string(),
      host: z.string().nullable(),
      machine_ms: z.number().int().describe("how long its machine ran for the lease, from its create to the loss acted on"),
      restart: z.number().int().describe("the restart it begins (LESSOR_RESTART of the next machine)"),
      next_offer: z.string(),
      next_provider: z.string(),
      next_at: Time.describe("when the next machine is rented (after the recovery's backoff)"),
      destroyed: z.boolean().describe("the lost machine was destroyed (false: the provider already no longer had it)"),
    }),
    event(["release_requested"], {
      attempts: z.number().int().optional().describe("hosts tried, when none is left to try"),
      failed_host: z.string().optional(),
      error: z.string().optional().describe("provider_refused: the kind of refusal"),
      message: z.string().optional().describe("provider_refused: what the provider said"),
      offer: z.string().optional().describe("budget_exceeded: the offer the lease would have rented"),
      provider: z.string().optional(),
      hourly_usd: z.number().optional(),
      cap: z.enum(["monthly", "concurrent_hourly"]).optional().describe("budget_exceeded: the cap it would pass"),
      month: z.string().optional(),
      limit_usd: z.number().nullable().optional(),
      committed_usd: z.number().nullable().optional(),
      requested_usd: z.number().nullable().optional(),
      exit_code: z.number().int().nullable().optional().describe("model_server_failed: how the model server exited"),
      signal: z.string().nullable().optional(),
      log_tail: z.string().optional().describe("model_server_failed: its log's last 30 lines, at most 8 KiB"),
      log_tail_cut: z.boolean().optional().describe("model_server_failed: the log held more"),
      by: z.string().optional().describe("preempted: the deployment lease that displaced it under the org's GPU quota"),
      quota: z.string().optional().describe("quota_exceeded: the cap a fallback host's GPUs would pass"),
      limit: z.number().int().optional(),
      held: z.number().int().optional(),
      requested: z.number().int().optional(),
      restarts: z.number().int().optional().describe("a job out of offers to restart on: the restarts it made"),
      offers_left: z.number().int().optional(),
    }),
    event(["stop_requested"], { machine_id: z.string().nullable().optional(), machine_status: z.string().nullable().optional() }),
    event(["start_requested"], { reserved_usd: ReservedUsd }),
    event(["extended"], { by_ms: z.number().int(), ttl_expires_at: Time, reserved_usd: ReservedUsd }),
    event(["locked"], { until: Time }),
    event(["released"], { destroyed: z.array(z.string()).describe("the machines destroyed by the release") }),
    event(["billing_settled"], { receipt_id: z.string(), status: z.enum(["settled", "disputed"]), actual_usd: z.number() }),
    event(FAILED_TYPES, { error: z.string(), retry_in_ms: z.number().int() }),
    event(["unlocked", "heartbeat", "stopped", "starting", "stop_issued"], {}),
    event(["ready"], {
      restart: z.number().int().optional().describe("a job back after a loss: which restart"),
      loss_to_running_ms: z.number().int().optional().describe("from the loss noticed to this machine running"),
    }),
    event(["exited"], {
      code: z.number().int().nullable(),
      signal: z.string().nullable(),
      at: Time,
      attempt: z.number().int().optional().describe("a job that recovers: the attempt this exit ends (the lease's exit is its last attempt's)"),
      machine_ms: z.number().int().optional().describe("a job that recovers: how long this attempt's machine ran until the exit"),
    }),
    event(["killed_by_runtime_cap", "killed_by_inactivity"], { signal: z.enum(["TERM", "KILL"]), command_id: z.string() }),
    event(["stalled"], { silent_since: Time, silent_ms: z.number().int(), diagnostics_id: z.string().nullable() }),
    event(["diagnostics"], { command_id: z.string(), exit_code: z.number().int().nullable(), output: z.string().describe("process list and nvidia-smi, at most 8 KiB") }),
    event(["agent_silent"], { last_heartbeat_at: Time }),
    event(["outputs_requested"], {
      command_id: z.string().describe("the `collect` queued for the agent"),
      until: Time.describe("the bound: the release goes on then at the latest"),
    }),
    event(["outputs_uploaded"], { files: z.number().int(), bytes: z.number().int() }),
    event(["outputs_incomplete"], {
      missing: z.array(z.string()).describe("paths not stored, the first 100 (at most 8 KiB)"),
      missing_count: z.number().int(),
      files: z.number().int(),
      bytes: z.number().int(),
      manifest: z.boolean().optional().describe("false: the release waited for the outputs and no manifest came"),
    }),
  ])
  .openapi("LeaseEvent", { description: "One transition of a lease, with its reason and the detail its type carries" });

sameShape<LeaseEvent, z.infer<typeof LeaseEventSchema>>(true);
