/**
 * The meter counts lessor's own statements on an object's SQLite storage, and not the local
 * runtime's: under `wrangler dev`, miniflare writes each object's name into its storage whenever
 * an instance starts, which Cloudflare neither runs nor bills (src/metering.ts).
 */
import { describe, expect, it } from "vitest";
import { meterCounts, meterStorage } from "../../src/metering";

/** Storage whose every statement reports one row read and `written` rows written. */
function fakeStorage(written: number) {
  const sql = { exec: (_query: string) => ({ rowsRead: 1, rowsWritten: written }) };
  return { sql } as unknown as DurableObjectStorage;
}

describe("the meter's object rows", () => {
  it("counts lessor's statements and leaves out miniflare's own table", () => {
    const storage = fakeStorage(2);
    meterStorage(storage);
    const before = meterCounts();
    storage.sql.exec(`UPDATE lease SET record = ? WHERE version = ?`);
    storage.sql.exec(`INSERT OR REPLACE INTO __miniflare_do_name (id, name) VALUES (1, ?)`);
    storage.sql.exec(`CREATE TABLE IF NOT EXISTS __miniflare_do_name (id INTEGER PRIMARY KEY, name TEXT)`);
    const after = meterCounts();
    expect(after.do_rows_written - before.do_rows_written).toBe(2);
    expect(after.do_rows_read - before.do_rows_read).toBe(1);
  });
});
