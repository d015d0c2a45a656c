/**
 * Kysely over a D1 binding: SQLite's adapter, compiler and introspector, and a driver that runs
 * each compiled query as one prepared D1 statement. Written here rather than taken from
 * kysely-d1, whose driver still answers the `numUpdatedOrDeletedRows` field kysely 0.23 removed,
 * so kysely 0.28 logs "outdated driver/plugin detected" on the first write of every isolate.
 *
 * D1 has no interactive transactions: writes that must land together go through `batch()`
 * (./index.ts), and a kysely `transaction()` is refused here rather than half-applied.
 */
import {
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from "kysely";

export class D1Dialect implements Dialect {
  readonly #database: D1Database;

  constructor(config: { database: D1Database }) {
    this.#database = config.database;
  }

  createAdapter() {
    return new SqliteAdapter();
  }

  createDriver(): Driver {
    return new D1Driver(this.#database);
  }

  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }

  createIntrospector(db: Kysely<any>) {
    return new SqliteIntrospector(db);
  }
}

class D1Driver implements Driver {
  readonly #connection: D1Connection;

  constructor(database: D1Database) {
    // A D1 binding holds no connection of its own: one stateless wrapper serves every query.
    this.#connection = new D1Connection(database);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return this.#connection;
  }

  async beginTransaction(): Promise<void> {
    throw new Error("D1 has no interactive transactions: use batch() (src/db/index.ts)");
  }

  async commitTransaction(): Promise<void> {
    throw new Error("D1 has no interactive transactions: use batch() (src/db/index.ts)");
  }

  async rollbackTransaction(): Promise<void> {
    throw new Error("D1 has no interactive transactions: use batch() (src/db/index.ts)");
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {}
}

class D1Connection implements DatabaseConnection {
  constructor(readonly database: D1Database) {}

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
