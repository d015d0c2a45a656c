/**
 * De-duplication of provider webhook events (docs/ingress.md): a provider delivers at least once,
 * so the same event id may come again. Each id is kept 24 hours in D1 (`ingress_events`,
 * migrations/0015); the cron's retention step deletes older ones (src/db/retention.ts).
 */
import type { Compilable } from "kysely";
import type { Db } from "../db";

/** How long an event id is remembered; a later delivery of it counts as new. */
export const INGRESS_DEDUP_WINDOW_MS = 24 * 3_600_000;

/**
 * The statement that records `eventId` as taken in at `now`: it answers a row (the id) when this is
 * its first delivery in the window, and none when it is not. One statement, so two deliveries of
 * the same id racing each other take it in once. A row older than the window that the retention
 * step has not yet deleted is taken over, as if it were gone. receive.ts sends it in one batch with
 * the lookup of the lease, so a delivery costs one round trip to D1.
 */
export function deliveryRecord(db: Db, provider: string, eventId: string, now: number): Compilable {
  return db
    .insertInto("ingress_events")
    .values({ provider, event_id: eventId, received_at: now })
    .onConflict((oc) =>
      oc
        .columns(["provider", "event_id"])
        .doUpdateSet({ received_at: now })
        .where("ingress_events.received_at", "<", now - INGRESS_DEDUP_WINDOW_MS),
    )
    .returning("event_id");
}
