/**
 * One Durable Object per org (named by the org's id): the org's event log and its fan-out.
 *
 * Every lease's object forwards each event it appends here (src/lease/object.ts `#forward`). The
 * forward is best effort and level-triggered: the lease remembers the last event the log took
 * (`forwarded_seq`) and sends everything after it again on its next change or alarm, and the log
 * keys each event by `<lease id>.<seq>`, so a repeated forward adds nothing. The log keeps the
 * newest ORG_LOG_RETAINED events with their own increasing ids; open streams get each new event as
 * it lands; a reader resuming before the oldest kept id is told the events are gone (410).
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import type { LeaseEvent } from "../lease/object";
import { ORG_LOG_RETAINED, orgEventFrame, type OrgEvent } from "./org-events";
import { Followers } from "./sse";

const SCHEMA_VERSION = 1;

export type OrgEventsAnswer<T> = { ok: true; value: T } | { ok: false; gone: true; oldest: number };

export class OrgEventsObject extends DurableObject<Env> {
  readonly #sql: SqlStorage;
  readonly #followers = new Followers();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    ctx.blockConcurrencyWhile(async () => this.#ensureSchema());
  }

  #ensureSchema() {
    this.#sql.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    const row = this.#sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'schema_version'`).toArray()[0];
    if (Number(row?.value ?? 0) < 1) {
      this.#sql.exec(`
        CREATE TABLE IF NOT EXISTS log (
          id       INTEGER PRIMARY KEY AUTOINCREMENT,
          key      TEXT NOT NULL UNIQUE,
          lease_id TEXT,
          at       INTEGER NOT NULL,
          body     TEXT NOT NULL
        );
      `);
    }
    this.#sql.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)`, String(SCHEMA_VERSION));
  }

  // ---- RPC surface ---------------------------------------------------------------------------

  /** Appends a lease's events; the ones already held are dropped. Answers how many were new. */
  async append(orgId: string, leaseId: string, events: LeaseEvent[]): Promise<number> {
    const fresh: OrgEvent[] = [];
    for (const e of events) {
      const at = Date.parse(e.at);
      const row = this.#sql
        .exec<{ id: number }>(
          `INSERT INTO log (key, lease_id, at, body) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO NOTHING RETURNING id`,
          `${leaseId}.${e.seq}`,
          leaseId,
          at,
          JSON.stringify({ lease_id: leaseId, ...e }),
        )
        .toArray()[0];
      if (row) fresh.push({ id: row.id, lease_id: leaseId, ...e });
    }
    await this.#landed(orgId, fresh);
    return fresh.length;
  }

  /** The events after `after`, at most `limit`, or gone when some after it are no longer kept. */
  page(after: number, limit: number): OrgEventsAnswer<{ data: OrgEvent[]; next_after: number | null }> {
    const oldest = this.#oldest();
    if (oldest !== null && after < oldest - 1) return { ok: false, gone: true, oldest };
    const data = this.#after(after, limit + 1);
    const more = data.length > limit;
    if (more) data.pop();
    return { ok: true, value: { data, next_after: more ? data.at(-1)!.id : null } };
  }

  /** A stream of the events after `after`, then each new one; gone as `page` says. */
  follow(after: number): OrgEventsAnswer<ReadableStream<Uint8Array>> {
    const oldest = this.#oldest();
    if (oldest !== null && after < oldest - 1) return { ok: false, gone: true, oldest };
    return { ok: true, value: this.#followers.open(this.#after(after, -1).map(orgEventFrame), null) };
  }

  // ---- the log --------------------------------------------------------------------------------

  /** What follows every append: trim the log, push to open streams. */
  async #landed(orgId: string, fresh: OrgEvent[]): Promise<void> {
    if (fresh.length === 0) return;
    this.#sql.exec(`DELETE FROM log WHERE id <= (SELECT MAX(id) FROM log) - ?`, ORG_LOG_RETAINED);
    this.#followers.publish(fresh.map(orgEventFrame));
    void orgId;
  }

  #oldest(): number | null {
    return this.#sql.exec<{ id: number | null }>(`SELECT MIN(id) AS id FROM log`).toArray()[0]?.id ?? null;
  }

  #after(after: number, limit: number): OrgEvent[] {
    return this.#sql
      .exec<{ id: number; body: string }>(`SELECT id, body FROM log WHERE id > ? ORDER BY id LIMIT ?`, after, limit)
      .toArray()
      .map((r) => ({ id: r.id, ...(JSON.parse(r.body) as Omit<OrgEvent, "id">) }));
  }
}
