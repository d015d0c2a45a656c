/**
 * How a lease is shown: the API's view, and the body the D1 index lists. `LeaseSchema` is that view
 * as the OpenAPI document describes it, checked against `renderLease` at compile time.
 */
import { z } from "@hono/zod-openapi";
import { BILLING_STATUSES } from "../billing/accrual";
import { OfferSchema } from "../catalog/offer-schema";
import { renderOffer } from "../catalog/offers-repo";
import { MACHINE_STATUSES } from "../providers/contract";
import { sameShape } from "../same-shape";
import { renderBilling } from "./billing";
import { ConfigWarningSchema, storedWarnings } from "./config-check";
import { GUARD_ACTIONS, type guardOf } from "./decide";
import { INACTIVITY_ACTIONS, LEASE_KINDS, ON_EXIT, RECOVERABLE, renderPolicy } from "./policy";
import { LEASE_STATES, REASONS, type LeaseRecord } from "./state";
import { iso } from "../time";


/** `now` dates the estimate of a lease still accruing. */
export function renderLease(l: LeaseRecord, now: number = Date.now()) {
  const offer = l.offers[l.offer_index] ?? null;
  return {
    id: l.id,
    name: l.name ?? null,
    kind: l.kind,
    state: l.state,
    state_since: iso(l.state_since),
    provider: l.provider,
    machine: l.machine_id === null ? null : { id: l.machine_id, label: l.label, status: l.machine_status, observed_at: iso(l.observed_at) },
    offer: offer ? renderOffer(offer) : null,
    fallbacks: l.offers.slice(l.offer_index + 1).map(renderOffer),
    excluded_hosts: l.excluded_hosts,
    hourly_usd: l.hourly_usd,
    policy: renderPolicy(l.policy),
    quote_id: l.quote_id,
    reconcile_required: l.reconcile_required,
    created_at: iso(l.created_at),
    session_started_at: iso(l.session_started_at),
    ready_at: iso(l.ready_at),
    ttl_expires_at: iso(l.ttl_deadline),
    last_activity_at: iso(l.last_activity_at),
    lock_until: iso(l.lock_until),
    stopped_at: iso(l.stopped_at),
    release_reason: l.release_reason,
    released_at: iso(l.released_at),
    warnings: storedWarnings(l.warnings),
    // Names only: the values may be secrets (docs/design.md "The command").
    env: Object.keys(l.env ?? {}).sort(),
    volumes: (l.volumes ?? []).map((v) => ({ name: v.name, path: v.path })),
    exit: l.job?.exit ? { code: l.job.exit.code, signal: l.job.exit.signal, at: iso(l.job.exit.at)! } : null,
    restarts: l.restarts ?? 0,
    billing: renderBilling(l, now),
  };
}

export type LeaseView = ReturnType<typeof renderLease>;

/**
 * A view stored as it was rendered then (the D1 index's body, an idempotent create's first
 * answer). One rendered before warnings were objects holds messages, read as objects here.
 */
export function storedView(view: LeaseView): LeaseView {
  return { ...view, warnings: storedWarnings(view.warnings) };
}

/** A `warnings` array that begins with a message, not an object or its end: one stored before warnings were objects. */
const WARNINGS_AS_MESSAGES = /"warnings":\[(?![\]{])/;

/**
 * An index body as the API answers it, as JSON text: the body itself where `storedView` would
 * leave it as it is (its warnings are objects, or none), else read and written again. The index
 * writes every body with JSON.stringify (index-repo.ts), so the text is what writing its view
 * again would give, and a page of them is not parsed and written again to be answered.
 */
export function storedViewJson(body: string): string {
  return WARNINGS_AS_MESSAGES.test(body) ? JSON.stringify(storedView(JSON.parse(body) as LeaseView)) : body;
}

const Time = z.string().describe("ISO 8601, UTC");
const Shown = z.string().describe("a duration: `90s`, `15m`, `2h`, `1d`");

export const PolicySchema = z
  .object({
    ttl: Shown.nullable(),
    idle_timeout: Shown.nullable(),
    max_lifetime: Shown.nullable(),
    stopped_ttl: Shown.nullable(),
    heartbeat_grace: Shown,
    boot_timeout: Shown,
    startup_timeout: Shown.nullable(),
    host_attempts: z.number().int(),
    max_session_usd: z.number().nullable(),
    max_runtime: Shown.nullable(),
    kill_grace: Shown,
    max_inactivity: Shown.nullable(),
    inactivity_action: z.enum(INACTIVITY_ACTIONS),
    on_exit: z.enum(ON_EXIT),
    outputs_wait: Shown.describe("how long a release waits for the command's outputs before it destroys the machine (docs/artifacts.md)"),
    recovery: z
      .object({ on: z.array(z.enum(RECOVERABLE)), max_restarts: z.number().int(), backoff: Shown, fallback_on_demand: z.boolean() })
      .nullable()
      .optional()
      .describe("a job's recovery from losing its machine (docs/leases.md \"Recovery\"); null: none (absent in a list row stored before recovery)"),
  })
  .openapi("Policy");

export const LeaseBillingSchema = z
  .object({
    status: z.enum(BILLING_STATUSES),
    estimate: z.object({
      label: z.literal("estimate"),
      amount_usd: z.number(),
      running_usd: z.number(),
      stopped_usd: z.number(),
      running_seconds: z.number(),
      stopped_seconds: z.number(),
      hourly_usd: z.number(),
      stopped_hourly_usd: z.number(),
      as_of: Time,
    }),
    actual_usd: z.number().nullable().describe("from the provider's billing records once the receipt is written"),
    receipt_id: z.string().nullable(),
  })
  .openapi("LeaseBilling");

export const LeaseSchema = z
  .object({
    id: z.string(),
    name: z.string().nullable().describe("unique among the org's live leases; null: none"),
    kind: z.enum(LEASE_KINDS),
    state: z.enum(LEASE_STATES),
    state_since: Time.nullable(),
    provider: z.string(),
    machine: z
      .object({ id: z.string(), label: z.string().nullable(), status: z.enum(MACHINE_STATUSES).nullable(), observed_at: Time.nullable() })
      .nullable(),
    // Not `.nullable()`: on a named schema the generator writes an allOf that no null satisfies.
    offer: z.union([OfferSchema, z.null()]),
    fallbacks: z.array(OfferSchema),
    excluded_hosts: z.array(z.string()),
    hourly_usd: z.number(),
    policy: PolicySchema,
    quote_id: z.string().nullable(),
    reconcile_required: z.boolean(),
    created_at: Time.nullable(),
    session_started_at: Time.nullable(),
    ready_at: Time.nullable(),
    ttl_expires_at: Time.nullable(),
    last_activity_at: Time.nullable(),
    lock_until: Time.nullable(),
    stopped_at: Time.nullable(),
    release_reason: z.enum(REASONS).nullable(),
    released_at: Time.nullable(),
    warnings: z.array(ConfigWarningSchema).describe("the configuration check's warnings at create (`POST /v1/leases/validate` answers the same)"),
    env: z.array(z.string()).describe("the names of the command's environment variables; values are never shown"),
    volumes: z.array(z.object({ name: z.string(), path: z.string() })).optional().describe("the volumes it mounts, and where (absent in a list row stored before volumes)"),
    exit: z
      .object({ code: z.number().int().nullable(), signal: z.string().nullable(), at: Time })
      .nullable()
      .describe("how the command ended, as the machine's agent reported it; null while it runs (or before it starts); after restarts, the last attempt's"),
    restarts: z.number().int().optional().describe("how many times the job was restarted on a new machine after a loss (policy.recovery); absent in a list row stored before recovery"),
    billing: LeaseBillingSchema,
  })
  .openapi("Lease", { description: "A lease: state, machine, offer, policy, deadlines and its estimate" });

sameShape<z.infer<typeof LeaseSchema>, LeaseView>(true);

/** A single read adds what the policy would do next, why, and when (src/lease/decide.ts `guardOf`). */
export const GuardedLeaseSchema = LeaseSchema.extend({
  guard: z.object({
    action: z
      .enum(GUARD_ACTIONS)
      .describe("what the policy does next: due now when `due`, else at `at`; wait is never shown, only what it waits for"),
    reason: z.enum(REASONS).nullable(),
    at: Time.nullable(),
    due: z.boolean(),
    agent_silent_since: Time.nullable().describe("the last heartbeat of the machine's agent when it has been silent for 90 s or more; null while it beats"),
    activity: z
      .object({
        observable: z.boolean().describe("the agent read the model server's metrics in the last 90 s, and no read failed since"),
        metrics_read_at: Time.nullable().describe("when it last read them; null: never"),
        machine_activity_at: Time.nullable().describe("the last heartbeat whose metrics showed requests"),
        machine_activity_until: Time.describe("what the machine reports counts as use until then (the org's machine_activity_max)"),
        idle_stop: z.enum(["on", "off"]).describe("off only with no idle_timeout"),
        note: z.string().describe("the same, in words"),
      })
      .nullable()
      .describe("a deployment's: whether lessor sees its use beyond the gateway (docs/deployments.md \"Activity\"); null for a lease that serves no model or is not ready"),
  }),
}).openapi("GuardedLease");

sameShape<z.infer<typeof GuardedLeaseSchema>, LeaseView & { guard: ReturnType<typeof guardOf> }>(true);
