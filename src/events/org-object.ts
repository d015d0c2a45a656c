/**
 * One Durable Object per org (named by the org's id): the org's event log and its fan-out.
 *
 * Every lease's object forwards each event it appends here (src/events/lease-stream.ts `forward`). The
 * forward is best effort and level-triggered: the lease remembers the last event the log took
 * (`forwarded_seq`) and sends everything after it again on its next change or alarm, and the log
 * drops a lease's event it already has (`append`), so a repeated forward adds nothing. The log keeps the
 * newest ORG_LOG_RETAINED events with their own increasing ids; open streams get each new event as
 * it lands (src/events/sse.ts); a reader resuming before the oldest kept id is told the events are
 * gone (410), and a stream that falls that far behind is closed, so its reconnect is told the same.
 *
 * It also delivers the org's outbound webhooks: each new event becomes one pending delivery per
 * endpoint that subscribes to its type, to at most LESSOR_WEBHOOK_FANOUT endpoints an event
 * (src/webhooks/deliveries.ts), and the object's one alarm, set to the earliest due delivery after
 * every change, sends them (src/webhooks/dispatch.ts), within the org's budget of attempts a minute
 * (src/webhooks/budget.ts, kept in `meta` as `delivery_budget`): past it the alarm waits.
 */
import { MeteredObject } from "../metered-object";
import { meteredAlarm } from "../metering";
import { setMeta } from "../object-meta";
import type { Env } from "../env";
import type { LeaseEvent } from "../lease/object";
import type { EventsAnswer } from "./follow";
import { ORG_LOG_RETAINED, orgEventFrame, type OrgEvent } from "./org-events";
import { MAX_EVENT_PAGE } from "./lease-events";
import { Followers, overRpc } from "./sse";
import { HeldSlots, type SlotClaim, type SlotRefusal } from "../auth/stream-slots";
import { database } from "../db";
import { budgetReadyAt, deliveriesPerMinute, fanout, refilled, type Budget } from "../webhooks/budget";
import { ATTEMPTS_PER_RUN, DeliveryQueue, renderDelivery, type DeliveryView } from "../webhooks/deliveries";
import { runDueDeliveries, type Disabled } from "../webhooks/dispatch";
import { enabledEndpoints } from "../webhooks/repo";

const SCHEMA_VERSION = 1;
/** How many leases' newest logged event `append` remembers; past it, it forgets them all and reads the log again. */
const LOGGED_REMEMBERED = 10_000;

export class OrgEventsObject extends MeteredObject {
  readonly #sql: SqlStorage;
  readonly #followers: Followers<OrgEvent>;
  /** The slots of its open streams (src/auth/stream-slots.ts). */
  readonly #slots: HeldSlots;
  readonly #deliveries: DeliveryQueue;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    this.#followers = new Followers<OrgEvent>({
      // A page of events at a time; null once what the follower had not read is no longer kept.
      itemsAfter: (id) => (this.#gone(id) === null ? this.#after(id, MAX_EVENT_PAGE) : null),
      cursorOf: (e) => e.id,
      writer: () => orgEventFrame,
      ended: () => null,
    });
    this.#slots = new HeldSlots(env);
    this.#deliveries = new DeliveryQueue(this.#sql);
    ctx.blockConcurrencyWhile(async () => this.#ensureSchema());
  }

  #ensureSchema() {
    this.#sql.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    const row = this.#sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'schema_version'`).toArray()[0];
    const version = Number(row?.value ?? 0);
    if (version < 1) {
      // `id` is the rowid without AUTOINCREMENT: only rows below the newest are ever deleted
      // (`#landed`), so the next id is always the largest ever plus one, as AUTOINCREMENT would
      // give, without its `sqlite_sequence` row written per event (docs/cost.md). Logs made
      // before keep AUTOINCREMENT, with the same ids. `key` has no unique index, a row written
      // per event: `append` keeps each event once by its lease's order. Logs made before keep it.
      this.#sql.exec(`
        CREATE TABLE IF NOT EXISTS log (
          id       INTEGER PRIMARY KEY,
          key      TEXT NOT NULL,
          lease_id TEXT,
          at       INTEGER NOT NULL,
          body     TEXT NOT NULL
        );
      `);
    }
    this.#deliveries.ensureSchema();
    // Written only when it changes: every start of the object runs this.
    if (version < SCHEMA_VERSION) setMeta(this.#sql, "schema_version", SCHEMA_VERSION);
  }

  // ---- RPC surface ---------------------------------------------------------------------------

  /**
   * Appends a lease's events; the ones already held are dropped. Answers how many were new. A
   * lease sends its events in order, each time from after the last one the log acknowledged
   * (src/events/lease-stream.ts), so the log has a lease's events up to some `seq` and none after:
   * one at or below the newest it has of that lease is a repeat (`#loggedSeq`).
   */
  async append(orgId: string, leaseId: string, events: LeaseEvent[]): Promise<number> {
    const fresh: OrgEvent[] = [];
    let logged = this.#loggedSeq(leaseId);
    for (const e of events) {
      if (e.seq <= logged) continue;
      const row = this.#sql
        .exec<{ id: number }>(
          // OR IGNORE: a log made before keeps `key` unique, and a repeat there is dropped as before.
          `INSERT OR IGNORE INTO log (key, lease_id, at, body) VALUES (?, ?, ?, ?) RETURNING id`,
          `${leaseId}.${e.seq}`,
          leaseId,
          Date.parse(e.at),
          JSON.stringify({ lease_id: leaseId, ...e }),
        )
        .toArray()[0];
      if (row) fresh.push({ id: row.id, lease_id: leaseId, ...e });
      logged = e.seq;
    }
    if (this.#logged.size >= LOGGED_REMEMBERED) this.#logged.clear();
    this.#logged.set(leaseId, logged);
    await this.#landed(orgId, fresh);
    return fresh.length;
  }

  /** The newest event of each lease the log has, as this object learned it (a cache: `#loggedSeq` reads the log without it). */
  readonly #logged = new Map<string, number>();

  /**
   * The newest event the log has of `leaseId` (0: none): remembered, else its newest row's, read
   * newest first (rows read, not written: the unique index it replaces was a row written per event).
   */
  #loggedSeq(leaseId: string): number {
    const known = this.#logged.get(leaseId);
    if (known !== undefined) return known;
    const row = this.#sql.exec<{ key: string }>(`SELECT key FROM log WHERE lease_id = ? ORDER BY id DESC LIMIT 1`, leaseId).toArray()[0];
    return row ? Number(row.key.slice(leaseId.length + 1)) : 0;
  }

  /** The events after `after`, at most `limit`, or gone when some after it are no longer kept. */
  page(after: number, limit: number): EventsAnswer<{ data: OrgEvent[]; next_after: number | null }> {
    const gone = this.#gone(after);
    if (gone) return gone;
    const data = this.#after(after, limit + 1);
    const more = data.length > limit;
    if (more) data.pop();
    return { ok: true, value: { data, next_after: more ? data.at(-1)!.id : null } };
  }

  /** A stream of the events after `after`, then each new one, holding a slot of `claim` while open; gone as `page` says. */
  async follow(after: number, claim: SlotClaim): Promise<EventsAnswer<ReadableStream<Uint8Array>> | SlotRefusal> {
    const gone = this.#gone(after);
    if (gone) return gone;
    const release = await this.#slots.take(claim);
    return typeof release === "function" ? { ok: true, value: overRpc(this.#followers.open(after), release) } : release;
  }

  /** An endpoint's deliveries, newest first, before the delivery id `before`. */
  deliveries(endpointId: string, before: string | null, limit: number): DeliveryView[] {
    return this.#deliveries.list(endpointId, before, limit).map(renderDelivery);
  }

  /** Tries a delivery again now (the alarm sends it); null when the endpoint has no such delivery. */
  async retryDelivery(endpointId: string, deliveryId: string): Promise<DeliveryView | null> {
    const row = this.#deliveries.retry(endpointId, deliveryId, Date.now());
    await this.#scheduleAlarm();
    return row && renderDelivery(row);
  }

  /** Stops what a deleted or disabled endpoint had pending. */
  async endpointRemoved(endpointId: string, why: string): Promise<void> {
    this.#deliveries.abandon(endpointId, why);
    await this.#scheduleAlarm();
  }

  override async alarm(): Promise<void> {
    await meteredAlarm(() => this.#deliver());
  }

  async #deliver(): Promise<void> {
    try {
      const orgId = this.#orgId();
      if (!orgId) return;
      const now = Date.now();
      this.#deliveries.trim(now);
      const perMinute = deliveriesPerMinute(this.env);
      const budget = refilled(this.#budget(), perMinute, now);
      const { disabled, sent } = await runDueDeliveries(this.env, this.#deliveries, orgId, budget.tokens, now);
      // Written only when spent: a bucket left alone refills to the same level from its old value.
      if (sent > 0) setMeta(this.#sql, "delivery_budget", JSON.stringify({ tokens: budget.tokens - sent, at: budget.at }));
      const events = disabled.map((d) => this.#endpointDisabled(d, Date.now())).filter((e): e is OrgEvent => e !== null);
      await this.#landed(orgId, events);
    } finally {
      // Rescheduled whatever happened (STYLE.md rule 7): the platform retries a thrown alarm only a few times.
      await this.#scheduleAlarm();
    }
  }

  // ---- the log --------------------------------------------------------------------------------

  /** What follows every append: trim the log, push to open streams, queue the webhook deliveries. */
  async #landed(orgId: string, fresh: OrgEvent[]): Promise<void> {
    this.#sql.exec(`INSERT OR IGNORE INTO meta (key, value) VALUES ('org_id', ?)`, orgId);
    if (fresh.length > 0) {
      // Never the newest row: ids keep rising (`#ensureSchema`).
      this.#sql.exec(`DELETE FROM log WHERE id <= (SELECT MAX(id) FROM log) - ?`, ORG_LOG_RETAINED);
      for (const e of fresh) this.#followers.push(e);
    }
    await this.#queueDeliveries(orgId);
  }

  /**
   * Queues the deliveries of every logged event not yet queued (meta `queued_through`), so an
   * append whose endpoint read failed is made good by the next append or alarm: the failure is
   * thrown to the lease, which forwards again.
   */
  async #queueDeliveries(orgId: string): Promise<void> {
    const through = Number(this.#sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'queued_through'`).toArray()[0]?.value ?? 0);
    const pending = this.#after(through, -1);
    if (pending.length === 0) return;
    const endpoints = await enabledEndpoints(database(this.env.DB), orgId);
    const added = this.#deliveries.enqueue(endpoints, pending, fanout(this.env), Date.now());
    setMeta(this.#sql, "queued_through", pending.at(-1)!.id);
    if (added > 0) await this.#scheduleAlarm();
  }

  /** The org's own event for an endpoint that was disabled (`webhook_disabled`); never its secret. */
  #endpointDisabled(d: Disabled, now: number): OrgEvent | null {
    const detail = { webhook_id: d.endpoint_id, url: d.url, reason: d.reason, consecutive_failures: d.consecutive_failures };
    const body = { lease_id: null, seq: null, at: new Date(now).toISOString(), type: "webhook_disabled", from: null, to: null, reason: d.reason, detail };
    const row = this.#sql
      .exec<{ id: number }>(
        `INSERT OR IGNORE INTO log (key, lease_id, at, body) VALUES (?, NULL, ?, ?) RETURNING id`,
        `webhook_disabled.${d.endpoint_id}.${now}`,
        now,
        JSON.stringify(body),
      )
      .toArray()[0];
    return row ? { id: row.id, ...body } : null;
  }

  /** The one alarm: at the earliest pending delivery, or once the org's budget has refilled for it; or none. */
  async #scheduleAlarm(): Promise<void> {
    const next = this.#deliveries.nextAt();
    if (next === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(Math.max(next, budgetReadyAt(this.#budget(), deliveriesPerMinute(this.env), ATTEMPTS_PER_RUN, Date.now())));
  }

  /** The org's bucket of attempts as the last run left it; null before the first. */
  #budget(): Budget | null {
    const value = this.#sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'delivery_budget'`).toArray()[0]?.value;
    return value ? (JSON.parse(value) as Budget) : null;
  }

  #orgId(): string | null {
    return this.#sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'org_id'`).toArray()[0]?.value ?? null;
  }

  /** Gone when some event after `after` is no longer kept; null when all are. */
  #gone(after: number): { ok: false; gone: true; oldest: number } | null {
    const oldest = this.#sql.exec<{ id: number | null }>(`SELECT MIN(id) AS id FROM log`).toArray()[0]?.id ?? null;
    return oldest !== null && after < oldest - 1 ? { ok: false, gone: true, oldest } : null;
  }

  #after(after: number, limit: number): OrgEvent[] {
    return this.#sql
      .exec<{ id: number; body: string }>(`SELECT id, body FROM log WHERE id > ? ORDER BY id LIMIT ?`, after, limit)
      .toArray()
      .map((r) => ({ id: r.id, ...(JSON.parse(r.body) as Omit<OrgEvent, "id">) }));
  }
}
