/**
 * De-duplication of provider webhook events (docs/ingress.md): a provider delivers at least once,
 * so the same event id may come again. Each id is kept 24 hours in D1 (`ingress_events`,
 * migrations/0015 and 0025), per provider account, so one account's ids never make another's
 * deliveries duplicates; the cron's retention step deletes older ones (src/db/retention.ts). An
 * account records at most its cap of ids in 24 hours (src/db/creation-caps.ts), counted in the
 * insert: past it a delivery is refused 429, and storage cannot grow past what retention deletes.
 */
import { sql, type Compilable, type Expression } from "kysely";
import type { Db } from "../db";

/** How long an event id is remembered; a later delivery of it counts as new. */
export const INGRESS_DEDUP_WINDOW_MS = 24 * 3_600_000;

/**
 * The account a delivery came in under, as an SQL expression: '' for the installation's own (the
 * sim's), else the org whose token it carries (src/ingress/accounts.ts `accountOfToken`; NULL for
 * a token no account holds, which records nothing and finds no lease).
 */
export type AccountExpression = Expression<string | null>;

/**
 * Who the account is (null: the token is no account's) and when it took `eventId` in last (null:
 * never, or no id), read in the delivery's batch before it is recorded.
 */
export function accountAndLastSeen(db: Db, account: AccountExpression, provider: string, eventId: string | null) {
  return db.selectNoFrom((eb) => [
    sql<string | null>`${account}`.as("account"),
    // No id: "" is never one (verify.ts takes an empty id as none), so nothing is found.
    eb.selectFrom("ingress_events").select("received_at").where("account", "=", account).where("provider", "=", provider).where("event_id", "=", eventId ?? "").as("seen_at"),
  ]);
}

/**
 * The statement that records `eventId` as taken in at `now` for the account: it answers a row
 * (the id) when this is its first delivery in the window and the account has recorded fewer than
 * `cap` in it, and none otherwise. One statement, so two deliveries of the same id racing each
 * other take it in once, and two of one account's cannot both pass its cap. A row older than the
 * window that the retention step has not yet deleted is taken over, as if it were gone. receive.ts
 * sends it in one batch with the lookup of the lease, so a delivery costs one round trip to D1.
 */
export function deliveryRecord(db: Db, account: AccountExpression, provider: string, eventId: string, now: number, cap: number): Compilable {
  const windowStart = now - INGRESS_DEDUP_WINDOW_MS;
  // The account's ids in the window, through the key (account, provider, event_id), up to `cap`.
  const recent = db
    .selectFrom("ingress_events")
    .select("event_id")
    .where("account", "=", account)
    .where("provider", "=", provider)
    .where("received_at", ">=", windowStart)
    .limit(cap);
  const row = db
    .selectNoFrom([sql<string | null>`${account}`.as("account"), sql.val(provider).as("provider"), sql.val(eventId).as("event_id"), sql.val(now).as("received_at")])
    .where(sql<boolean>`${account} IS NOT NULL`)
    .where((eb) => eb.selectFrom(recent.as("recent")).select((c) => c.fn.countAll<number>().as("n")), "<", cap);
  return db
    .insertInto("ingress_events")
    .columns(["account", "provider", "event_id", "received_at"])
    .expression(row)
    .onConflict((oc) =>
      oc
        .columns(["account", "provider", "event_id"])
        .doUpdateSet({ received_at: now })
        .where("ingress_events.received_at", "<", windowStart),
    )
    .returning("event_id");
}
