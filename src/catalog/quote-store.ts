/**
 * An org's quotes, kept in the org's own Durable Object (`OrgEventsObject`, src/events/org-object.ts,
 * one per org, named by its id) instead of D1 (issue 34; docs/performance.md "Where the time of an
 * API request goes", docs/storage.md). A quote is then one call to that object: stored, counted
 * against the org's quote cap and checked against the org's bad hosts in one synchronous step of
 * the object, so two concurrent quotes cannot pass the cap together, as the one D1 statement did
 * before. The object mounts this class over its SQLite storage; its RPC methods are thin.
 *
 * Tables (CREATE IF NOT EXISTS, so an object made before gets them on its next start):
 * - `quotes`: every quote the org made in the last day and a little more, as answered. Deleted
 *   QUOTE_TTL_MS + QUOTE_RETENTION_MS after it was made (as D1's retention did: `GET
 *   /v1/quotes/:id` answers an expired quote for a day), a few at each new quote, through the
 *   time-ordered ids: no alarm, no index besides the key.
 * - `kept_quotes`: a copy of each quote a lease was created from, one row per (quote, lease), kept
 *   as long as the object: leases are never deleted, and `GET /v1/quotes/:id` answers the quote a
 *   lease names for as long as the lease is there. Copied when the create takes it, before the
 *   lease's object exists; a create that made no lease gives it back (`release`).
 * - `quote_bad_hosts`: the hosts the org's lease runners marked bad (src/lease/runner.ts, after
 *   its D1 write), until their time runs out: a quote that would answer one is refused with all
 *   of them, and its isolate chooses again without them (src/catalog/quote.ts).
 *
 * The cap's count lives in memory (`#window`): the times of the quotes made in the last
 * CREATION_WINDOW_MS, read from `quotes` once per start of the object, so a quote reads no row to
 * count, where the D1 statement read up to the cap's index entries.
 */
import { CREATION_WINDOW_MS } from "../db/creation-caps";
import { QUOTE_RETENTION_MS } from "../db/retention";
import type { Env } from "../env";
import { orgEventsStub } from "../events/forward";
import { idFloor } from "../ids";
import type { BadHostReason } from "../lease/bad-host";

/** How long a quote may be used to lease (docs/design.md: five minutes). */
export const QUOTE_TTL_MS = 5 * 60_000;

/** How many quotes past their retention one new quote deletes: more than it adds, so the table keeps up. */
export const QUOTE_SWEEP = 2;

/** A quote as the object stores it: the answer, exactly as it was sent. */
export interface StoredQuote {
  id: string;
  created_at: number;
  body: string;
}

/** A bad host as the object knows it: `badHostKey` (src/catalog/bad-hosts.ts), why, until when (ms). */
export interface QuoteBadHost {
  host: string;
  reason: BadHostReason;
  until: number;
}

export type StoreAnswer =
  | { ok: true }
  /** The org made `cap` quotes in the window; `oldest_at` is when the oldest of them was made. */
  | { ok: false; refused: "cap"; oldest_at: number }
  /** The quote names a host the org's runners marked bad: every one in force, to choose again without. */
  | { ok: false; refused: "bad_hosts"; bad_hosts: QuoteBadHost[] };

export class QuoteStore {
  readonly #sql: SqlStorage;
  /** Times of the quotes in the cap's window, oldest first, from `#head` on; null until first needed. */
  #window: number[] | null = null;
  #head = 0;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  ensureSchema(): void {
    this.#sql.exec(`
      CREATE TABLE IF NOT EXISTS quotes (
        id         TEXT PRIMARY KEY,
        created_at INTEGER NOT NULL,
        body       TEXT NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS kept_quotes (
        quote_id TEXT NOT NULL,
        lease_id TEXT NOT NULL,
        body     TEXT NOT NULL,
        PRIMARY KEY (quote_id, lease_id)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS quote_bad_hosts (
        host   TEXT PRIMARY KEY,
        reason TEXT NOT NULL,
        until  INTEGER NOT NULL
      ) WITHOUT ROWID;
    `);
  }

  /**
   * Stores `quote` unless the org made `cap` quotes in the window before `now`, or it names one of
   * `hosts` that is bad for the org at `now` (pass none to store it whatever its hosts). Refused,
   * nothing is written.
   */
  create(quote: StoredQuote, hosts: readonly string[], cap: number, now: number): StoreAnswer {
    const window = this.#inWindow(now);
    if (window.count >= cap) return { ok: false, refused: "cap", oldest_at: window.oldest! };
    if (hosts.length > 0) {
      const marks = `SELECT 1 FROM quote_bad_hosts WHERE host IN (${hosts.map(() => "?").join(", ")}) AND until > ? LIMIT 1`;
      if (this.#sql.exec(marks, ...hosts, now).toArray().length > 0) return { ok: false, refused: "bad_hosts", bad_hosts: this.badHosts(now) };
    }
    this.#sql.exec(`INSERT INTO quotes (id, created_at, body) VALUES (?, ?, ?)`, quote.id, quote.created_at, quote.body);
    // Kept in order whatever the clock did.
    this.#window!.push(Math.max(now, this.#window!.at(-1) ?? now));
    // The oldest quotes past their retention, by their time-ordered ids.
    this.#sql.exec(
      `DELETE FROM quotes WHERE id IN (SELECT id FROM quotes WHERE id < ? ORDER BY id LIMIT ?)`,
      idFloor("qt", now - QUOTE_TTL_MS - QUOTE_RETENTION_MS),
      QUOTE_SWEEP,
    );
    return { ok: true };
  }

  /** The quote as it was answered, or null: never made by this org, or gone after its retention. */
  get(id: string): string | null {
    const row = this.#sql
      .exec<{ body: string }>(`SELECT body FROM quotes WHERE id = ? UNION ALL SELECT body FROM kept_quotes WHERE quote_id = ? LIMIT 1`, id, id)
      .toArray()[0];
    return row?.body ?? null;
  }

  /** Keeps the quote for as long as the object, for the lease `leaseId` made from it; false when there is no such quote. */
  keep(id: string, leaseId: string): boolean {
    const body = this.get(id);
    if (body === null) return false;
    this.#sql.exec(`INSERT INTO kept_quotes (quote_id, lease_id, body) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, id, leaseId, body);
    return true;
  }

  /** Gives back what `keep` kept for a lease that was never made. */
  release(id: string, leaseId: string): void {
    this.#sql.exec(`DELETE FROM kept_quotes WHERE quote_id = ? AND lease_id = ?`, id, leaseId);
  }

  /** Records a bad host; one already known keeps the later `until` and takes the newer reason. Drops those run out. */
  markBadHost(mark: QuoteBadHost, now: number): void {
    this.#sql.exec(`DELETE FROM quote_bad_hosts WHERE until <= ?`, now);
    if (mark.until <= now) return;
    this.#sql.exec(
      `INSERT INTO quote_bad_hosts (host, reason, until) VALUES (?, ?, ?)
       ON CONFLICT (host) DO UPDATE SET reason = excluded.reason, until = max(until, excluded.until)`,
      mark.host,
      mark.reason,
      mark.until,
    );
  }

  /** The org's bad hosts in force at `now`, as its runners told this object. */
  badHosts(now: number): QuoteBadHost[] {
    return this.#sql.exec<{ host: string; reason: BadHostReason; until: number }>(`SELECT host, reason, until FROM quote_bad_hosts WHERE until > ?`, now).toArray();
  }

  /** How many quotes the window ending at `now` holds, and when the oldest was made; read from the table on first use. */
  #inWindow(now: number): { count: number; oldest: number | undefined } {
    const from = now - CREATION_WINDOW_MS;
    if (this.#window === null) {
      // Every quote of the window is still in `quotes`: they are deleted a day after they expire.
      this.#window = this.#sql
        .exec<{ created_at: number }>(`SELECT created_at FROM quotes WHERE id >= ? ORDER BY id`, idFloor("qt", from))
        .toArray()
        .map((r) => r.created_at);
      this.#head = 0;
    }
    const w = this.#window;
    while (this.#head < w.length && w[this.#head]! <= from) this.#head++;
    if (this.#head > 1024 && this.#head * 2 > w.length) {
      w.splice(0, this.#head);
      this.#head = 0;
    }
    return { count: w.length - this.#head, oldest: w[this.#head] };
  }
}

/** The org's object, where its quotes are (src/events/org-object.ts). */
export const orgQuotes = (env: Pick<Env, "ORG_EVENTS">, orgId: string) => orgEventsStub(env, orgId);
