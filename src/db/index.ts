import { Kysely, type Compilable } from "kysely";
import { D1Dialect } from "./d1-dialect";
import type { Database } from "./schema";

export type Db = Kysely<Database>;

const cache = new WeakMap<D1Database, Db>();

/** One Kysely instance per D1 binding (it holds no connection; this only saves allocations). */
export function database(d1: D1Database): Db {
  let db = cache.get(d1);
  if (!db) {
    db = new Kysely<Database>({ dialect: new D1Dialect({ database: d1 }) });
    cache.set(d1, db);
  }
  return db;
}

/**
 * Runs several statements as one D1 batch, one round trip, which D1 applies in one transaction:
 * all land or none do. Answers each statement's rows, in order. D1 has no interactive transactions
 * (./d1-dialect.ts), so queries are compiled here and bound directly (STYLE.md rule 9).
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
