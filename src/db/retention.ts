/**
 * Retention (docs/design.md "Retention"): shared tables do not grow without bound. The cron deletes, in
 * bounded batches:
 * - quotes that expired more than 24 hours ago and that no lease refers to. A quote a lease was
 *   created from is kept as long as the lease (`GET /v1/quotes/:id` still answers it) and marked
 *   `kept`, which takes it out of the index the next run reads;
 * - idempotency records older than their 24-hour window (src/idempotency.ts);
 * - provider webhook event ids older than their 24-hour de-duplication window (src/ingress/).
 * - bad hosts whose time has run out (src/catalog/bad-hosts.ts): selections read only those in
 *   force, so this only keeps the table small.
 *
 * Each statement touches at most RETENTION_BATCH rows, found through an index in age order
 * (migrations/0007_markets_retention.sql), so a run costs the same however much is stored; what a
 * run leaves, the next one (a minute later) takes. Every step is idempotent: an overlapping run
 * deletes nothing twice and needs no lock.
 */
import { sql } from "kysely";
import type { Db } from "./index";
import { IDEMPOTENCY_WINDOW_MS } from "../idempotency";
import { INGRESS_DEDUP_WINDOW_MS } from "../ingress/dedup";

/** How long an expired quote is kept before it may be deleted. */
export const QUOTE_RETENTION_MS = 24 * 3_600_000;
/** At most this many rows per table per statement, so one run is cheap whatever is stored. */
export const RETENTION_BATCH = 500;

export interface RetentionReport {
  quotes_deleted: number;
  quotes_kept: number;
  idempotency_deleted: number;
  ingress_events_deleted: number;
  bad_hosts_deleted: number;
}

const count = (n: bigint | undefined) => Number(n ?? 0n);

/** The tables whose rows go once they are older than a window, each by its own time column (and index). */
const AGED = { idempotency: "created_at", ingress_events: "received_at" } as const;

/**
 * Deletes at most `batchSize` of `table`'s rows older than `cutoff`, oldest first, through the
 * index on its time column; by rowid, since each table's own key is a composite primary key.
 */
async function deleteOldest(db: Db, table: keyof typeof AGED, cutoff: number, batchSize: number): Promise<number> {
  const t = sql.table(table);
  const at = sql.ref(AGED[table]);
  const result = await sql`DELETE FROM ${t} WHERE rowid IN (SELECT rowid FROM ${t} WHERE ${at} < ${cutoff} ORDER BY ${at} LIMIT ${batchSize})`.execute(db);
  return count(result.numAffectedRows);
}

export async function runRetention(db: Db, now: number, batchSize = RETENTION_BATCH): Promise<RetentionReport> {
  const quoteCutoff = now - QUOTE_RETENTION_MS;
  // The oldest quotes not yet known to be kept, through the partial index `quotes_expiry`
  // (`kept = 0` is written as a literal: SQLite uses a partial index only for the same literal).
  const oldestQuotes = db
    .selectFrom("quotes")
    .select("id")
    .where(sql<boolean>`kept = 0`)
    .where("expires_at", "<", quoteCutoff)
    .orderBy("expires_at")
    .limit(batchSize);
  // A lease refers to it (index `leases_quote`). A quote is leased only before it expires, so no
  // lease can come to refer to one this old while the step runs.
  const referenced = sql<boolean>`exists (select 1 from leases where leases.quote_id = quotes.id)`;

  const kept = await db
    .updateTable("quotes")
    .set({ kept: 1 })
    .where("id", "in", oldestQuotes)
    .where(referenced)
    .executeTakeFirst();
  const deleted = await db
    .deleteFrom("quotes")
    .where("id", "in", oldestQuotes)
    .where(sql<boolean>`not ${referenced}`)
    .executeTakeFirst();

  // Through `idempotency_age` and `ingress_events_age`.
  const idempotency = await deleteOldest(db, "idempotency", now - IDEMPOTENCY_WINDOW_MS, batchSize);
  const ingress = await deleteOldest(db, "ingress_events", now - INGRESS_DEDUP_WINDOW_MS, batchSize);

  // Through `bad_hosts_until`; the rowid is the table's own, as above.
  const badHosts = await db
    .deleteFrom("bad_hosts")
    .where(
      sql`rowid`,
      "in",
      db.selectFrom("bad_hosts").select(sql`rowid`.as("r")).where("until", "<=", now).orderBy("until").limit(batchSize),
    )
    .executeTakeFirst();

  return {
    quotes_deleted: count(deleted.numDeletedRows),
    quotes_kept: count(kept.numUpdatedRows),
    idempotency_deleted: idempotency,
    ingress_events_deleted: ingress,
    bad_hosts_deleted: count(badHosts.numDeletedRows),
  };
}
