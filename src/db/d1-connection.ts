/**
 * Kysely's connection to a D1 binding: each compiled query runs as one prepared D1 statement.
 * Written here rather than taken from kysely-d1, whose driver still answers the
 * `numUpdatedOrDeletedRows` field kysely 0.23 removed, so kysely 0.28 logs "outdated
 * driver/plugin detected" on the first write of every isolate.
 *
 * D1 has no interactive transactions: writes that must land together go through `batch()`
 * (./index.ts). The handle built on this connection (`Db`, ./index.ts) has no `transaction()`.
 */
import type { CompiledQuery, ConnectionProvider, DatabaseConnection, QueryResult } from "kysely";

/** A D1 binding holds no connection of its own: one stateless wrapper serves every query. */
export class D1Connection implements DatabaseConnection, ConnectionProvider {
  constructor(readonly database: D1Database) {}

  provideConnection<T>(consumer: (connection: DatabaseConnection) => Promise<T>): Promise<T> {
    return consumer(this);
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.database
      .prepare(query.sql)
      .bind(...query.parameters)
      .all<R>();
    const lastRowId = result.meta.last_row_id;
    return {
      rows: result.results ?? [],
      numAffectedRows: BigInt(result.meta.changes ?? 0),
      insertId: lastRowId === undefined || lastRowId === null ? undefined : BigInt(lastRowId),
    };
  }

  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("D1 cannot stream a query's rows");
  }
}
