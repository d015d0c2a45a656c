/**
 * What the control plane itself consumes, counted where it happens (docs/cost.md): Worker
 * requests, Durable Object requests, alarms and wall time, D1 and Durable Object SQL rows, and
 * provider API calls. The counts live in the isolate's memory: `GET /v1/meter` answers them, and
 * the cost bench reads them before and after a lease to price it. In local development (`npm
 * start`, the tests, the bench) the Worker and its objects share one isolate, so the counts are
 * the whole installation's; on Cloudflare each isolate counts its own share.
 *
 * Nothing here changes behaviour: every wrapper passes calls and answers through untouched.
 */
import type { Env } from "./env";

export interface MeterCounts {
  /** HTTP requests and cron runs the Worker served, and calls a machine's agent makes (each is one request on Cloudflare). */
  worker_requests: number;
  /** Calls to Durable Object stubs (each RPC method call and each fetch is one billed request), alarms not included. */
  do_requests: number;
  do_alarms: number;
  /** Time from each call to a Durable Object until its answer, plus each alarm's run, in ms. */
  do_wall_ms: number;
  d1_queries: number;
  d1_rows_read: number;
  d1_rows_written: number;
  /** Rows of the objects' own SQLite storage (billed like D1's). */
  do_rows_read: number;
  do_rows_written: number;
  /** Calls to a provider's API (src/providers/http.ts), the sim's included, by provider. */
  provider_calls: Record<string, number>;
}

function zero(): MeterCounts {
  return {
    worker_requests: 0,
    do_requests: 0,
    do_alarms: 0,
    do_wall_ms: 0,
    d1_queries: 0,
    d1_rows_read: 0,
    d1_rows_written: 0,
    do_rows_read: 0,
    do_rows_written: 0,
    provider_calls: {},
  };
}

const counts = zero();

/** The counts so far (a copy; they only grow). */
export function meterCounts(): MeterCounts {
  harvestCursors();
  return { ...counts, provider_calls: { ...counts.provider_calls } };
}

export function countWorkerRequest(): void {
  counts.worker_requests++;
}

export function countProviderCall(provider: string): void {
  counts.provider_calls[provider] = (counts.provider_calls[provider] ?? 0) + 1;
}

/** Runs a Durable Object's alarm, counted as one alarm and its wall time. */
export async function meteredAlarm<T>(run: () => Promise<T>): Promise<T> {
  counts.do_alarms++;
  const started = Date.now();
  try {
    return await run();
  } finally {
    counts.do_wall_ms += Date.now() - started;
  }
}

// ---- D1 -------------------------------------------------------------------------------------

function countD1(meta: D1Meta | undefined): void {
  counts.d1_queries++;
  counts.d1_rows_read += meta?.rows_read ?? 0;
  counts.d1_rows_written += meta?.rows_written ?? 0;
}

const INNER = Symbol("inner statement");
type Metered = D1PreparedStatement & { [INNER]: D1PreparedStatement };

function meteredStatement(inner: D1PreparedStatement): Metered {
  const statement = {
    [INNER]: inner,
    bind: (...values: unknown[]) => meteredStatement(inner.bind(...values)),
    async all() {
      const result = await inner.all();
      countD1(result.meta);
      return result;
    },
    async run() {
      const result = await inner.run();
      countD1(result.meta);
      return result;
    },
    // `first` answers no meta: the same query through `all`, whose first row it is.
    async first(column?: string) {
      const result = await inner.all<Record<string, unknown>>();
      countD1(result.meta);
      const row = result.results[0];
      if (row === undefined) return null;
      return column === undefined ? row : (row[column] ?? null);
    },
    async raw(options?: { columnNames?: boolean }) {
      // `raw` answers no meta either: counted as a query, its rows as read.
      const rows = await inner.raw(options as { columnNames: true });
      countD1({ rows_read: rows.length, rows_written: 0 } as D1Meta);
      return rows;
    },
  };
  return statement as unknown as Metered;
}

function meteredD1(d1: D1Database): D1Database {
  return new Proxy(d1, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => meteredStatement(target.prepare(sql));
      if (prop === "batch") {
        return async (statements: D1PreparedStatement[]) => {
          const results = await target.batch(statements.map((s) => (s as Partial<Metered>)[INNER] ?? s));
          for (const r of results) countD1(r.meta);
          return results;
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

// ---- Durable Objects ------------------------------------------------------------------------

/**
 * A stub whose every method call is counted: as an object request, and with `asAgent` also as the
 * Worker request a real machine's agent makes for it. Calls go through Reflect.apply: an RPC stub
 * answers any property, `apply` included, with a remote method of that name.
 */
function meteredStub<T extends object>(stub: T, asAgent: boolean): T {
  return new Proxy(stub, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function" || typeof prop === "symbol") return value;
      return (...args: unknown[]) => {
        if (asAgent) countWorkerRequest();
        counts.do_requests++;
        const started = Date.now();
        const answer = Reflect.apply(value as (...a: unknown[]) => unknown, target, args);
        // Watched, not replaced: an RPC call answers a promise of its own kind, passed on as it is.
        const done = () => void (counts.do_wall_ms += Date.now() - started);
        if (typeof (answer as PromiseLike<unknown> | null)?.then === "function") (answer as PromiseLike<unknown>).then(done, done);
        return answer;
      };
    },
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function meteredNamespace<T extends DurableObjectNamespace<any>>(ns: T, asAgent = false): T {
  return new Proxy(ns, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === "get" || prop === "getByName") {
        return (...args: unknown[]) => meteredStub(Reflect.apply(value as (...a: unknown[]) => object, target, args), asAgent);
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

// ---- Durable Object SQL storage -------------------------------------------------------------

/** Cursors whose rows are counted once they have been read (at the next statement, or a meter read). */
const pendingCursors = new Set<SqlStorageCursor<Record<string, SqlStorageValue>>>();

function harvestCursors(): void {
  for (const cursor of pendingCursors) {
    counts.do_rows_read += cursor.rowsRead;
    counts.do_rows_written += cursor.rowsWritten;
  }
  pendingCursors.clear();
}

/**
 * Statements of the local runtime's own, not lessor's: under `wrangler dev`, miniflare's wrapper of
 * every Durable Object class writes the object's name into a table of its storage each time an
 * instance starts (miniflare's do-wrapper.worker.js, `__miniflare_do_name`). Cloudflare runs no
 * such statement and bills none; counted, it was a third of the bench's object rows (docs/cost.md).
 */
const LOCAL_RUNTIME_TABLE = /__miniflare_/;

/**
 * Counts the rows of an object's own SQLite storage. The cursor of each statement is counted when
 * the object's next statement runs, by when it has been read (storage that is not SQLite-backed
 * has no `sql` and is left as it is).
 */
export function meterStorage(storage: DurableObjectStorage): void {
  const sql = storage.sql as SqlStorage | undefined;
  if (!sql) return;
  const exec = sql.exec.bind(sql);
  Object.defineProperty(sql, "exec", {
    configurable: true,
    value: (query: string, ...bindings: unknown[]) => {
      harvestCursors();
      const cursor = exec(query, ...bindings);
      if (!LOCAL_RUNTIME_TABLE.test(query)) pendingCursors.add(cursor);
      return cursor;
    },
  });
}

// ---- The environment ------------------------------------------------------------------------

const wrapped = new WeakMap<Env, Env>();

/**
 * `env` with its D1 database and its own Durable Object namespaces counted. `as: "agent"` is the sim's
 * environment: its calls to lease objects are what a real machine's agent makes through the
 * Worker, so each also counts as a Worker request.
 */
export function meteredEnv(env: Env, as: "worker" | "agent" = "worker"): Env {
  const cached = as === "worker" ? wrapped.get(env) : undefined;
  if (cached) return cached;
  const out: Env = {
    ...env,
    DB: meteredD1(env.DB),
    LEASE: meteredNamespace(env.LEASE, as === "agent"),
    // The sim is a provider, not the control plane: its calls are counted as provider calls (src/providers/http.ts).
    LIMITER: meteredNamespace(env.LIMITER),
    API_KEY: meteredNamespace(env.API_KEY),
    ORG_EVENTS: meteredNamespace(env.ORG_EVENTS),
    DEPLOYMENT: meteredNamespace(env.DEPLOYMENT),
  };
  if (as === "worker") wrapped.set(env, out);
  return out;
}
