/**
 * De-duplication of provider webhook events (docs/ingress.md): a provider delivers at least once,
 * so the same event id may come again. Each id is kept 24 hours in D1 (`ingress_events`,
 * migrations/0015); the cron's retention step deletes older ones (src/db/retention.ts).
 */
import type { Db } from "../db";

/** How long an event id is remembered; a later delivery of it counts as new. */
export const INGRESS_DEDUP_WINDOW_MS = 24 * 3_600_000;

/**
 * Records `eventId` as taken in at `now`; true when this is its first delivery in the window. One
 * statement, so two deliveries of the same id racing each other take it in once. A row older than
 * the window that the retention step has not yet deleted is taken over, as if it were gone.
 */
export async function firstDelivery(db: Db, provider: string, eventId: string, now: number): Promise<boolean> {
  const row = await db
    .insertInto("ingress_events")
    .values({ provider, event_id: eventId, received_at: now })
    .onConflict((oc) =>
      oc
        .columns(["provider", "event_id"])
        .doUpdateSet({ received_at: now })
        .where("ingress_events.received_at", "<", now - INGRESS_DEDUP_WINDOW_MS),
    )
    .returning("event_id")
    .executeTakeFirst();
  return row !== undefined;
}
