/**
 * Webhook deliveries: one row per (endpoint, event), kept in the org's OrgEventsObject beside its
 * event log, and the attempt that sends one. The object's alarm drives every attempt (never a
 * request waiting): it is set to the earliest `next_at` of a pending delivery after every change.
 */
import { z } from "@hono/zod-openapi";
import { errorText } from "../errors";
import { newId } from "../ids";
import { iso } from "../time";
import type { OrgEvent } from "../events/org-events";
import { ALL_EVENTS } from "./endpoints";
import type { AttemptOutcome } from "./schedule";

/** How long an attempt may take before it counts as failed. */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** Finished deliveries are kept this long for `GET /v1/webhooks/:id/deliveries`. */
export const DELIVERY_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** At most this many attempts run in one alarm; the alarm comes back at once for the rest. */
export const ATTEMPTS_PER_RUN = 20;

export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;
type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export type DeliveryRow = {
  id: string;
  endpoint_id: string;
  msg_id: string;
  type: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  next_at: number | null;
  response_status: number | null;
  error: string | null;
  latency_ms: number | null;
  attempted_at: number | null;
  created_at: number;
};

export const DeliverySchema = z
  .object({
    id: z.string(),
    webhook_id: z.string().describe("the `webhook-id` header: the same for every attempt of this event"),
    type: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int(),
    response_status: z.number().int().nullable().describe("the receiver's status at the last attempt; null: no answer"),
    error: z.string().nullable().describe("why the last attempt failed without an answer, or why no attempt was made"),
    latency_ms: z.number().int().nullable(),
    attempted_at: z.string().nullable(),
    next_attempt_at: z.string().nullable().describe("when it is tried next; null once it succeeded or failed for good"),
    created_at: z.string(),
  })
  .openapi("WebhookDelivery");
export type DeliveryView = z.infer<typeof DeliverySchema>;

export function renderDelivery(d: DeliveryRow): DeliveryView {
  return {
    id: d.id,
    webhook_id: d.msg_id,
    type: d.type,
    status: d.status,
    attempts: d.attempts,
    response_status: d.response_status,
    error: d.error,
    latency_ms: d.latency_ms,
    attempted_at: iso(d.attempted_at),
    next_attempt_at: iso(d.next_at),
    created_at: iso(d.created_at),
  };
}

/** The body every attempt sends (Standard Webhooks: `{type, timestamp, data}`). */
export function deliveryBody(e: OrgEvent): string {
  return JSON.stringify({ type: e.type, timestamp: e.at, data: e });
}

/** The `webhook-id` of an event: the same for every endpoint and every attempt. */
export const messageId = (e: OrgEvent) => `msg_${e.lease_id ?? "org"}_${e.lease_id === null ? e.id : e.seq}`;

const wants = (events: string, type: string) => {
  const list = JSON.parse(events) as string[];
  return list.includes(ALL_EVENTS) || list.includes(type);
};

export class DeliveryQueue {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  ensureSchema() {
    this.#sql.exec(`
      CREATE TABLE IF NOT EXISTS deliveries (
        id             TEXT PRIMARY KEY,
        endpoint_id    TEXT NOT NULL,
        msg_id         TEXT NOT NULL,
        type           TEXT NOT NULL,
        body           TEXT NOT NULL,
        status         TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempts       INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        next_at        INTEGER,
        response_status INTEGER,
        error          TEXT,
        latency_ms     INTEGER,
        attempted_at   INTEGER,
        created_at     INTEGER NOT NULL,
        CHECK ((status = 'pending') = (next_at IS NOT NULL)),
        UNIQUE (endpoint_id, msg_id)
      );
      CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries (next_at) WHERE status = 'pending';
      CREATE INDEX IF NOT EXISTS deliveries_endpoint ON deliveries (endpoint_id, id);
    `);
  }

  /**
   * One pending delivery, due now, for each event each endpoint subscribes to, to at most `fanout`
   * endpoints an event: the oldest that take it (`endpoints` in id order). Each further endpoint
   * gets the delivery as failed, unsent, saying why (issue 28, item 5), so nothing is lost
   * silently; an admin may still send it with a retry. Answers how many are pending.
   */
  enqueue(endpoints: { id: string; events: string }[], events: OrgEvent[], fanout: number, now: number): number {
    let added = 0;
    for (const e of events) {
      const takers = endpoints.filter((ep) => wants(ep.events, e.type));
      takers.forEach((ep, i) => {
        const sent = i < fanout;
        const skipped = `not sent: an event goes to at most ${fanout} endpoints, the oldest that take it, and ${takers.length} take this one`;
        const cursor = this.#sql.exec(
          `INSERT INTO deliveries (id, endpoint_id, msg_id, type, body, status, next_at, error, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
          newId("dlv", now),
          ep.id,
          messageId(e),
          e.type,
          deliveryBody(e),
          sent ? "pending" : "failed",
          sent ? now : null,
          sent ? null : skipped,
          now,
        );
        added += sent && cursor.rowsWritten > 0 ? 1 : 0;
      });
    }
    return added;
  }

  /** The deliveries due at `now`, oldest first: at most `limit` (the org's budget) and ATTEMPTS_PER_RUN. */
  due(now: number, limit: number): DeliveryRow[] {
    const n = Math.max(0, Math.min(ATTEMPTS_PER_RUN, Math.floor(limit)));
    if (n === 0) return [];
    return this.#sql.exec<DeliveryRow>(`SELECT * FROM deliveries WHERE status = 'pending' AND next_at <= ? ORDER BY next_at, id LIMIT ?`, now, n).toArray();
  }

  nextAt(): number | null {
    return this.#sql.exec<{ at: number | null }>(`SELECT MIN(next_at) AS at FROM deliveries WHERE status = 'pending'`).toArray()[0]?.at ?? null;
  }

  /** What an attempt (or a decision not to attempt) left. */
  record(id: string, status: DeliveryStatus, nextAt: number | null, outcome: AttemptOutcome | null, latencyMs: number | null, now: number) {
    if (outcome === null) {
      this.#sql.exec(`UPDATE deliveries SET status = ?, next_at = ? WHERE id = ?`, status, nextAt, id);
      return;
    }
    this.#sql.exec(
      `UPDATE deliveries SET status = ?, next_at = ?, attempts = attempts + 1, response_status = ?, error = ?, latency_ms = ?, attempted_at = ? WHERE id = ?`,
      status,
      nextAt,
      outcome.status,
      outcome.error,
      latencyMs,
      now,
      id,
    );
  }

  /** Stops what an endpoint had pending (it was disabled or deleted), saying why. */
  abandon(endpointId: string, why: string) {
    this.#sql.exec(`UPDATE deliveries SET status = 'failed', next_at = NULL, error = ? WHERE endpoint_id = ? AND status = 'pending'`, why, endpointId);
  }

  /** An endpoint's deliveries, newest first, after the cursor's id. */
  list(endpointId: string, before: string | null, limit: number): DeliveryRow[] {
    return this.#sql
      .exec<DeliveryRow>(
        `SELECT * FROM deliveries WHERE endpoint_id = ? AND (? IS NULL OR id < ?) ORDER BY id DESC LIMIT ?`,
        endpointId,
        before,
        before,
        limit,
      )
      .toArray();
  }

  /** Makes a delivery due now again, whatever it came to; null when the endpoint has no such delivery. */
  retry(endpointId: string, id: string, now: number): DeliveryRow | null {
    return (
      this.#sql
        .exec<DeliveryRow>(`UPDATE deliveries SET status = 'pending', next_at = ?, error = NULL WHERE id = ? AND endpoint_id = ? RETURNING *`, now, id, endpointId)
        .toArray()[0] ?? null
    );
  }

  trim(now: number) {
    this.#sql.exec(`DELETE FROM deliveries WHERE status != 'pending' AND created_at < ?`, now - DELIVERY_RETENTION_MS);
  }
}

/** Sends one attempt; any answer is an outcome, and so is no answer (a timeout, a refused connection). */
export async function send(url: string, headers: Record<string, string>, body: string): Promise<{ outcome: AttemptOutcome; latency_ms: number }> {
  const started = Date.now();
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", "user-agent": "lessor-webhooks/1" },
      body,
      // A redirect is not followed: it could lead anywhere, a private address included.
      redirect: "manual",
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    await res.body?.cancel().catch(() => undefined);
    return { outcome: { status: res.status, error: null }, latency_ms: Date.now() - started };
  } catch (e) {
    const error = (e as Error)?.name === "TimeoutError" ? `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s` : `could not connect: ${errorText(e).slice(0, 200)}`;
    return { outcome: { status: null, error }, latency_ms: Date.now() - started };
  }
}
