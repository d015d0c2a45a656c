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
 * It also decides the org's outbound webhook deliveries: each new event becomes one pending
 * delivery per endpoint that subscribes to its type, to at most LESSOR_WEBHOOK_FANOUT endpoints an
 * event (src/webhooks/deliveries.ts), which the object hands to the webhook queue, within the org's
 * budget of hand-overs a minute (src/webhooks/budget.ts, kept in `meta` as `delivery_budget`). The
 * queue's consumer sends them (src/webhooks/consumer.ts) and settles each batch here in one call;
 * the object's record is what `GET /v1/webhooks/:id/deliveries` lists. Its one alarm hands over
 * what waits (a budget that refills, a hand-over the queue refused) and what the queue has held too
 * long without a report.
 *
 * It holds the org's lease index (src/orgs/lease-index.ts): each lease's object writes its row
 * through with its events in one call (`sync`), lists are read here, and the object's alarm, also
 * set at the earliest indexed deadline, pokes the leases whose deadline has passed; the cron asks
 * every org's object to do so again (src/lease/reaper.ts `runBackstop`).
 *
 * And it keeps the org's quotes, their daily cap and the bad hosts they leave out
 * (src/catalog/quote-store.ts), so that a quote is one call here and no D1 statement (issue 34).
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
import { errorText } from "../errors";
import { budgetReadyAt, deliveriesPerMinute, fanout, refilled, type Budget } from "../webhooks/budget";
import {
  DeliveryQueue,
  HANDOVER_RETRY_MS,
  REFILL_RUN,
  renderDelivery,
  SEND_BATCH_MAX,
  type Claimed,
  type DeliveryView,
  type Disabled,
  type Settlement,
} from "../webhooks/deliveries";
import { enabledEndpoints, type EnabledEndpoint } from "../webhooks/repo";
import { ORG_POKE_GRACE_MS, OrgLeaseIndex, type OrgLeaseFilter, type OrgLeaseRow } from "../orgs/lease-index";
import { pokeAll } from "../lease/reaper";
import { getMeta } from "../object-meta";
import { QuoteStore, type QuoteBadHost, type StoreAnswer, type StoredQuote } from "../catalog/quote-store";

/** 2: deliveries know whether they are in the webhook queue (`queued_at`; src/webhooks/deliveries.ts `ensureSchema`). */
const SCHEMA_VERSION = 2;
/**
 * How long the org's enabled webhook endpoints, read from D1, serve its appends. The routes that
 * change an endpoint tell the object before they answer (`endpointsChanged`), and so does a batch
 * that disabled one (`settle`); this bounds how stale the list can be should that word be lost
 * twice. Ten minutes, not one: an org whose events come less often than this reads D1 for each,
 * and many quiet orgs together would otherwise hold D1 to a read per org a minute.
 */
const ENDPOINTS_FRESH_MS = 10 * 60_000;
/** How many due leases one alarm or backstop run pokes. */
const DUE_PER_RUN = 200;
/** Rows of an older installation's D1 index read at a time (`#adopt`). */
const ADOPT_PAGE = 500;
/** How many leases' newest logged event `append` remembers; past it, it forgets them all and reads the log again. */
const LOGGED_REMEMBERED = 10_000;

export class OrgEventsObject extends MeteredObject {
  readonly #sql: SqlStorage;
  readonly #followers: Followers<OrgEvent>;
  /** The slots of its open streams (src/auth/stream-slots.ts). */
  readonly #slots: HeldSlots;
  readonly #deliveries: DeliveryQueue;
  /** The org's lease index (src/orgs/lease-index.ts). */
  readonly #leases: OrgLeaseIndex;
  /** The import of an older installation's D1 rows, once per object (`#adopted`). */
  #adopting: Promise<void> | null = null;
  /** `leases_adopted` read once: every write-through and list would read it again. */
  #adoptedKnown = false;
  /** The org's quotes (src/catalog/quote-store.ts). */
  readonly #quotes: QuoteStore;
  /** The hand-over to the webhook queue under way, if one is (`#handOver`); and whether another should follow it. */
  #handing: Promise<void> | null = null;
  #handAgain = false;
  /** The enabled endpoints as last read from D1 and when (`#enabledEndpoints`); the count of changes told, so a read a change overtook is not kept. */
  #endpoints: { list: EnabledEndpoint[]; at: number } | null = null;
  #endpointChanges = 0;

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
    this.#leases = new OrgLeaseIndex(this.#sql);
    this.#quotes = new QuoteStore(this.#sql);
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
    this.#deliveries.ensureSchema(version);
    this.#leases.ensureSchema();
    this.#quotes.ensureSchema();
    // Written only when it changes: every start of the object runs this.
    if (version < SCHEMA_VERSION) setMeta(this.#sql, "schema_version", SCHEMA_VERSION);
  }

  // ---- RPC surface ---------------------------------------------------------------------------

  /**
   * What a lease's object writes through (src/events/lease-stream.ts `forward`): its row of the
   * org's lease index, when it changed (`index.deadline`: whether the indexed deadline moves too),
   * and its events not yet acknowledged. Answers how many events were new.
   */
  async sync(orgId: string, leaseId: string, events: LeaseEvent[], index: { row: OrgLeaseRow; deadline: boolean } | null): Promise<number> {
    if (index) {
      await this.#adopted(orgId);
      this.#leases.put(index.row, index.deadline);
    }
    // An append sets the alarm after its own work (`#landed`), the index's deadlines included.
    if (events.length > 0) return this.append(orgId, leaseId, events);
    if (index) await this.#scheduleAlarm();
    return 0;
  }

  /** A page of the org's leases, newest first (src/orgs/lease-index.ts `list`). */
  async listLeases(orgId: string, filter: OrgLeaseFilter): Promise<Array<{ id: string; body: string }>> {
    await this.#adopted(orgId);
    return this.#leases.list(filter);
  }

  /**
   * The cron's backstop (src/lease/reaper.ts `runBackstop`): pokes the org's leases whose indexed
   * deadline has passed, as the alarm does, for an alarm that did not run.
   */
  async sweepDue(orgId: string, now: number): Promise<{ due: number; failed: number }> {
    await this.#adopted(orgId);
    const report = await this.#pokeDue(now, now);
    await this.#scheduleAlarm();
    return report;
  }

  /** What the index holds: for the scale bench and the tests. */
  async leaseIndexCounts(orgId: string): Promise<{ leases: number; live: number; next_due: number | null }> {
    await this.#adopted(orgId);
    return { ...this.#leases.counts(), next_due: this.#leases.nextDue() };
  }

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

  /** Tries a delivery again now, handed to the queue at once; null when the endpoint has no such delivery. */
  async retryDelivery(endpointId: string, deliveryId: string): Promise<DeliveryView | null> {
    const row = this.#deliveries.retry(endpointId, deliveryId, Date.now());
    const orgId = this.#orgId();
    if (row && orgId) await this.#handOver(orgId);
    await this.#scheduleAlarm();
    return row && renderDelivery(row);
  }

  /** An endpoint was made, changed or enabled: the next append reads the org's endpoints from D1 again. */
  endpointsChanged(): void {
    this.#endpointChanges++;
    this.#endpoints = null;
  }

  /** Stops what a deleted or disabled endpoint had pending. */
  async endpointRemoved(endpointId: string, why: string): Promise<void> {
    this.endpointsChanged();
    this.#deliveries.abandon(endpointId, why);
    await this.#scheduleAlarm();
  }

  // ---- quotes (src/catalog/quote-store.ts) ------------------------------------------------------

  /** Stores a quote within the org's cap of `cap` a day, unless it names one of `hosts` the org marked bad. */
  storeQuote(quote: StoredQuote, hosts: string[], cap: number): StoreAnswer {
    return this.#quotes.create(quote, hosts, cap, Date.now());
  }

  /** A quote of the org's, as it was answered (JSON), or null. */
  quote(id: string): string | null {
    return this.#quotes.get(id);
  }

  /** Keeps a quote as long as its lease `leaseId`; false when the org has no such quote. */
  keepQuote(id: string, leaseId: string): boolean {
    return this.#quotes.keep(id, leaseId);
  }

  /** Gives back what `keepQuote` kept for a lease that was never made. */
  releaseQuote(id: string, leaseId: string): void {
    this.#quotes.release(id, leaseId);
  }

  /** A host one of the org's leases saw fail: the org's quotes leave it out until `until`. */
  badHostMarked(mark: QuoteBadHost): void {
    this.#quotes.markBadHost(mark, Date.now());
  }

  /**
   * The webhook queue's consumer asks which of a batch's deliveries are still to be sent: one call
   * per org and batch (src/webhooks/consumer.ts).
   */
  claim(items: { id: string; token: number }[]): (Claimed | null)[] {
    return this.#deliveries.claim(items);
  }

  /**
   * What came of a batch's messages, in one call per org and batch: each delivery's record, and the
   * endpoints the batch disabled (each gets the org's `webhook_disabled` event and stops what it had pending).
   */
  async settle(orgId: string, settled: Settlement[], disabled: Disabled[]): Promise<void> {
    for (const s of settled) this.#deliveries.settle(s);
    const now = Date.now();
    if (disabled.length > 0) this.endpointsChanged();
    for (const d of disabled) this.#deliveries.abandon(d.endpoint_id, "endpoint disabled");
    const events = disabled.map((d) => this.#endpointDisabled(d, now)).filter((e): e is OrgEvent => e !== null);
    await this.#landed(orgId, events);
  }

  override async alarm(): Promise<void> {
    await meteredAlarm(async () => {
      try {
        if (this.env.LESSOR_DEV_DISABLE_ALARMS !== "1" && (this.#adoptedKnown || getMeta(this.#sql, "leases_adopted") !== null)) {
          const now = Date.now();
          await this.#pokeDue(now - ORG_POKE_GRACE_MS, now);
        }
      } finally {
        try {
          await this.#deliver();
        } finally {
          // Rescheduled whatever happened (STYLE.md rule 7): the platform retries a thrown alarm only a few times.
          await this.#scheduleAlarm(true);
        }
      }
    });
  }

  // ---- the lease index --------------------------------------------------------------------------

  /**
   * Pokes the leases whose indexed deadline is at or before `dueBy`, at most DUE_PER_RUN a run (the
   * rest at the next alarm): each waits POKE_AGAIN_MS from `now` unless it writes first.
   */
  async #pokeDue(dueBy: number, now: number): Promise<{ due: number; failed: number }> {
    const ids = this.#leases.due(dueBy, DUE_PER_RUN);
    if (ids.length === 0) return { due: 0, failed: 0 };
    // Deferred before the pokes, so that the deadline each poked lease writes through wins.
    this.#leases.deferPoked(ids, dueBy, now);
    return { due: ids.length, failed: await pokeAll(this.env, ids) };
  }

  /**
   * When the lease duty needs the alarm: ORG_POKE_GRACE_MS after the earliest indexed deadline
   * (none while alarms are off for development). A lease's own alarm acts at its deadline and
   * writes its next one through; the org's pokes only a lease whose alarm did not, as the cron did.
   */
  #leaseAlarmAt(): number | null {
    const due = this.env.LESSOR_DEV_DISABLE_ALARMS === "1" ? null : this.#leases.nextDue();
    return due === null ? null : due + ORG_POKE_GRACE_MS;
  }

  /**
   * An installation that kept its lease index in D1 before (docs/deploying.md, "Upgrading an
   * installation whose lease index was in D1") has its org's rows there: the first call that needs the index copies them
   * here, newest first, 500 a read, once. A lease that wrote through since is kept as written.
   */
  #adopted(orgId: string): Promise<void> {
    if (this.#adoptedKnown) return Promise.resolve();
    if (getMeta(this.#sql, "leases_adopted") !== null) {
      this.#adoptedKnown = true;
      return Promise.resolve();
    }
    this.#adopting ??= this.#adopt(orgId).finally(() => {
      this.#adopting = null;
    });
    return this.#adopting;
  }

  async #adopt(orgId: string): Promise<void> {
    const db = database(this.env.DB);
    let before: string | null = null;
    for (;;) {
      let q = db
        .selectFrom("leases")
        .select(["id", "state", "kind", "name", "version", "next_deadline", "created_at", "body"])
        .where("org_id", "=", orgId)
        .orderBy("id", "desc")
        .limit(ADOPT_PAGE);
      if (before) q = q.where("id", "<", before);
      const rows = await q.execute();
      this.#leases.adopt(rows);
      if (rows.length < ADOPT_PAGE) break;
      before = rows.at(-1)!.id;
    }
    this.#sql.exec(`INSERT OR IGNORE INTO meta (key, value) VALUES ('org_id', ?)`, orgId);
    setMeta(this.#sql, "leases_adopted", Date.now());
    await this.#scheduleAlarm();
  }

  // ---- webhook deliveries -----------------------------------------------------------------------

  /** The alarm's webhook duty: forget old deliveries, take back what the queue lost, hand over what is due. */
  async #deliver(): Promise<void> {
    const orgId = this.#orgId();
    if (!orgId) return;
    const now = Date.now();
    this.#deliveries.trim(now);
    this.#deliveries.reclaimStale(now);
    await this.#queueDeliveries(orgId);
    await this.#handOver(orgId);
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
    await this.#handOver(orgId);
    await this.#scheduleAlarm();
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
    const endpoints = await this.#enabledEndpoints(orgId);
    this.#deliveries.enqueue(endpoints, pending, fanout(this.env), Date.now());
    setMeta(this.#sql, "queued_through", pending.at(-1)!.id);
  }

  /**
   * The org's enabled endpoints, from memory while fresh (ENDPOINTS_FRESH_MS) and unchanged, so an
   * append that lands events makes no D1 statement; a change told during the read is not overtaken
   * by it: the read serves this append and is not kept.
   */
  async #enabledEndpoints(orgId: string): Promise<EnabledEndpoint[]> {
    const now = Date.now();
    if (this.#endpoints && now - this.#endpoints.at < ENDPOINTS_FRESH_MS) return this.#endpoints.list;
    const changes = this.#endpointChanges;
    const list = await enabledEndpoints(database(this.env.DB), orgId);
    if (changes === this.#endpointChanges) this.#endpoints = { list, at: now };
    return list;
  }

  /**
   * Hands the due deliveries to the webhook queue, one hand-over at a time: a call that comes while
   * one is under way is served by one more round after it, which takes whatever came meanwhile. So
   * a busy org sends the queue few, full batches instead of one per append (local queues, Miniflare's,
   * fall behind under a stream of small ones), and a quiet one still hands each over at once.
   * Settles when the round that covers this call is done.
   */
  #handOver(orgId: string): Promise<void> {
    this.#handAgain = true;
    this.#handing ??= (async () => {
      try {
        while (this.#handAgain) {
          this.#handAgain = false;
          await this.#handOverDue(orgId);
        }
      } finally {
        this.#handing = null;
      }
    })();
    return this.#handing;
  }

  /**
   * One round: the due deliveries, as many as the org's budget allows, in batches of
   * SEND_BATCH_MAX. Each is marked handed over before the queue is asked (`takeDue`), so that
   * nothing is handed over twice; what the queue refuses waits again, due HANDOVER_RETRY_MS later,
   * and the alarm hands it over then. Nothing is lost: a delivery leaves `pending` only by its
   * consumer's report, a retry's, or its endpoint's removal.
   */
  async #handOverDue(orgId: string): Promise<void> {
    const now = Date.now();
    const budget = refilled(this.#budget(), deliveriesPerMinute(this.env), now);
    const ids = this.#deliveries.takeDue(now, budget.tokens);
    if (ids.length === 0) return;
    // Written only when spent: a bucket left alone refills to the same level from its old value.
    setMeta(this.#sql, "delivery_budget", JSON.stringify({ tokens: budget.tokens - ids.length, at: budget.at }));
    for (let i = 0; i < ids.length; i += SEND_BATCH_MAX) {
      const chunk = ids.slice(i, i + SEND_BATCH_MAX);
      try {
        await this.env.WEBHOOKS.sendBatch(chunk.map((id) => ({ body: { kind: "delivery", org: orgId, id, token: now }, contentType: "json" })));
      } catch (e) {
        console.error(JSON.stringify({ msg: "webhook deliveries not handed to the queue; will retry", org: orgId, deliveries: ids.length - i, error: errorText(e) }));
        const back = ids.slice(i);
        this.#deliveries.untake(back, now, Date.now() + HANDOVER_RETRY_MS);
        const left = refilled(this.#budget(), deliveriesPerMinute(this.env), Date.now());
        setMeta(this.#sql, "delivery_budget", JSON.stringify({ tokens: left.tokens + back.length, at: left.at }));
        return;
      }
    }
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

  /**
   * The one alarm, at the earliest of its duties' times (`alarm`); none when no duty has one.
   * Written only when it moves (every append and every settled batch come here), except after the
   * alarm ran (`afterAlarm`), when the time stored may be the one that just fired.
   */
  async #scheduleAlarm(afterAlarm = false): Promise<void> {
    const times = [this.#deliveryAlarmAt(), this.#leaseAlarmAt()].filter((t): t is number => t !== null);
    const at = times.length === 0 ? null : Math.min(...times);
    if (!afterAlarm && at === (await this.ctx.storage.getAlarm())) return;
    if (at === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(at);
  }

  /**
   * When the webhook duty needs the alarm: the earliest delivery waiting for a hand-over (once the
   * org's budget has refilled for it), or the earliest one in the queue that would count as lost.
   */
  #deliveryAlarmAt(): number | null {
    const waiting = this.#deliveries.nextWaitingAt();
    const stale = this.#deliveries.nextStaleAt();
    const handOver = waiting === null ? null : Math.max(waiting, budgetReadyAt(this.#budget(), deliveriesPerMinute(this.env), REFILL_RUN, Date.now()));
    const times = [handOver, stale].filter((t): t is number => t !== null);
    return times.length === 0 ? null : Math.min(...times);
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
