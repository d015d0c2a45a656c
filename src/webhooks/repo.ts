/** The `webhook_endpoints` table (migrations/0014): plain functions taking `db` first (STYLE.md rule 9). */
import type { Db } from "../db";
import type { WebhookEndpointRow } from "../db/schema";
import { MAX_WEBHOOK_ENDPOINTS } from "../auth/limits";
import type { EndpointHealth } from "./schedule";

const INSERT_ENDPOINT = `
  INSERT INTO webhook_endpoints (id, org_id, url, events, secret_ciphertext, previous_secret_ciphertext, previous_secret_until, disabled_at, disabled_reason, failing_since, created_at, updated_at)
  SELECT ?1, ?2, ?3, ?4, ?5, NULL, NULL, NULL, NULL, NULL, ?6, ?6
  WHERE (SELECT COUNT(*) FROM webhook_endpoints WHERE org_id = ?2) < ?7
  RETURNING *`;

/**
 * Inserts an endpoint unless its org holds MAX_WEBHOOK_ENDPOINTS already, and returns the stored
 * row; undefined when the org is at the limit. Counted and inserted in one statement, so concurrent
 * creates cannot pass the limit (src/auth/limits.ts).
 */
export async function insertEndpointWithinLimit(
  d1: D1Database,
  row: Pick<WebhookEndpointRow, "id" | "org_id" | "url" | "events" | "secret_ciphertext" | "created_at">,
): Promise<WebhookEndpointRow | undefined> {
  const stored = await d1
    .prepare(INSERT_ENDPOINT)
    .bind(row.id, row.org_id, row.url, row.events, row.secret_ciphertext, row.created_at, MAX_WEBHOOK_ENDPOINTS)
    .first<WebhookEndpointRow>();
  return stored ?? undefined;
}

export function endpointOf(db: Db, orgId: string, id: string): Promise<WebhookEndpointRow | undefined> {
  return db.selectFrom("webhook_endpoints").selectAll().where("org_id", "=", orgId).where("id", "=", id).executeTakeFirst();
}

export function listEndpoints(db: Db, orgId: string, after: string | null, limit: number): Promise<WebhookEndpointRow[]> {
  let q = db.selectFrom("webhook_endpoints").selectAll().where("org_id", "=", orgId);
  if (after) q = q.where("id", ">", after);
  return q.orderBy("id").limit(limit).execute();
}

export type EnabledEndpoint = Pick<WebhookEndpointRow, "id" | "events">;

/** The endpoints that take new deliveries: every one not disabled, oldest first (the fan-out's order). */
export function enabledEndpoints(db: Db, orgId: string): Promise<EnabledEndpoint[]> {
  return db.selectFrom("webhook_endpoints").select(["id", "events"]).where("org_id", "=", orgId).where("disabled_at", "is", null).orderBy("id").execute();
}

export type EndpointChange = Partial<
  Pick<WebhookEndpointRow, "url" | "events" | "secret_ciphertext" | "previous_secret_ciphertext" | "previous_secret_until" | "disabled_at" | "disabled_reason" | "failing_since" | "consecutive_failures">
>;

export async function updateEndpoint(db: Db, orgId: string, id: string, change: EndpointChange, now: number): Promise<WebhookEndpointRow | undefined> {
  return db
    .updateTable("webhook_endpoints")
    .set({ ...change, updated_at: now })
    .where("org_id", "=", orgId)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
}

/** Puts `sealed` in as the secret and the stored one in as the previous, signing until `until`; undefined: no such endpoint. */
export async function rotateEndpointSecret(db: Db, orgId: string, id: string, sealed: string, until: number, now: number): Promise<WebhookEndpointRow | undefined> {
  return db
    .updateTable("webhook_endpoints")
    .set((eb) => ({ secret_ciphertext: sealed, previous_secret_ciphertext: eb.ref("secret_ciphertext"), previous_secret_until: until, updated_at: now }))
    .where("org_id", "=", orgId)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteEndpoint(db: Db, orgId: string, id: string): Promise<WebhookEndpointRow | undefined> {
  return db.deleteFrom("webhook_endpoints").where("org_id", "=", orgId).where("id", "=", id).returningAll().executeTakeFirst();
}

/**
 * Disables an enabled endpoint, with how it had fared; false when it was already disabled (or is
 * gone), so one event is written.
 */
export async function disableEndpoint(db: Db, orgId: string, id: string, reason: "gone" | "failing", health: EndpointHealth, now: number): Promise<boolean> {
  const row = await db
    .updateTable("webhook_endpoints")
    .set({ disabled_at: now, disabled_reason: reason, ...health, updated_at: now })
    .where("org_id", "=", orgId)
    .where("id", "=", id)
    .where("disabled_at", "is", null)
    .returning("id")
    .executeTakeFirst();
  return row !== undefined;
}

/** The endpoints a batch of deliveries goes to, by id, of the org only. */
export function endpointsOf(db: Db, orgId: string, ids: string[]): Promise<WebhookEndpointRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom("webhook_endpoints").selectAll().where("org_id", "=", orgId).where("id", "in", ids).execute();
}

/**
 * How an endpoint fared in one batch of attempts, in the order they ended: whether one was
 * delivered (`cleared`), and the failures after the last delivery (or all of them, when none was)
 * with the first one's time.
 */
export interface HealthRun {
  cleared: boolean;
  failures: number;
  first_failure_at: number | null;
}

/**
 * Records a batch's run on its endpoint: after a delivery the failures since it; without one the
 * failures added to those before, the first failure time kept. Written as one statement relative
 * to the stored row, so that batches of one endpoint the queue runs side by side add up instead
 * of overwriting each other's count. Nothing is written when the batch changes nothing the row (as
 * the batch read it) holds: a healthy endpoint's deliveries cost no write.
 */
export async function saveHealth(db: Db, ep: Pick<WebhookEndpointRow, "id" | "failing_since" | "consecutive_failures">, run: HealthRun): Promise<void> {
  if (run.cleared) {
    if (ep.consecutive_failures === run.failures && ep.failing_since === run.first_failure_at) return;
    await db.updateTable("webhook_endpoints").set({ consecutive_failures: run.failures, failing_since: run.first_failure_at }).where("id", "=", ep.id).execute();
    return;
  }
  if (run.failures === 0) return;
  await db
    .updateTable("webhook_endpoints")
    .set((eb) => ({ consecutive_failures: eb("consecutive_failures", "+", run.failures), failing_since: eb.fn.coalesce("failing_since", eb.val(run.first_failure_at)) }))
    .where("id", "=", ep.id)
    .execute();
}
