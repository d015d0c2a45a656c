/**
 * An org's lease index, in the org's own Durable Object (src/events/org-object.ts; docs/scale.md):
 * the listed body of each of its leases, what the list filters on, and each lease's indexed
 * deadline, which the object's alarm and the cron backstop poke it at. The lease objects write
 * through to it with their events, in one call (src/events/lease-stream.ts `forward`).
 *
 * The D1 `leases` table keeps what is global (src/lease/index-repo.ts): a lease's provider, machine,
 * state and billing, for the reconciler, ingress and billing, written only when one of those
 * columns changes. Lists, deadlines and bodies are here, one org at a time.
 *
 * Memory: the object keeps what every page is chosen from, the id, state, kind and name of each
 * live lease (all of them) and of the newest RESIDENT_ROWS of any state, and the bodies of that
 * newest window. The first pages of an org's list, and any page of its live leases by state, are
 * chosen in memory; a body outside the window is read by its id; a page of released leases past
 * the window is read from SQLite, newest first, by the primary key.
 */

/** One lease as the index holds it; `body` is the lease as listed (src/lease/view.ts `renderLease`), JSON. */
export interface OrgLeaseRow {
  id: string;
  state: string;
  kind: string;
  name: string | null;
  version: number;
  next_deadline: number | null;
  created_at: number;
  body: string;
}

export interface OrgLeaseFilter {
  state?: string;
  kind?: string;
  name?: string;
  /** Only ids before this one (the page's cursor): ids are time-ordered, so older leases. */
  before?: string | null;
  limit: number;
}

type Meta = Pick<OrgLeaseRow, "id" | "state" | "kind" | "name">;

/** How many of the newest rows keep their body in memory. */
export const RESIDENT_ROWS = 500;

/** How long a lease the index poked waits before the index pokes it again, unless it writes first. */
export const POKE_AGAIN_MS = 60_000;

/**
 * How long past a lease's indexed deadline the org's alarm waits before it pokes the lease: its
 * own alarm comes first, and the indexed deadline may be earlier than its own (a read-back's,
 * while it boots), so a poke at once would read the machine a second time.
 */
export const ORG_POKE_GRACE_MS = 30_000;

export class OrgLeaseIndex {
  readonly #sql: SqlStorage;
  /** Live leases, all of them, by id. */
  #live: Map<string, Meta> | null = null;
  /** The newest RESIDENT_ROWS rows of any state, by id, with their bodies. */
  #window: Map<string, Meta & { body: string }> | null = null;
  /** The oldest id in the window, once the window is full (older rows exist only in SQLite). */
  #windowFloor: string | null = null;
  #windowFull = false;
  /** Every indexed deadline, by lease id: what the alarm and the backstop read. */
  #deadlines: Map<string, number> | null = null;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  ensureSchema(): void {
    // WITHOUT ROWID: the id is the key, so a row is one B-tree entry, not a rowid entry plus an
    // index of its id. No secondary index: each write of a lease is one row written. Deadlines
    // are found in memory (`#deadlines`), read once from this table when the object starts.
    this.#sql.exec(`
      CREATE TABLE IF NOT EXISTS leases (
        id            TEXT PRIMARY KEY,
        state         TEXT NOT NULL,
        kind          TEXT NOT NULL,
        name          TEXT,
        version       INTEGER NOT NULL,
        next_deadline INTEGER,
        created_at    INTEGER NOT NULL,
        body          TEXT NOT NULL
      ) WITHOUT ROWID;
    `);
  }

  /**
   * Writes `row` unless the index holds a newer version of the lease (a late, retried write);
   * answers whether it was written. `deadline`: false keeps the indexed deadline as it is (the
   * lease's rule, src/lease/decide.ts `indexWrite`, said it need not move).
   */
  put(row: OrgLeaseRow, deadline: boolean): boolean {
    this.#load();
    const written = this.#insert(
      row,
      `ON CONFLICT (id) DO UPDATE SET state = excluded.state, version = excluded.version, body = excluded.body
         ${deadline ? ", next_deadline = excluded.next_deadline" : ""}
       WHERE excluded.version >= leases.version
       RETURNING id, next_deadline`,
    )
      .toArray();
    if (written.length === 0) return false;
    this.#remember(row);
    this.#setDeadline(row.id, written[0]!.next_deadline);
    return true;
  }

  /** `row` inserted, with `conflict` saying what an existing row of the id becomes. */
  #insert(row: OrgLeaseRow, conflict: string) {
    return this.#sql.exec<{ id: string; next_deadline: number | null }>(
      `INSERT INTO leases (id, state, kind, name, version, next_deadline, created_at, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ${conflict}`,
      row.id,
      row.state,
      row.kind,
      row.name,
      row.version,
      row.next_deadline,
      row.created_at,
      row.body,
    );
  }

  /** Rows of an older installation's D1 index, written where the index has none yet (docs/deploying.md "Upgrading an installation whose lease index was in D1"). */
  adopt(rows: readonly OrgLeaseRow[]): number {
    let n = 0;
    for (const row of rows) {
      const written = this.#insert(row, "ON CONFLICT (id) DO NOTHING").rowsWritten;
      if (written > 0) n++;
    }
    // What memory holds is read again from what was written.
    this.#live = null;
    this.#window = null;
    this.#deadlines = null;
    return n;
  }

  /** A page of the org's leases, newest first: one more than `limit` when another page follows. */
  list(f: OrgLeaseFilter): Array<{ id: string; body: string }> {
    this.#load();
    const want = f.limit + 1;
    const matches = (m: Meta) => (!f.state || m.state === f.state) && (!f.kind || m.kind === f.kind) && (!f.name || m.name === f.name);
    const before = (id: string) => !f.before || id < f.before;
    // Live leases by a live state: every one of them is in memory.
    if (f.state && f.state !== "released") {
      const ids = [...this.#live!.values()].filter((m) => matches(m) && before(m.id)).map((m) => m.id);
      ids.sort((a, b) => (a < b ? 1 : -1));
      return this.#bodies(ids.slice(0, want));
    }
    // The newest window: enough there, or nothing older exists.
    const window = [...this.#window!.values()].filter((m) => before(m.id)).sort((a, b) => (a.id < b.id ? 1 : -1));
    const found = window.filter(matches).slice(0, want);
    if (found.length === want || !this.#windowFull) return found.map((r) => ({ id: r.id, body: r.body }));
    // Past the window: SQLite, newest first by the key, from where the window ends.
    const floor = this.#windowFloor!;
    const from = f.before && f.before < floor ? f.before : floor;
    const rest = this.#older(f, from, want - found.length);
    return [...found.map((r) => ({ id: r.id, body: r.body })), ...rest];
  }

  /** Leases whose indexed deadline has passed, earliest first, at most `limit`. */
  due(now: number, limit: number): string[] {
    this.#load();
    const due = [...this.#deadlines!].filter(([, at]) => at <= now);
    due.sort((a, b) => a[1] - b[1]);
    return due.slice(0, limit).map(([id]) => id);
  }

  /** The earliest indexed deadline, or null. */
  nextDue(): number | null {
    this.#load();
    let min: number | null = null;
    for (const at of this.#deadlines!.values()) if (min === null || at < min) min = at;
    return min;
  }

  /**
   * Leases the index just poked wait POKE_AGAIN_MS before it pokes them again. A poked lease acts
   * on its own deadlines and writes its next one through, which replaces this; one whose poke
   * failed is poked again then, as the cron did before.
   */
  deferPoked(ids: readonly string[], dueBy: number, now: number): void {
    this.#load();
    for (const id of ids) {
      const at = this.#deadlines!.get(id);
      if (at === undefined || at > dueBy) continue;
      this.#sql.exec(`UPDATE leases SET next_deadline = ? WHERE id = ?`, now + POKE_AGAIN_MS, id);
      this.#deadlines!.set(id, now + POKE_AGAIN_MS);
    }
  }

  /** How many leases the index holds, and how many are live. */
  counts(): { leases: number; live: number } {
    this.#load();
    const leases = this.#sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM leases`).toArray()[0]!.n;
    return { leases, live: this.#live!.size };
  }

  #older(f: OrgLeaseFilter, before: string, limit: number): Array<{ id: string; body: string }> {
    const where = ["id < ?"];
    const args: unknown[] = [before];
    if (f.state) (where.push("state = ?"), args.push(f.state));
    if (f.kind) (where.push("kind = ?"), args.push(f.kind));
    if (f.name) (where.push("name = ?"), args.push(f.name));
    return this.#sql.exec<{ id: string; body: string }>(`SELECT id, body FROM leases WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT ?`, ...args, limit).toArray();
  }

  /** The bodies of `ids`, in their order: from the window, else from SQLite. */
  #bodies(ids: readonly string[]): Array<{ id: string; body: string }> {
    const missing = ids.filter((id) => !this.#window!.has(id));
    const read = new Map<string, string>();
    for (let i = 0; i < missing.length; i += 90) {
      const part = missing.slice(i, i + 90);
      for (const r of this.#sql.exec<{ id: string; body: string }>(`SELECT id, body FROM leases WHERE id IN (${part.map(() => "?").join(",")})`, ...part)) read.set(r.id, r.body);
    }
    return ids.flatMap((id) => {
      const body = this.#window!.get(id)?.body ?? read.get(id);
      return body === undefined ? [] : [{ id, body }];
    });
  }

  #setDeadline(id: string, at: number | null): void {
    if (at === null) this.#deadlines!.delete(id);
    else this.#deadlines!.set(id, at);
  }

  #load(): void {
    if (this.#live && this.#window && this.#deadlines) return;
    const live = new Map<string, Meta>();
    const deadlines = new Map<string, number>();
    // One pass over the table when the object starts: the live leases and every deadline.
    for (const r of this.#sql.exec<Meta & { next_deadline: number | null }>(`SELECT id, state, kind, name, next_deadline FROM leases WHERE state != 'released' OR next_deadline IS NOT NULL`)) {
      if (r.state !== "released") live.set(r.id, { id: r.id, state: r.state, kind: r.kind, name: r.name });
      if (r.next_deadline !== null) deadlines.set(r.id, r.next_deadline);
    }
    this.#deadlines = deadlines;
    const rows = this.#sql.exec<Meta & { body: string }>(`SELECT id, state, kind, name, body FROM leases ORDER BY id DESC LIMIT ?`, RESIDENT_ROWS + 1).toArray();
    this.#windowFull = rows.length > RESIDENT_ROWS;
    if (this.#windowFull) rows.pop();
    this.#window = new Map(rows.map((r) => [r.id, { id: r.id, state: r.state, kind: r.kind, name: r.name, body: r.body }]));
    this.#windowFloor = rows.at(-1)?.id ?? null;
    this.#live = live;
  }

  #oldestInWindow(): string | null {
    let min: string | null = null;
    for (const id of this.#window!.keys()) if (min === null || id < min) min = id;
    return min;
  }

  /** Keeps memory as SQLite now holds `row`. */
  #remember(row: OrgLeaseRow): void {
    if (!this.#live || !this.#window) return; // read from SQLite when first needed
    const meta = { id: row.id, state: row.state, kind: row.kind, name: row.name };
    if (row.state === "released") this.#live.delete(row.id);
    else this.#live.set(row.id, meta);
    if (this.#window.has(row.id) || !this.#windowFull || row.id > this.#windowFloor!) {
      this.#window.set(row.id, { ...meta, body: row.body });
      if (this.#window.size > RESIDENT_ROWS) {
        // The oldest leaves the window; it is still in SQLite.
        this.#window.delete(this.#oldestInWindow()!);
        this.#windowFull = true;
      }
      this.#windowFloor = this.#oldestInWindow();
    }
  }
}
