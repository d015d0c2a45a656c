/**
 * One alarm's worth of webhook attempts for an org: each due delivery is signed with its
 * endpoint's current secrets and sent; what came of it moves the delivery (succeeded, retried on
 * the schedule, failed) and its endpoint (healthy, failing, disabled) as `judgeAttempt` says.
 */
import { database } from "../db";
import type { Env } from "../env";
import { signingSecrets } from "./endpoints";
import { send, type DeliveryQueue, type DeliveryRow } from "./deliveries";
import { disableEndpoint, endpointOf, markFailing, markHealthy } from "./repo";
import { judgeAttempt } from "./schedule";
import { signedHeaders } from "./secrets";
import { checkTarget, loopbackAllowed } from "./target";

export interface Disabled {
  endpoint_id: string;
  url: string;
  reason: "gone" | "failing";
}

/**
 * Runs the due attempts; answers the endpoints this run disabled (each once). Endpoints are served
 * side by side, each one's deliveries one after another, oldest first: after a 410 nothing more is
 * sent to it, and a receiver sees its events in order unless one is retried.
 */
export async function runDueDeliveries(env: Env, queue: DeliveryQueue, orgId: string, now: number): Promise<Disabled[]> {
  const byEndpoint = new Map<string, DeliveryRow[]>();
  for (const d of queue.due(now)) byEndpoint.set(d.endpoint_id, [...(byEndpoint.get(d.endpoint_id) ?? []), d]);
  const disabled = await Promise.all([...byEndpoint].map(([id, due]) => serveEndpoint(env, queue, orgId, id, due, now)));
  return disabled.filter((d): d is Disabled => d !== null);
}

async function serveEndpoint(env: Env, queue: DeliveryQueue, orgId: string, endpointId: string, due: DeliveryRow[], now: number): Promise<Disabled | null> {
  const db = database(env.DB);
  const ep = await endpointOf(db, orgId, endpointId);
  if (!ep || ep.disabled_at !== null) {
    queue.abandon(endpointId, ep ? "endpoint disabled" : "endpoint deleted");
    return null;
  }
  // Checked again at each run: the setting that allows loopback may have changed since.
  const target = checkTarget(ep.url, loopbackAllowed(env));
  const secrets = await signingSecrets(env, ep, now);
  if (!target.ok || secrets.length === 0) {
    const error = !target.ok ? `url refused: ${target.reason}` : "the signing secret cannot be opened (LESSOR_MASTER_KEY changed): rotate it";
    for (const d of due) queue.record(d.id, "failed", null, { status: null, error }, 0, now);
    return null;
  }
  let failingSince = ep.failing_since;
  for (const d of due) {
    const headers = await signedHeaders(secrets, d.msg_id, Math.floor(Date.now() / 1000), d.body);
    const { outcome, latency_ms } = await send(target.url, headers, d.body);
    const at = Date.now();
    const verdict = judgeAttempt(outcome, d.attempts + 1, failingSince, at, Math.random());
    queue.record(d.id, verdict.delivery, verdict.delivery === "pending" ? verdict.next_at : null, outcome, latency_ms, at);
    if (verdict.endpoint === "healthy") {
      if (failingSince !== null) await markHealthy(db, ep.id);
      failingSince = null;
    } else if (verdict.endpoint === "failing") {
      if (failingSince === null) await markFailing(db, ep.id, at);
      failingSince ??= at;
    } else {
      const reason = verdict.endpoint === "disable_gone" ? "gone" : "failing";
      queue.abandon(ep.id, "endpoint disabled");
      return (await disableEndpoint(db, orgId, ep.id, reason, at)) ? { endpoint_id: ep.id, url: ep.url, reason } : null;
    }
  }
  return null;
}
