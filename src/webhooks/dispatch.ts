/**
 * One alarm's worth of webhook attempts for an org: each due delivery is signed with its
 * endpoint's current secrets and sent; what came of it moves the delivery (succeeded, retried on
 * the schedule, failed) and its endpoint (healthy, failing, disabled) as `judgeAttempt` says.
 */
import { database } from "../db";
import type { Env } from "../env";
import { dnsResolver, guardTarget } from "../outbound/dns";
import { targetRules } from "../outbound/target";
import { signingSecrets } from "./endpoints";
import { send, type DeliveryQueue, type DeliveryRow } from "./deliveries";
import { disableEndpoint, endpointOf, saveHealth } from "./repo";
import { judgeAttempt, type AttemptOutcome, type EndpointHealth } from "./schedule";
import { signedHeaders } from "./secrets";

export interface Disabled {
  endpoint_id: string;
  url: string;
  reason: "gone" | "failing";
  consecutive_failures: number;
}

/** What a run did: the endpoints it disabled (each once), and how many requests it sent (what the org's budget is charged). */
export interface RunResult {
  disabled: Disabled[];
  sent: number;
}

/**
 * Runs the due attempts, at most `budget` of them (the org's, src/webhooks/budget.ts). Endpoints
 * are served side by side, each one's deliveries one after another, oldest first: after a 410
 * nothing more is sent to it, and a receiver sees its events in order unless one is retried.
 */
export async function runDueDeliveries(env: Env, queue: DeliveryQueue, orgId: string, budget: number, now: number): Promise<RunResult> {
  const byEndpoint = new Map<string, DeliveryRow[]>();
  for (const d of queue.due(now, budget)) byEndpoint.set(d.endpoint_id, [...(byEndpoint.get(d.endpoint_id) ?? []), d]);
  const served = await Promise.all([...byEndpoint].map(([id, due]) => serveEndpoint(env, queue, orgId, id, due, now)));
  return { disabled: served.flatMap((s) => (s.disabled ? [s.disabled] : [])), sent: served.reduce((n, s) => n + s.sent, 0) };
}

async function serveEndpoint(env: Env, queue: DeliveryQueue, orgId: string, endpointId: string, due: DeliveryRow[], now: number): Promise<{ disabled: Disabled | null; sent: number }> {
  const db = database(env.DB);
  const ep = await endpointOf(db, orgId, endpointId);
  if (!ep || ep.disabled_at !== null) {
    queue.abandon(endpointId, ep ? "endpoint disabled" : "endpoint deleted");
    return { disabled: null, sent: 0 };
  }
  // Checked again at each run: the setting that allows loopback may have changed since, and what
  // the name points at may have (docs/security.md "Outbound addresses").
  const target = await guardTarget(ep.url, targetRules(env, "webhook"), dnsResolver(env));
  const secrets = await signingSecrets(env, ep, now);
  if ((!target.ok && target.refused) || secrets.length === 0) {
    const error = !target.ok ? `url refused: ${target.reason}` : "the signing secret cannot be opened (LESSOR_MASTER_KEY changed): rotate it";
    for (const d of due) queue.record(d.id, "failed", null, { status: null, error }, 0, now);
    return { disabled: null, sent: 0 };
  }
  const before: EndpointHealth = { failing_since: ep.failing_since, consecutive_failures: ep.consecutive_failures };
  let health = before;
  let sent = 0;
  for (const d of due) {
    let outcome: AttemptOutcome;
    let latency: number | null = null;
    if (target.ok) {
      const headers = await signedHeaders(secrets, d.msg_id, Math.floor(Date.now() / 1000), d.body);
      ({ outcome, latency_ms: latency } = await send(target.url, headers, d.body));
      sent += 1;
    } else {
      // Where the name points could not be checked: nothing is sent, and it counts as a failure,
      // so that the schedule (and the endpoint's failure count) still ends it.
      outcome = { status: null, error: target.reason };
    }
    const at = Date.now();
    const verdict = judgeAttempt(outcome, d.attempts + 1, health, at, Math.random());
    queue.record(d.id, verdict.delivery, verdict.delivery === "pending" ? verdict.next_at : null, outcome, latency, at);
    if (verdict.endpoint === "healthy") {
      health = { failing_since: null, consecutive_failures: 0 };
      continue;
    }
    health = { failing_since: health.failing_since ?? at, consecutive_failures: health.consecutive_failures + 1 };
    if (verdict.endpoint !== "failing") {
      const reason = verdict.endpoint === "disable_gone" ? "gone" : "failing";
      queue.abandon(ep.id, "endpoint disabled");
      const disabled = await disableEndpoint(db, orgId, ep.id, reason, health, at);
      return { disabled: disabled ? { endpoint_id: ep.id, url: ep.url, reason, consecutive_failures: health.consecutive_failures } : null, sent };
    }
  }
  if (health.failing_since !== before.failing_since || health.consecutive_failures !== before.consecutive_failures) await saveHealth(db, ep.id, health);
  return { disabled: null, sent };
}
