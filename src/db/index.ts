import {
  DefaultQueryExecutor,
  QueryCreator,
  SqliteAdapter,
  SqliteQueryCompiler,
  type Compilable,
  type QueryExecutor,
  type QueryExecutorProvider,
} from "kysely";
import { D1Connection } from "./d1-connection";
import type { Database } from "./schema";

/**
 * Lessor's handle on D1: kysely's query builders (`selectFrom`, `insertInto`, `updateTable`,
 * `deleteFrom`, ...) over SQLite's compiler, and the executor `sql` templates run on. Built on
 * kysely's `QueryCreator` rather than its `Kysely` class, which brings its schema builders,
 * introspector, driver wrapper and transactions, none of which lessor runs, into the deployed
 * bundle (about 30 KB minified; docs/scale.md). D1 has no interactive transactions, so the
 * handle has no `transaction()`: writes that must land together go through `batch()` below.
 */
export class Db extends QueryCreator<Database> implements QueryExecutorProvider {
  readonly #executor: QueryExecutor;

  constructor(d1: D1Database) {
    const executor = new DefaultQueryExecutor(new SqliteQueryCompiler(), new SqliteAdapter(), new D1Connection(d1));
    super({ executor });
    this.#executor = executor;
  }

  /** What `sql`...`.execute(db)` runs its query on. */
  getExecutor(): QueryExecutor {
    return this.#executor;
  }
}

const cache = new WeakMap<D1Database, Db>();

/** One handle per D1 binding (it holds no connection; this only saves allocations). */
export function database(d1: D1Database): Db {
  let db = cache.get(d1);
  if (!db) {
    db = new Db(d1);
    cache.set(d1, db);
  }
  return db;
}

/**
 * Runs several statements as one D1 batch, one round trip, which D1 applies in one transaction:
 * all land or none do. Answers each statement's rows, in order. D1 has no interactive
 * transactions, so queries are compiled here and bound directly (docs/storage.md).
 */
export async function batch(d1: D1Database, queries: readonly Compilable[]): Promise<Record<string, unknown>[][]> {
  if (queries.length === 0) return [];
  const statements = queries.map((q) => {
    const { sql, parameters } = q.compile();
    return d1.prepare(sql).bind(...parameters);
  });
  const results = await d1.batch<Record<string, unknown>>(statements);
  return results.map((r) => r.results ?? []);
}

/** D1 binds at most 100 parameters to one statement. */
export const D1_MAX_PARAMS = 100;
