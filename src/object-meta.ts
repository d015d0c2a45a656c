/**
 * The `meta(key, value)` table every one of lessor's objects keeps in its SQLite storage
 * (docs/storage.md). A value is set with an upsert that updates the row in place: one row written,
 * where `INSERT OR REPLACE` deletes the row and inserts it again, two (docs/cost.md).
 */
export function setMeta(sql: SqlStorage, key: string, value: string | number): void {
  sql.exec(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, String(value));
}

/** A value of `meta`, or null when it was never set. */
export function getMeta(sql: SqlStorage, key: string): string | null {
  return sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = ?`, key).toArray()[0]?.value ?? null;
}
