/**
 * Shared storage is bounded per org (issue 28, hardening item 4; docs/operations.md "Limits and retention";
 * src/db/creation-caps.ts, src/auth/limits.ts, src/db/retention.ts): an org at a limit gets 429
 * or 409 and writes nothing, every other org goes on as before, and the cron's retention deletes
 * as much a run as the limits let every org add.
 *
 * Requests that need a lower cap go through the Worker's own fetch handler with the setting
 * overridden, as a deploy with it would run, and their answers are checked against the OpenAPI
 * document like every other.
 */
import { createExecutionContext, env, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../functions/index";
import type { Env } from "../../src/env";
import { MAX_API_KEY_ROWS, MAX_DEPLOYMENTS, REVOKED_KEY_RETENTION_MS } from "../../src/auth/limits";
import { database } from "../../src/db";
import { creationCaps, CREATION_WINDOW_MS } from "../../src/db/creation-caps";
import { RETENTION_MIN_BATCH, retentionOwners, retentionPlan, runRetention } from "../../src/db/retention";
import { IDEMPOTENCY_WINDOW_MS } from "../../src/idempotency";
import { BASE, call, checkAnswer, createKey, createOrg, expectError, json, refreshCatalog, type TestOrg } from "./helpers";
import { fastSim, waitForState } from "./lease-helpers";

/** A request through the Worker with `settings` in force. */
async function withSettings(settings: Partial<Env>, method: string, path: string, opts: { key: string; body?: unknown; headers?: Record<string, string> }) {
  const ctx = createExecutionContext();
  const headers: Record<string, string> = { authorization: `Bearer ${opts.key}`, ...opts.headers };
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const req = new Request(`${BASE}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const res = await worker.fetch(req, { ...(env as Env), ...settings } as Env, ctx);
  await waitOnExecutionContext(ctx);
  await checkAnswer(method, path, res);
  return res;
}

const QUOTE = { spec: { gpu: "l4:1" }, policy: { ttl: "1h" } };
const count = (sql: string, ...args: unknown[]) => env.DB.prepare(sql).bind(...args).first<number>("n");

async function writer(): Promise<{ org: TestOrg; key: string }> {
  const org = await createOrg();
  return { org, key: (await createKey(org, "write")).secret };
}

beforeAll(async () => {
  await fastSim();
  await refreshCatalog();
});

describe("quotes: at most LESSOR_QUOTES_PER_DAY per org in 24 hours, counted by the org's object as it stores the quote", () => {
  const capped = { LESSOR_QUOTES_PER_DAY: "3" };
  /** The org's quotes, where they are kept (src/catalog/quote-store.ts). */
  const quotesOf = (orgId: string) =>
    runInDurableObject(env.ORG_EVENTS.get(env.ORG_EVENTS.idFromName(orgId)), (_o, state) => state.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM quotes`).one().n);

  it("past the cap 429 rate_limited naming it, with Retry-After, and nothing stored; another org is untouched", async () => {
    const full = await writer();
    for (let i = 0; i < 3; i++) expect((await withSettings(capped, "POST", "/v1/quotes", { key: full.key, body: QUOTE })).status).toBe(201);
    const refused = await withSettings(capped, "POST", "/v1/quotes", { key: full.key, body: QUOTE });
    const error = await expectError(refused, 429, "rate_limited");
    expect(error.details).toMatchObject({ budget: "quotes", max: 3, window_s: CREATION_WINDOW_MS / 1000 });
    // The oldest of the three leaves the window a day after it was made.
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(86_000);
    expect(await quotesOf(full.org.id)).toBe(3);

    // A refused create with an Idempotency-Key leaves no record behind, so a cap also bounds those.
    const idem = `cap-${crypto.randomUUID()}`;
    await expectError(await withSettings(capped, "POST", "/v1/quotes", { key: full.key, body: QUOTE, headers: { "idempotency-key": idem } }), 429, "rate_limited");
    expect(await count("SELECT COUNT(*) AS n FROM idempotency WHERE org_id = ? AND key = ?", full.org.id, idem)).toBe(0);

    const other = await writer();
    expect((await withSettings(capped, "POST", "/v1/quotes", { key: other.key, body: QUOTE })).status).toBe(201);
  });

  it("concurrent quotes cannot pass the cap together", async () => {
    const { org, key } = await writer();
    const answers = await Promise.all(Array.from({ length: 8 }, () => withSettings(capped, "POST", "/v1/quotes", { key, body: QUOTE })));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 201, 201, 429, 429, 429, 429, 429]);
    expect(await quotesOf(org.id)).toBe(3);
  });

  // That only the last 24 hours count is held with chosen times in quote-store.test.ts.
});

describe("leases: at most LESSOR_LEASES_PER_DAY created per org in 24 hours, counted in the admission's insert", () => {
  const capped = { LESSOR_LEASES_PER_DAY: "2" };
  const body = { kind: "scratch", spec: { gpu: "l4:1", providers: ["sim"] }, policy: { ttl: "1h" } };

  it("past the cap 429 rate_limited naming it, and nothing rented or reserved; the leases it has still act; another org is untouched", async () => {
    const full = await writer();
    const made = [];
    for (let i = 0; i < 2; i++) {
      const res = await withSettings(capped, "POST", "/v1/leases", { key: full.key, body });
      expect(res.status, await res.clone().text()).toBe(202);
      made.push((await json(res)).id as string);
    }
    const refused = await withSettings(capped, "POST", "/v1/leases", { key: full.key, body: { ...body, name: "over-the-cap" } });
    const error = await expectError(refused, 429, "rate_limited");
    expect(error.details).toMatchObject({ budget: "leases", max: 2 });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(86_000);
    expect(await count("SELECT COUNT(DISTINCT lease_id) AS n FROM budget_reservations WHERE org_id = ?", full.org.id)).toBe(2);
    // Its name was claimed first and given back.
    expect(await count("SELECT COUNT(*) AS n FROM lease_names WHERE org_id = ?", full.org.id)).toBe(0);

    // An action of a lease that exists creates nothing, and is admitted as before.
    await waitForState(full.key, made[0]!, "ready");
    const extended = await withSettings(capped, "POST", `/v1/leases/${made[0]}/extend`, { key: full.key, body: { by: "2h" } });
    expect(extended.status, await extended.clone().text()).toBe(200);

    const other = await writer();
    const theirs = await withSettings(capped, "POST", "/v1/leases", { key: other.key, body });
    expect(theirs.status).toBe(202);
    for (const [key, id] of [...made.map((id) => [full.key, id]), [other.key, (await json(theirs)).id]]) await call("POST", `/v1/leases/${id}/end`, { key: key!, body: {} });
  });
});

describe("API keys: at most 1,000 rows per org, revoked ones included; revoked ones are deleted 30 days on", () => {
  it("past the rows 409 limit_reached (api_key_rows); retention deletes the long-revoked ones and frees the places; another org is untouched", async () => {
    const org = await createOrg();
    const long = Date.now() - REVOKED_KEY_RETENTION_MS - 60_000;
    // The admin key is one row; fill the rest with revoked keys, half revoked a month ago.
    const fill = Array.from({ length: MAX_API_KEY_ROWS - 1 }, (_, i) =>
      env.DB.prepare("INSERT INTO api_keys (id, org_id, name, prefix, hash, scope, created_at, revoked_at) VALUES (?, ?, 'fill', 'lsr_xxxxxx', ?, 'read', 0, ?)").bind(
        `key_rows_${org.id}_${i}`,
        org.id,
        `rows-${org.id}-${i}`,
        i % 2 === 0 ? long : Date.now(),
      ),
    );
    for (let i = 0; i < fill.length; i += 100) await env.DB.batch(fill.slice(i, i + 100));
    const error = await expectError(await call("POST", "/v1/keys", { key: org.adminKey, body: { name: "one more", scope: "read" } }), 409, "limit_reached");
    expect(error.details).toEqual({ limit: "api_key_rows", max: MAX_API_KEY_ROWS });

    const other = await createOrg();
    expect((await call("POST", "/v1/keys", { key: other.adminKey, body: { name: "theirs", scope: "read" } })).status).toBe(201);

    while ((await runRetention(database(env.DB), Date.now())).api_keys_deleted > 0);
    expect(await count("SELECT COUNT(*) AS n FROM api_keys WHERE org_id = ? AND revoked_at < ?", org.id, Date.now() - REVOKED_KEY_RETENTION_MS)).toBe(0);
    expect(await count("SELECT COUNT(*) AS n FROM api_keys WHERE org_id = ?", org.id)).toBe(MAX_API_KEY_ROWS / 2);
    expect((await call("POST", "/v1/keys", { key: org.adminKey, body: { name: "one more", scope: "read" } })).status).toBe(201);
  });
});

describe("deployments: at most 100 per org", () => {
  it("past it 409 limit_reached (deployments), before anything is rented; another org is untouched", async () => {
    const full = await writer();
    const now = Date.now();
    const fill = Array.from({ length: MAX_DEPLOYMENTS }, (_, i) =>
      env.DB.prepare("INSERT INTO deployments (id, org_id, name, model, config, fingerprint, api_key, lease_id, created_at, updated_at) VALUES (?, ?, ?, 'm', '{}', 'f', 'k', ?, ?, ?)").bind(
        `dp_fill_${full.org.id}_${i}`,
        full.org.id,
        `fill-${i}`,
        `ls_fill_${full.org.id}_${i}`,
        now,
        now,
      ),
    );
    await env.DB.batch(fill);
    const put = { model: "Qwen/Qwen2.5-0.5B-Instruct", spec: { gpu: "l40s:1" } };
    const error = await expectError(await call("PUT", "/v1/deployments/one-more", { key: full.key, body: put }), 409, "limit_reached");
    expect(error.details).toEqual({ limit: "deployments", max: MAX_DEPLOYMENTS });
    expect(await count("SELECT COUNT(*) AS n FROM deployments WHERE org_id = ?", full.org.id)).toBe(MAX_DEPLOYMENTS);
    expect(await count("SELECT COUNT(*) AS n FROM budget_reservations WHERE org_id = ?", full.org.id)).toBe(0);

    const other = await writer();
    const theirs = await call("PUT", "/v1/deployments/theirs", { key: other.key, body: put });
    expect(theirs.status, await theirs.clone().text()).toBe(202);
    expect((await call("DELETE", "/v1/deployments/theirs", { key: other.key })).status).toBe(200);
  });
});

describe("retention keeps up with what the limits allow", () => {
  it("a run deletes what every org may add in a cron period, twice over: more than the old fixed 500 when there are orgs enough", async () => {
    const org = await createOrg();
    const old = Date.now() - IDEMPOTENCY_WINDOW_MS - 3_600_000;
    const rows = Array.from({ length: 1_500 }, (_, i) =>
      env.DB.prepare("INSERT INTO idempotency (org_id, route, key, body_hash, status, response, created_at) VALUES (?, 'POST /v1/quotes', ?, 'x', 201, '{}', ?)").bind(org.id, `old-${i}`, old + i),
    );
    for (let i = 0; i < rows.length; i += 100) await env.DB.batch(rows.slice(i, i + 100));
    const db = database(env.DB);
    // With this installation's caps and owners, a run's share is the floor.
    const owners = await retentionOwners(db);
    expect(owners.orgs).toBeGreaterThan(0);
    expect(owners.accounts).toBeGreaterThanOrEqual(1);
    // 100 orgs at the default caps may add (10,000 + 5,000) x 100 idempotency records a day: a
    // minute's share twice over is about 2,084 a run.
    const plan = retentionPlan(creationCaps({}), { orgs: 100, accounts: 1 });
    expect(plan.idempotency).toBeGreaterThan(1_500);
    const report = await runRetention(db, Date.now(), plan);
    expect(report.idempotency_deleted).toBeGreaterThanOrEqual(1_500);
    expect(await count("SELECT COUNT(*) AS n FROM idempotency WHERE org_id = ? AND key LIKE 'old-%'", org.id)).toBe(0);
    expect(RETENTION_MIN_BATCH).toBeLessThan(1_500);
  });
});

describe("the counts read through indexes that begin with their owner", () => {
  const plan = async (q: string, ...args: unknown[]) => JSON.stringify((await env.DB.prepare(`EXPLAIN QUERY PLAN ${q}`).bind(...args).all()).results.map((r: any) => r.detail));

  it("leases, keys and deployments of one org; event ids of one account; the revoked keys retention deletes", async () => {
    const leases = await plan("SELECT COUNT(*) FROM (SELECT 1 FROM leases WHERE org_id = ? AND id >= ? AND id IS NOT ? LIMIT ?)", "org_x", "ls_0", "ls_1", 3);
    expect(leases).toContain("leases_org");
    expect(leases).not.toMatch(/SCAN leases\b(?! USING)/);
    const events = await plan("SELECT COUNT(*) FROM (SELECT event_id FROM ingress_events WHERE account = ? AND provider = ? AND received_at >= ? LIMIT ?)", "org_x", "vast", 0, 3);
    expect(events).toContain("sqlite_autoindex_ingress_events_1");
    expect(await plan("SELECT COUNT(*) FROM (SELECT 1 FROM api_keys WHERE org_id = ? LIMIT ?)", "org_x", 3)).toContain("api_keys_org");
    expect(await plan("SELECT COUNT(*) FROM (SELECT 1 FROM deployments WHERE org_id = ? LIMIT ?)", "org_x", 3)).toContain("deployments_org_name");
    const revoked = await plan("SELECT id FROM api_keys WHERE revoked_at IS NOT NULL AND revoked_at < ? ORDER BY revoked_at LIMIT ?", 0, 3);
    expect(revoked).toContain("api_keys_revoked");
    expect(revoked).not.toContain("TEMP B-TREE");
    // An org account's delivery finds the lease of its machine through the machine's index, as before.
    const machine = await plan(
      "SELECT id FROM leases WHERE provider = ? AND machine_id = ? AND state != 'released' AND org_id = (SELECT org_id FROM provider_keys WHERE provider = ? AND ingress_token_hash = ?) LIMIT 10",
      "runpod",
      "m",
      "runpod",
      "h",
    );
    expect(machine).toContain("leases_machine");
    expect(machine).toContain("provider_keys_ingress");
  });
});
