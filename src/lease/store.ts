/**
 * The lease's own SQLite storage (docs/storage.md "Lease Durable Object"): the schema, the record,
 * its append-only events and how far the D1 index has caught up. Only the lease's object uses it;
 * nothing here decides anything (the record is written as given, with its accrual brought up to
 * date by `withBilling` on the one write path).
 */
import { META_TABLE, setMeta } from "../object-meta";
import { upgradeRecord, withBilling } from "./billing";
import { LEASE_STATES, type LeaseRecord, type LeaseState } from "./state";
import type { IndexFacts } from "./decide";
import type { Effect } from "./transitions";

const SCHEMA_VERSION = 3;

export interface LeaseEvent {
  seq: number;
  at: string;
  type: string;
  from: LeaseState | null;
  to: LeaseState | null;
  reason: string | null;
  detail: Record<string, unknown>;
}

/** A write built on a record that is no longer the stored one. */
export class StaleWrite extends Error {}

export class LeaseStore {
  readonly #storage: DurableObjectStorage;
  readonly #sql: SqlStorage;
  #schemaReady = false;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
    this.#sql = storage.sql;
  }

  /**
   * Only an object that holds a lease has tables: a read of an id that was never created (a typo,
   * another org's guess) must not leave an object with storage behind. Called once at start-up.
   */
  open(): void {
    if (this.#hasSchema()) this.ensureSchema();
  }

  #hasSchema(): boolean {
    this.#schemaReady ||= this.#sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'`).toArray().length > 0;
    return this.#schemaReady;
  }

  /** Creates or upgrades the tables (STYLE.md rule 6: states CHECK-constrained, schema versioned). */
  ensureSchema(): void {
    this.#sql.exec(META_TABLE);
    const row = this.#sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'schema_version'`).toArray()[0];
    const version = row ? Number(row.value) : 0;
    if (version < 1) {
      // A new lease's tables are made as the newest version has them. `events.seq` is the rowid
      // without AUTOINCREMENT: events are never deleted, so the next one is always the largest plus
      // one, as AUTOINCREMENT would give, without its `sqlite_sequence` row written per event
      // (docs/cost.md). Tables made before keep AUTOINCREMENT, with the same numbers. The lease's
      // one row is keyed by the rowid (`one`, CHECK 1: a second insert fails), where a lease made
      // before keys it by `id`, whose index was a second row written with the first. One statement
      // an exec: the meter counts a cursor's rows, and an exec's cursor is its last statement's.
      const states = LEASE_STATES.map((s) => `'${s}'`).join(", ");
      this.#sql.exec(`
        CREATE TABLE lease (
          one           INTEGER PRIMARY KEY CHECK (one = 1),
          id            TEXT NOT NULL,
          state         TEXT NOT NULL CHECK (state IN (${states})),
          record        TEXT NOT NULL,
          version       INTEGER NOT NULL CHECK (version >= 1),
          index_version INTEGER NOT NULL DEFAULT 0,
          indexed       TEXT,
          forwarded_seq INTEGER NOT NULL DEFAULT 0
        )
      `);
      this.#sql.exec(`
        CREATE TABLE events (
          seq        INTEGER PRIMARY KEY,
          at         INTEGER NOT NULL,
          type       TEXT NOT NULL,
          from_state TEXT CHECK (from_state IS NULL OR from_state IN (${states})),
          to_state   TEXT CHECK (to_state IS NULL OR to_state IN (${states})),
          reason     TEXT,
          detail     TEXT NOT NULL DEFAULT '{}'
        )
      `);
    }
    // 2: what the D1 index holds of the lease, so that a change it does not need is not written there.
    else if (version < 2) this.#sql.exec(`ALTER TABLE lease ADD COLUMN indexed TEXT`);
    // 3: how far the org's log has acknowledged the events, in the lease's row (it was in `meta`),
    // so that it is written in the same row write as `indexed` (`settle`).
    if (version >= 1 && version < 3) {
      this.#sql.exec(`
        ALTER TABLE lease ADD COLUMN forwarded_seq INTEGER NOT NULL DEFAULT 0;
        UPDATE lease SET forwarded_seq = COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'forwarded_seq'), 0);
        DELETE FROM meta WHERE key = 'forwarded_seq';
      `);
    }
    // Written only when it changes: every start of the object runs this.
    if (version < SCHEMA_VERSION) setMeta(this.#sql, "schema_version", SCHEMA_VERSION);
    this.#schemaReady = true;
  }

  /** The lease, with when its machine was last read back when that is newer in memory (`holdObserved`). */
  load(): LeaseRecord | null {
    if (!this.#hasSchema()) return null;
    const row = this.#sql.exec<{ record: string }>(`SELECT record FROM lease LIMIT 1`).toArray()[0];
    if (!row) return null;
    const l = upgradeRecord(JSON.parse(row.record) as LeaseRecord);
    return this.#observedAt !== null && this.#observedAt > (l.observed_at ?? 0) ? { ...l, observed_at: this.#observedAt } : l;
  }

  /**
   * The machine was read back at `at` and nothing else changed (transitions.ts
   * `observationChanged`): kept in memory, not written. `load` shows it, so the next `save` writes
   * it with whatever changed; an object that starts again without it reads the machine sooner.
   */
  holdObserved(at: number): void {
    this.#observedAt = Math.max(this.#observedAt ?? 0, at);
  }

  /** When the machine was last read back, when only this object's memory has it. */
  #observedAt: number | null = null;

  /** The lease when it belongs to `orgId` (null: the operator, who reads any org's); else null (guarantee 8). */
  loadFor(orgId: string | null): LeaseRecord | null {
    const l = this.load();
    return l && (orgId === null || l.org_id === orgId) ? l : null;
  }

  /** Whether the lease exists, without reading its record. */
  exists(): boolean {
    return this.state() !== null;
  }

  /** The lease's state, without parsing its record; null: no lease. */
  state(): LeaseState | null {
    if (!this.#hasSchema()) return null;
    return this.#sql.exec<{ state: LeaseState }>(`SELECT state FROM lease LIMIT 1`).toArray()[0]?.state ?? null;
  }

  /** The lease's first row, written once; `save` then writes the record over it (version 0 → 1). */
  insert(record: LeaseRecord): void {
    this.#sql.exec(`INSERT INTO lease (id, state, record, version) VALUES (?, ?, '{}', 1)`, record.id, record.state);
  }

  /** The stored record's version and the one the D1 index last took. */
  versions(): { version: number; index_version: number } {
    const row = this.#sql.exec<{ version: number; index_version: number }>(`SELECT version, index_version FROM lease LIMIT 1`).toArray()[0];
    return row ?? { version: 0, index_version: 0 };
  }

  /** What the D1 index holds of the lease, as last written; null: not known (never written, or stored before this was kept). */
  indexed(): IndexFacts | null {
    const row = this.#sql.exec<{ indexed: string | null }>(`SELECT indexed FROM lease LIMIT 1`).toArray()[0];
    return row?.indexed ? (JSON.parse(row.indexed) as IndexFacts) : null;
  }

  /**
   * Stores, in one row write, what the object's `#finish` learned: that the D1 index now reflects
   * `indexed.version` and holds `indexed.facts` (null: not written this time), and how far the
   * org's log has acknowledged the events (`markForwarded`), when that moved. Nothing to store:
   * nothing written.
   */
  settle(indexed: { version: number; facts: IndexFacts } | null): void {
    const stored = this.#storedForwardedSeq();
    const forwarded = this.#forwarded !== null && this.#forwarded > stored ? this.#forwarded : null;
    if (indexed === null && forwarded === null) return;
    this.#sql.exec(
      `UPDATE lease SET index_version = COALESCE(?, index_version), indexed = COALESCE(?, indexed), forwarded_seq = COALESCE(?, forwarded_seq)`,
      indexed?.version ?? null,
      indexed ? JSON.stringify(indexed.facts) : null,
      forwarded,
    );
    if (forwarded !== null) this.#forwardedStored = forwarded;
  }

  /**
   * Writes `after` over `before` (which must be the stored record) with its event, in one storage
   * transaction, and returns what was stored. The accrual follows every transition: applied here,
   * on the one write path.
   */
  save(before: LeaseRecord, after: LeaseRecord, effect: Effect | null, now: number): LeaseRecord {
    const record: LeaseRecord = { ...withBilling(after, now), version: before.version + 1 };
    this.#storage.transactionSync(() => {
      const cursor = this.#sql.exec(
        `UPDATE lease SET state = ?, record = ?, version = ? WHERE version = ?`,
        record.state,
        JSON.stringify(record),
        record.version,
        Math.max(1, before.version),
      );
      cursor.toArray();
      // The object's writer lock makes this unreachable; if it is ever reached, nothing stale lands.
      if (cursor.rowsWritten === 0) throw new StaleWrite(`lease ${before.id}: version ${before.version} is no longer current`);
      if (effect) {
        this.#sql.exec(
          `INSERT INTO events (at, type, from_state, to_state, reason, detail) VALUES (?, ?, ?, ?, ?, ?)`,
          now,
          effect.event,
          before.version === 0 ? null : before.state,
          record.state,
          effect.reason ?? null,
          JSON.stringify(effect.detail ?? {}),
        );
      }
    });
    return record;
  }

  /** The events after `after`, oldest first; `limit` -1: all of them. */
  eventsAfter(after: number, limit: number): LeaseEvent[] {
    return this.#sql
      .exec<{ seq: number; at: number; type: string; from_state: string | null; to_state: string | null; reason: string | null; detail: string }>(
        `SELECT seq, at, type, from_state, to_state, reason, detail FROM events WHERE seq > ? ORDER BY seq LIMIT ?`,
        after,
        limit,
      )
      .toArray()
      .map((e) => ({
        seq: e.seq,
        at: new Date(e.at).toISOString(),
        type: e.type,
        from: e.from_state as LeaseState | null,
        to: e.to_state as LeaseState | null,
        reason: e.reason,
        detail: JSON.parse(e.detail) as Record<string, unknown>,
      }));
  }

  /** How far the org's event log has acknowledged this lease's events (docs/events.md). */
  forwardedSeq(): number {
    return Math.max(this.#forwarded ?? 0, this.#storedForwardedSeq());
  }

  /**
   * The org's log acknowledged the events through `seq`: kept in memory, and stored by the next
   * `settle` (in the row write that stores `indexed`). An object that goes away before then sends
   * those events again from the stored point; the org's log keeps each event once
   * (src/events/org-object.ts `append`), so a repeat adds nothing (docs/storage.md).
   */
  markForwarded(seq: number): void {
    this.#forwarded = Math.max(this.#forwarded ?? 0, seq);
  }

  /** Acknowledged through, in memory (null: nothing since the object started). */
  #forwarded: number | null = null;
  /** `forwarded_seq` as stored; null: not read yet. */
  #forwardedStored: number | null = null;

  #storedForwardedSeq(): number {
    this.#forwardedStored ??= this.#sql.exec<{ forwarded_seq: number }>(`SELECT forwarded_seq FROM lease LIMIT 1`).toArray()[0]?.forwarded_seq ?? null;
    return this.#forwardedStored ?? 0;
  }
}
