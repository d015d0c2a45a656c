/**
 * The `meta(key, value)` table every one of lessor's objects keeps in its SQLite storage
 * (docs/storage.md). A value is set with an upsert that updates the row in place: one row written,
 * where `INSERT OR REPLACE` deletes the row and inserts it again, two (docs/cost.md).
 */

/**
 * `meta` as a lease's object makes it: WITHOUT ROWID, keyed by `key` alone, so a value's first
 * write is one row, where a rowid table wrote its key's index too (docs/cost.md). Tables made
 * before, and other objects' (made by their own code), keep the rowid; both read and write alike.
 */
export const META_TABLE = `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID`;
export function setMeta(sql: SqlStorage, key: string, value: string | number): void {
  sql.exec(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, String(value));
}

/** A value of `meta`, or null when it was never set. */
export function getMeta(sql: SqlStorage, key: string): string | null {
  return sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = ?`, key).toArray()[0]?.value ?? null;
}
