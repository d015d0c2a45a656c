/**
 * Retention (docs/design.md "Retention"; docs/operations.md "Limits and retention"): shared tables do not grow
 * without bound. The cron deletes, each run:
 * - quotes that expired more than 24 hours ago and that no lease refers to. A quote a lease was
 *   created from is kept as long as the lease (`GET /v1/quotes/:id` still answers it) and marked
 *   `kept`, which takes it out of the index the next run reads. Only quotes made before issue 34
 *   are in D1: since, each org's object keeps and deletes its own (src/catalog/quote-store.ts);
 * - idempotency records older than their 24-hour window (src/idempotency.ts);
 * - provider webhook event ids older than their 24-hour de-duplication window (src/ingress/);
 * - bad hosts whose time has run out (src/catalog/bad-hosts.ts): selections read only those in
 *   force, so this only keeps the table small;
 * - API keys revoked more than REVOKED_KEY_RETENTION_MS ago (src/auth/limits.ts).
 *
 * How much a run deletes is derived from what the limits let every owner create (issue 28 item 4;
 * `retentionPlan`): each table's rows per owner per window, times the owners there are, over one
 * cron period, twice over, so that a run takes what one period can add and as much again of what
 * earlier runs left. Then no backlog outgrows one window's worth, and a table holds at most about
 * twice what its caps let its owners make in a window. The deletes go in statements of at most
 * RETENTION_CHUNK rows, found through an index in age order, so each statement costs the same
 * however much is stored and D1's one writer is never held long. Every step is idempotent: an
 * overlapping run deletes nothing twice and needs no lock.
 */
import { sql } from "kysely";
import type { Db } from "./index";
import { MAX_API_KEY_ROWS, REVOKED_KEY_RETENTION_MS } from "../auth/limits";
import { IDEMPOTENCY_WINDOW_MS } from "../idempotency";
import { INGRESS_DEDUP_WINDOW_MS } from "../ingress/dedup";
import { MAX_HOST_ATTEMPTS } from "../lease/policy";
import { CREATION_WINDOW_MS, type CreationCaps } from "./creation-caps";

/** How long an expired quote is kept before it may be deleted. */
export const QUOTE_RETENTION_MS = 24 * 3_600_000;
/** How often the cron runs (wrangler.toml `crons = ["* * * * *"]`, both environments). */
export const CRON_PERIOD_MS = 60_000;
/** A run deletes what its owners may add in a period this many times over (see above). */
export const RETENTION_CATCH_UP = 2;
/** The least a run deletes from a table, however few owners: a burst is cleared in a few runs. */
export const RETENTION_MIN_BATCH = 500;
/** The most rows one statement deletes; a run repeats it up to its table's share. */
export const RETENTION_CHUNK = 1_000;

/** The rows a run may delete from each table. */
export interface RetentionPlan {
  quotes: number;
  idempotency: number;
  ingress_events: number;
  bad_hosts: number;
  api_keys: number;
}

/** Who owns the rows the caps bound: orgs, and provider accounts that take webhooks (the installation's own, the sim's, included). */
export interface RetentionOwners {
  orgs: number;
  accounts: number;
}

/**
 * A run's share of a table whose `owners` may each add `perWindow` rows in `windowMs`: what they
 * may add in one cron period, RETENTION_CATCH_UP times over, and at least RETENTION_MIN_BATCH.
 */
export function runShare(perWindow: number, windowMs: number, owners: number, periodMs = CRON_PERIOD_MS): number {
  return Math.max(RETENTION_MIN_BATCH, Math.ceil((RETENTION_CATCH_UP * perWindow * Math.max(0, owners) * periodMs) / windowMs));
}

/**
 * Each table's share of a run, from the installation's caps (src/db/creation-caps.ts) and the
 * other limits that bound what an org adds:
 * - quotes: the quote cap per org;
 * - idempotency: one record per create that succeeded with a key (a failed one deletes its claim),
 *   so at most the quote and lease caps together per org;
 * - ingress_events: the cap per provider account;
 * - bad_hosts: a lease marks at most one host for each host it replaces, `host_attempts - 1`, so
 *   at most the lease cap times MAX_HOST_ATTEMPTS - 1 per org;
 * - api_keys: at most MAX_API_KEY_ROWS rows per org, so at most that many revoked within the
 *   retention window of revoked keys.
 */
export function retentionPlan(caps: CreationCaps, owners: RetentionOwners, periodMs = CRON_PERIOD_MS): RetentionPlan {
  return {
    quotes: runShare(caps.quotes, CREATION_WINDOW_MS, owners.orgs, periodMs),
    idempotency: runShare(caps.quotes + caps.leases, CREATION_WINDOW_MS, owners.orgs, periodMs),
    ingress_events: runShare(caps.ingress_events, CREATION_WINDOW_MS, owners.accounts, periodMs),
    bad_hosts: runShare(caps.leases * (MAX_HOST_ATTEMPTS - 1), CREATION_WINDOW_MS, owners.orgs, periodMs),
    api_keys: runShare(MAX_API_KEY_ROWS, REVOKED_KEY_RETENTION_MS, owners.orgs, periodMs),
  };
}

/** How many orgs and webhook-taking provider accounts there are: one D1 round trip. */
export async function retentionOwners(db: Db): Promise<RetentionOwners> {
  const row = await db
    .selectNoFrom((eb) => [
      eb.selectFrom("orgs").select((c) => c.fn.countAll<number>().as("n")).as("orgs"),
      eb.selectFrom("provider_keys").select((c) => c.fn.countAll<number>().as("n")).where("ingress_token_hash", "is not", null).as("accounts"),
    ])
    .executeTakeFirst();
  // The installation's own account (the sim's) takes webhooks under LESSOR_INGRESS_TOKEN.
  return { orgs: Number(row?.orgs ?? 0), accounts: Number(row?.accounts ?? 0) + 1 };
}

export interface RetentionReport {
  quotes_deleted: number;
  quotes_kept: number;
  idempotency_deleted: number;
  ingress_events_deleted: number;
  bad_hosts_deleted: number;
  api_keys_deleted: number;
}

const count = (n: bigint | undefined) => Number(n ?? 0n);

/** The tables whose rows go once they are older than a window, each by its own time column (and index). */
const AGED = { idempotency: "created_at", ingress_events: "received_at" } as const;

/**
 * Deletes at most `limit` of `table`'s rows older than `cutoff`, oldest first, through the
 * index on its time column; by rowid, since each table's own key is a composite primary key.
 */
async function deleteOldest(db: Db, table: keyof typeof AGED, cutoff: number, limit: number): Promise<number> {
  const t = sql.table(table);
  const at = sql.ref(AGED[table]);
  const result = await sql`DELETE FROM ${t} WHERE rowid IN (SELECT rowid FROM ${t} WHERE ${at} < ${cutoff} ORDER BY ${at} LIMIT ${limit})`.execute(db);
  return count(result.numAffectedRows);
}

/**
 * Runs `step` (which handles at most the chunk it is given and answers how many rows it took) in
 * chunks of RETENTION_CHUNK until `share` rows are taken or a chunk comes back short: nothing more
 * is due.
 */
async function inChunks(share: number, step: (chunk: number) => Promise<number>): Promise<number> {
  let taken = 0;
  while (taken < share) {
    const chunk = Math.min(RETENTION_CHUNK, share - taken);
    const n = await step(chunk);
    taken += n;
    if (n < chunk) break;
  }
  return taken;
}

/**
 * One run: each table's share of `plan` (the cron's comes from `retentionPlan`; a number: that
 * many rows of every table, as a test gives it). Each step stops early once nothing more is due.
 */
export async function runRetention(db: Db, now: number, plan: RetentionPlan | number = RETENTION_MIN_BATCH): Promise<RetentionReport> {
  const share = (table: keyof RetentionPlan) => (typeof plan === "number" ? plan : plan[table]);
  const quoteCutoff = now - QUOTE_RETENTION_MS;
  // A lease refers to it (index `leases_quote`). A quote is leased only before it expires, so no
  // lease can come to refer to one this old while the step runs.
  const referenced = sql<boolean>`exists (select 1 from leases where leases.quote_id = quotes.id)`;
  let quotesKept = 0;
  let quotesDeleted = 0;
  await inChunks(share("quotes"), async (chunk) => {
    // The oldest quotes not yet known to be kept, through the partial index `quotes_expiry`
    // (`kept = 0` is written as a literal: SQLite uses a partial index only for the same literal).
    const oldest = db.selectFrom("quotes").select("id").where(sql<boolean>`kept = 0`).where("expires_at", "<", quoteCutoff).orderBy("expires_at").limit(chunk);
    const kept = await db.updateTable("quotes").set({ kept: 1 }).where("id", "in", oldest).where(referenced).executeTakeFirst();
    const deleted = await db.deleteFrom("quotes").where("id", "in", oldest).where(sql<boolean>`not ${referenced}`).executeTakeFirst();
    quotesKept += count(kept.numUpdatedRows);
    quotesDeleted += count(deleted.numDeletedRows);
    return count(kept.numUpdatedRows) + count(deleted.numDeletedRows);
  });

  // Through `idempotency_age` and `ingress_events_age`.
  const idempotency = await inChunks(share("idempotency"), (chunk) => deleteOldest(db, "idempotency", now - IDEMPOTENCY_WINDOW_MS, chunk));
  const ingress = await inChunks(share("ingress_events"), (chunk) => deleteOldest(db, "ingress_events", now - INGRESS_DEDUP_WINDOW_MS, chunk));

  // Through `bad_hosts_until`; the rowid is the table's own, as above.
  const badHosts = await inChunks(share("bad_hosts"), async (chunk) => {
    const r = await db
      .deleteFrom("bad_hosts")
      .where(sql`rowid`, "in", db.selectFrom("bad_hosts").select(sql`rowid`.as("r")).where("until", "<=", now).orderBy("until").limit(chunk))
      .executeTakeFirst();
    return count(r.numDeletedRows);
  });

  // Through `api_keys_revoked` (migration 0025). A revoked key's object refuses it whether or not
  // its row is there (src/auth/key-object.ts), so deleting the row changes no answer but the list.
  const keys = await inChunks(share("api_keys"), async (chunk) => {
    const r = await db
      .deleteFrom("api_keys")
      .where(
        "id",
        "in",
        db.selectFrom("api_keys").select("id").where("revoked_at", "is not", null).where("revoked_at", "<", now - REVOKED_KEY_RETENTION_MS).orderBy("revoked_at").limit(chunk),
      )
      .executeTakeFirst();
    return count(r.numDeletedRows);
  });

  return {
    quotes_deleted: quotesDeleted,
    quotes_kept: quotesKept,
    idempotency_deleted: idempotency,
    ingress_events_deleted: ingress,
    bad_hosts_deleted: badHosts,
    api_keys_deleted: keys,
  };
}
