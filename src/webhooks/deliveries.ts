/**
 * Webhook deliveries: one row per (endpoint, event), kept in the org's OrgEventsObject beside its
 * event log, what the object hands to the webhook queue, and the attempt that sends one.
 *
 * The object decides which deliveries exist and keeps their record; it hands each pending one to
 * the queue (binding WEBHOOKS) as a small message naming the delivery and the hand-over it belongs
 * to (`queued_at`, its token), and the queue's consumer (src/webhooks/consumer.ts) sends it. The
 * consumer first asks the object which of a batch's deliveries are still to be sent (`claim`), and
 * afterwards tells it what came of them (`settle`): one call each per org and batch. A message
 * whose token is no longer the row's (the delivery finished, was retried by hand, or handed over
 * again) is dropped unsent. docs/events.md "Outbound webhooks".
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
/**
 * When the org's budget is spent, the object hands nothing over until this many attempts have
 * refilled (or the minute's worth, when that is less): a throttled org is served in runs, not one
 * delivery at a time (src/webhooks/budget.ts `budgetReadyAt`).
 */
export const REFILL_RUN = 20;
/** The most deliveries one hand-over takes; the alarm comes back at once for more. */
export const HANDOVER_MAX = 1_000;
/** A queue's `sendBatch` takes at most 100 messages (developers.cloudflare.com/queues/platform/limits/). */
export const SEND_BATCH_MAX = 100;
/** A hand-over the queue refused is tried again this much later. */
export const HANDOVER_RETRY_MS = 5_000;
/**
 * A delivery handed to the queue that has not been settled this long after it was due is taken to
 * be lost (a queue that dropped it, a consumer that died between its send and its report, a
 * restarted `wrangler dev`, whose queues live in memory) and is handed over again, under a new token.
 */
export const STALE_AFTER_MS = 15 * 60 * 1000;

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
  /** When it was last handed to the queue, and the token its message carries; null while it waits for a hand-over. */
  queued_at: number | null;
  created_at: number;
};

/**
 * What the webhook queue carries. A delivery names its row and the hand-over it belongs to, never
 * its body or its secret: the consumer gets the body from the org's object (`claim`). A report is
 * what a consumer could not hand to the object itself (`settle` failed), kept in the queue until it can.
 */
export type WebhookMessage = { kind: "delivery"; org: string; id: string; token: number } | { kind: "report"; org: string; settled: Settlement[]; disabled: Disabled[] };

/** A delivery the consumer may send: its endpoint, its `webhook-id`, its body and the attempts made before. */
export type Claimed = {
  endpoint_id: string;
  msg_id: string;
  body: string;
  attempts: number;
};

/**
 * What came of one message, as the consumer tells the object: the delivery's new status, when it
 * is tried next (pending), and the attempt's answer; `attempt` null when no request was made
 * (`error` then says why).
 */
export interface Settlement {
  id: string;
  token: number;
  status: DeliveryStatus;
  next_at: number | null;
  attempt: { outcome: AttemptOutcome; latency_ms: number | null; at: number } | null;
  error: string | null;
}

/** An endpoint a batch disabled, for the org's `webhook_disabled` event. */
export interface Disabled {
  endpoint_id: string;
  url: string;
  reason: "gone" | "failing";
  consecutive_failures: number;
}

export function isWebhookMessage(body: unknown): body is WebhookMessage {
  const m = body as Partial<Record<string, unknown>> | null;
  if (typeof m !== "object" || m === null || typeof m.org !== "string") return false;
  if (m.kind === "delivery") return typeof m.id === "string" && typeof m.token === "number";
  return m.kind === "report" && Array.isArray(m.settled) && Array.isArray(m.disabled);
}

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

  /**
   * The table as of schema version 2 (`version` is the object's before this start). Version 2 adds
   * `queued_at` and indexes pending rows by whether they wait for a hand-over or are in the queue;
   * a table made before it gets the column (null: every pending row is handed over at the next
   * alarm, which the version-1 object had already set for it) and the new indexes.
   */
  ensureSchema(version: number) {
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
        queued_at      INTEGER,
        CHECK ((status = 'pending') = (next_at IS NOT NULL)),
        UNIQUE (endpoint_id, msg_id)
      );
      CREATE INDEX IF NOT EXISTS deliveries_endpoint ON deliveries (endpoint_id, id);
    `);
    if (version < 2) {
      const has = this.#sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM pragma_table_info('deliveries') WHERE name = 'queued_at'`).one().n;
      if (has === 0) this.#sql.exec(`ALTER TABLE deliveries ADD COLUMN queued_at INTEGER`);
      this.#sql.exec(`DROP INDEX IF EXISTS deliveries_due`);
    }
    this.#sql.exec(`
      CREATE INDEX IF NOT EXISTS deliveries_waiting ON deliveries (next_at) WHERE status = 'pending' AND queued_at IS NULL;
      CREATE INDEX IF NOT EXISTS deliveries_queued ON deliveries (next_at) WHERE status = 'pending' AND queued_at IS NOT NULL;
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

  /**
   * Takes the pending deliveries due at `now` that wait for a hand-over, oldest first, at most
   * `limit`, and marks them handed over under the token `now` before anything is sent: a second
   * hand-over running meanwhile (the object serves other calls while the queue answers) takes others.
   */
  takeDue(now: number, limit: number): string[] {
    const n = Math.max(0, Math.min(HANDOVER_MAX, Math.floor(limit)));
    if (n === 0) return [];
    return this.#sql
      .exec<{ id: string }>(
        `UPDATE deliveries SET queued_at = ?1 WHERE id IN (SELECT id FROM deliveries WHERE status = 'pending' AND queued_at IS NULL AND next_at <= ?1 ORDER BY next_at, id LIMIT ?2) RETURNING id`,
        now,
        n,
      )
      .toArray()
      .map((r) => r.id);
  }

  /** Gives back what a hand-over under `token` could not hand to the queue: due again at `retryAt`. */
  untake(ids: string[], token: number, retryAt: number) {
    for (const id of ids) this.#sql.exec(`UPDATE deliveries SET queued_at = NULL, next_at = ? WHERE id = ? AND status = 'pending' AND queued_at = ?`, retryAt, id, token);
  }

  /**
   * Of the messages `items`, the deliveries still to be sent: pending and still under the message's
   * token (null for the others: finished, retried by hand, handed over again, or gone).
   */
  claim(items: { id: string; token: number }[]): (Claimed | null)[] {
    return items.map(
      ({ id, token }) =>
        this.#sql
          .exec<Claimed>(`SELECT endpoint_id, msg_id, body, attempts FROM deliveries WHERE id = ? AND status = 'pending' AND queued_at = ?`, id, token)
          .toArray()[0] ?? null,
    );
  }

  /**
   * Records what came of a message, if its delivery is still pending under the message's token (a
   * report that comes late, or twice, changes nothing). A pending one stays handed over: the queue
   * holds its message for the next attempt.
   */
  settle(s: Settlement) {
    const pending = `WHERE id = ? AND status = 'pending' AND queued_at = ?`;
    if (s.attempt === null) {
      this.#sql.exec(`UPDATE deliveries SET status = ?, next_at = ?, error = COALESCE(?, error) ${pending}`, s.status, s.next_at, s.error, s.id, s.token);
      return;
    }
    const { outcome, latency_ms, at } = s.attempt;
    this.#sql.exec(
      `UPDATE deliveries SET status = ?, next_at = ?, attempts = attempts + 1, response_status = ?, error = ?, latency_ms = ?, attempted_at = ? ${pending}`,
      s.status,
      s.next_at,
      outcome.status,
      outcome.error,
      latency_ms,
      at,
      s.id,
      s.token,
    );
  }

  /**
   * Hands over again what the queue has held past STALE_AFTER_MS without a report (see there): it
   * waits for the next hand-over, due now, and a message under its old token is dropped unsent.
   */
  reclaimStale(now: number): number {
    return this.#sql.exec(`UPDATE deliveries SET queued_at = NULL WHERE status = 'pending' AND queued_at IS NOT NULL AND next_at <= ?`, now - STALE_AFTER_MS).rowsWritten;
  }

  /** When the earliest delivery waiting for a hand-over is due; null when none waits. */
  nextWaitingAt(): number | null {
    return this.#sql.exec<{ at: number | null }>(`SELECT MIN(next_at) AS at FROM deliveries WHERE status = 'pending' AND queued_at IS NULL`).toArray()[0]?.at ?? null;
  }

  /** When the earliest delivery in the queue would count as lost (`reclaimStale`); null when none is in it. */
  nextStaleAt(): number | null {
    const at = this.#sql.exec<{ at: number | null }>(`SELECT MIN(next_at) AS at FROM deliveries WHERE status = 'pending' AND queued_at IS NOT NULL`).toArray()[0]?.at ?? null;
    return at === null ? null : at + STALE_AFTER_MS;
  }

  /** Stops what an endpoint had pending (it was disabled or deleted), saying why: a message still in the queue is dropped unsent. */
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

  /**
   * Makes a delivery due now again, whatever it came to, waiting for a hand-over of its own (a
   * message of an earlier one is then dropped unsent); null when the endpoint has no such delivery.
   */
  retry(endpointId: string, id: string, now: number): DeliveryRow | null {
    return (
      this.#sql
        .exec<DeliveryRow>(
          `UPDATE deliveries SET status = 'pending', next_at = ?, error = NULL, queued_at = NULL WHERE id = ? AND endpoint_id = ? RETURNING *`,
          now,
          id,
          endpointId,
        )
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
