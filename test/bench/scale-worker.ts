/**
 * The scale bench's Worker (test/bench/scale.ts): lessor's own Worker and Durable Objects
 * (functions/index.ts) as they are, plus `POST /__bench/<what>` for what the bench drives from
 * inside the isolate, through the same bindings the Worker's code uses. Built only by the bench,
 * never deployed. Each route answers with the wall time of what it ran; the bench reads the meter
 * (`GET /v1/meter`, src/metering.ts) around it. A route is not a Worker request of its own: the
 * meter counts only what it does.
 */
import worker from "../../functions/index";
import { database } from "../../src/db";
import type { Env } from "../../src/env";
import { orgEventsStub } from "../../src/events/forward";
import type { LeaseEvent } from "../../src/lease/store";
import { leasesOfMachines, liveMachinesQuery, runBackstop } from "../../src/lease/reaper";
import { meteredEnv } from "../../src/metering";
import type { OrgLeaseRow } from "../../src/orgs/lease-index";
import type { Machine } from "../../src/providers/contract";
import { installationId } from "../../src/config";
import { machineLabel } from "../../src/lease/label";

export { ApiKeyObject, RateLimiter, OrgEventsObject, LeaseObject, DeploymentObject, SimCloud } from "../../functions/index";

/** One lease as the bench seeds it: its row of the org's index, the events it forwards with it, and its D1 row's own columns. */
export interface SeedLease {
  row: OrgLeaseRow;
  events: LeaseEvent[];
  machine_id: string;
}

export type BenchAsk =
  | { what: "seed"; org_id: string; leases: SeedLease[]; concurrency: number }
  | { what: "seed_d1"; org_id: string; leases: SeedLease[] }
  | { what: "sync"; org_id: string; lease: SeedLease; deadline: boolean }
  | { what: "backstop"; now: number }
  | { what: "sweep"; org_id: string; now: number }
  | { what: "counts"; org_id: string }
  | { what: "d1_size" }
  | { what: "reconciler_live"; provider: string }
  | { what: "machines_lookup"; lease_ids: string[] }
  | { what: "ingress_lookup"; provider: string; machine_id: string };

/** D1 rows per insert statement when seeding: D1 takes at most 100 KB of SQL, and the rows go as one JSON parameter. */
const D1_ROWS_PER_STATEMENT = 50;

async function run(env: Env, ask: BenchAsk): Promise<unknown> {
  switch (ask.what) {
    case "seed": {
      // As lease objects send them: each lease's events and its index row in one call
      // (src/events/lease-stream.ts `forward`), `concurrency` calls in flight to the org's object.
      const stub = orgEventsStub(env, ask.org_id);
      let next = 0;
      await Promise.all(
        Array.from({ length: ask.concurrency }, async () => {
          while (next < ask.leases.length) {
            const l = ask.leases[next++]!;
            await stub.sync(ask.org_id, l.row.id, l.events, { row: l.row, deadline: true });
          }
        }),
      );
      return { synced: ask.leases.length };
    }
    case "seed_d1": {
      // The global rows (src/lease/index-repo.ts `writeLeaseIndex`): a batch per org.
      const statements = [];
      for (let i = 0; i < ask.leases.length; i += D1_ROWS_PER_STATEMENT) {
        const rows = ask.leases.slice(i, i + D1_ROWS_PER_STATEMENT).map((l) => ({
          id: l.row.id,
          kind: l.row.kind,
          state: l.row.state,
          machine_id: l.machine_id,
          created_at: l.row.created_at,
          version: l.row.version,
          name: l.row.name,
          body: l.row.body,
        }));
        statements.push(
          env.DB.prepare(
            `INSERT INTO leases (id, org_id, kind, state, provider, machine_id, release_reason, next_deadline, created_at, updated_at, version, body, billed_from, gpu_class, name)
             SELECT j.value ->> 'id', ?1, j.value ->> 'kind', j.value ->> 'state', 'sim', j.value ->> 'machine_id', NULL, NULL,
                    j.value ->> 'created_at', j.value ->> 'created_at', j.value ->> 'version', j.value ->> 'body', j.value ->> 'created_at', 'l40s', j.value ->> 'name'
             FROM json_each(?2) AS j`,
          ).bind(ask.org_id, JSON.stringify(rows)),
        );
      }
      await env.DB.batch(statements);
      return { inserted: ask.leases.length, statements: statements.length };
    }
    case "sync":
      return orgEventsStub(env, ask.org_id).sync(ask.org_id, ask.lease.row.id, ask.lease.events, { row: ask.lease.row, deadline: ask.deadline });
    case "backstop":
      return runBackstop(env, ask.now);
    case "sweep":
      return orgEventsStub(env, ask.org_id).sweepDue(ask.org_id, ask.now);
    case "counts":
      return orgEventsStub(env, ask.org_id).leaseIndexCounts(ask.org_id);
    case "d1_size": {
      // The database's size as D1 reports it with every result (`meta.size_after`), and what the `leases` rows' bodies hold.
      const r = await env.DB.prepare(`SELECT COUNT(*) AS n, SUM(LENGTH(body)) AS body FROM leases`).all<{ n: number; body: number }>();
      return { bytes: r.meta.size_after, leases: r.results[0]?.n ?? 0, body_bytes: r.results[0]?.body ?? 0 };
    }
    case "reconciler_live": {
      // The reconciler's read of every live lease holding a machine on a provider (src/lease/reaper.ts).
      const rows = await liveMachinesQuery(database(env.DB), ask.provider, null).execute();
      return { rows: rows.length };
    }
    case "machines_lookup": {
      // The reconciler's lookup of the leases its listed machines are labelled with, 90 ids a query.
      const installation = installationId(env);
      const machines = ask.lease_ids.map((id) => ({ id: `m-${id}`, label: machineLabel(installation, id, 1) }) as unknown as Machine);
      return { found: (await leasesOfMachines(database(env.DB), installationId(env), machines)).size };
    }
    case "ingress_lookup": {
      // The query src/ingress/receive.ts makes for a provider's webhook: the lease holding a machine.
      const rows = await database(env.DB)
        .selectFrom("leases")
        .select("id")
        .where("provider", "=", ask.provider)
        .where("machine_id", "=", ask.machine_id)
        .where("state", "!=", "released")
        .limit(10)
        .execute();
      return { found: rows.length };
    }
  }
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext) {
    const url = new URL(request.url);
    if (!url.pathname.startsWith("/__bench/")) return worker.fetch(request, env, ctx);
    if (!env.LESSOR_BOOTSTRAP_TOKEN || request.headers.get("authorization") !== `Bearer ${env.LESSOR_BOOTSTRAP_TOKEN}`) return new Response("unauthenticated", { status: 401 });
    const ask = (await request.json()) as BenchAsk;
    const started = performance.now();
    try {
      const answer = await run(meteredEnv(env), ask);
      // workerd's clock moves only across I/O: the wall time of a route that made some.
      return Response.json({ answer, ms: performance.now() - started });
    } catch (e) {
      return Response.json({ error: e instanceof Error ? `${e.message}\n${e.stack}` : String(e) }, { status: 500 });
    }
  },
  scheduled: worker.scheduled,
} satisfies ExportedHandler<Env>;
