/**
 * Deployments (docs/deployments.md): a model served under a name. A deployment is a D1 row
 * (migrations/0019) pointing at the lease of kind `deployment` that runs its model server now; the
 * row holds its api_key sealed (src/providers/credentials.ts), the lease holds the machine's own
 * key (src/lease/state.ts `ServedModel`).
 *
 * `PUT` is idempotent by name under concurrency without a read-then-write race: the row is
 * inserted with `ON CONFLICT DO NOTHING` (a unique index on (org, name)) naming its lease's id
 * before that lease exists, and a later PUT that must make a new lease (released, recreated)
 * swaps `lease_id` with a compare-and-swap on the old one. Only the winner of either creates a
 * lease; every other caller answers the deployment as the winner left it.
 */
import { base64url } from "jose";
import { PENDING_MS } from "../billing/budget";
import { publicUrl } from "../config";
import type { Db } from "../db";
import type { DeploymentsTable } from "../db/schema";
import type { Env } from "../env";
import { limitReached, MAX_DEPLOYMENTS } from "../auth/limits";
import { ApiError, conflict, notFound } from "../errors";
import { newId, sha256Hex } from "../ids";
import { createLease } from "../lease/create";
import { freeLeaseName, handOverLeaseName } from "../lease/names";
import type { ActResult, UserAction } from "../lease/object";
import { TERMINAL_STATES, type LeaseState } from "../lease/state";
import type { LeaseView } from "../lease/view";
import { shQuote } from "../providers/agent-start";
import { openSecret, sealSecret } from "../providers/credentials";
import { formatDuration } from "../duration";
import { configFingerprint, replicasOf, storedConfig, type DeploymentConfig, type StoredConfig } from "./config";
import type { DeploymentSummary, ScalerView } from "./object";

export type DeploymentRow = DeploymentsTable;

/** How a deployment is answered. `api_key` only to a caller with the `write` scope (else null). */
export interface DeploymentView {
  name: string;
  id: string;
  /** Its lease's state (`ready` once the model answers); `pending` while the lease is being made. */
  state: LeaseState;
  lease_id: string;
  base_url: string | null;
  api_key: string | null;
  model: string;
  hourly_usd: number | null;
  /** Its replicas' settings (docs/deployments.md "Replicas"). */
  replicas: { min: number; max: number; target_inflight: number; idle_timeout: string; scale_down_delay: string; drain_timeout: string; sleep: "stop" | "release" };
  /** Its replicas as they are, and what the scaler will do next and why; null until the gateway or a PUT has told its object of it. */
  scaler: ScalerView | null;
}

/** 43 URL-safe characters: 32 random bytes, base64url without padding. */
export function newDeploymentKey(): string {
  return base64url.encode(crypto.getRandomValues(new Uint8Array(32)));
}

/** A deployment's api_key is bound to its row: a ciphertext copied to another deployment does not open. */
const keyBinding = (row: Pick<DeploymentRow, "org_id" | "id">) => `deployment/${row.org_id}/${row.id}`;

/** The deployment's api_key in the clear (null: it no longer opens, after LESSOR_MASTER_KEY changed). */
export function deploymentKey(env: Pick<Env, "LESSOR_MASTER_KEY">, row: DeploymentRow): Promise<string | null> {
  return openSecret(env, keyBinding(row), row.api_key);
}

/** `{LESSOR_PUBLIC_URL}/v1/gateway/{id}/v1`: what any OpenAI client takes as its base URL. */
export function baseUrl(env: Pick<Env, "LESSOR_PUBLIC_URL">, id: string): string | null {
  const origin = publicUrl(env);
  return origin === null ? null : `${origin}/v1/gateway/${id}/v1`;
}

export function configOf(row: DeploymentRow): StoredConfig {
  return JSON.parse(row.config) as StoredConfig;
}

export async function deploymentByName(db: Db, orgId: string, name: string): Promise<DeploymentRow | null> {
  return (await db.selectFrom("deployments").selectAll().where("org_id", "=", orgId).where("name", "=", name).executeTakeFirst()) ?? null;
}

/** By id alone: the gateway's lookup (its caller proves itself with the deployment's key, not an org's). */
export async function deploymentById(db: Db, id: string): Promise<DeploymentRow | null> {
  return (await db.selectFrom("deployments").selectAll().where("id", "=", id).executeTakeFirst()) ?? null;
}

/** A page of the org's deployments by name, after `after`. */
export async function listDeployments(db: Db, orgId: string, after: string | null, limit: number): Promise<DeploymentRow[]> {
  let q = db.selectFrom("deployments").selectAll().where("org_id", "=", orgId);
  if (after !== null) q = q.where("name", ">", after);
  return q.orderBy("name").limit(limit + 1).execute();
}

export const leaseStub = (env: Env, leaseId: string) => env.LEASE.get(env.LEASE.idFromName(leaseId));

/** The deployment's own object (src/deployments/object.ts), named by its id. */
export const deploymentStub = (env: Env, id: string) => env.DEPLOYMENT.get(env.DEPLOYMENT.idFromName(id));

/** What the deployment's object needs of its row. */
export function objectSummary(row: DeploymentRow): DeploymentSummary {
  return { id: row.id, org_id: row.org_id, name: row.name, lease_id: row.lease_id, fingerprint: row.fingerprint, config: configOf(row) };
}

/** The lease's view, or null while it is not yet made (or was never made). */
export async function leaseOf(env: Env, row: DeploymentRow): Promise<LeaseView | null> {
  return leaseStub(env, row.lease_id).view(row.org_id);
}

/** The deployment as answered, from its row and its lease as it is now. */
export async function renderDeployment(env: Env, row: DeploymentRow, lease: LeaseView | null, showKey: boolean): Promise<DeploymentView> {
  const r = replicasOf(configOf(row));
  return {
    name: row.name,
    id: row.id,
    state: lease?.state ?? "pending",
    lease_id: row.lease_id,
    base_url: baseUrl(env, row.id),
    api_key: showKey ? await deploymentKey(env, row) : null,
    model: row.model,
    hourly_usd: lease?.hourly_usd ?? null,
    replicas: { min: r.min, max: r.max, target_inflight: r.target_inflight, idle_timeout: formatDuration(r.idle_timeout_ms), scale_down_delay: formatDuration(r.scale_down_delay_ms), drain_timeout: formatDuration(r.drain_timeout_ms), sleep: r.sleep },
    scaler: await deploymentStub(env, row.id).status(row.org_id),
  };
}

/**
 * Makes the deployment's lease (id chosen by the row): it runs the model server with a fresh
 * machine key, and is named after the deployment, unless another live lease of the org holds that
 * name (a lease the org named so itself): then it has none rather than no deployment.
 */
async function startLease(db: Db, env: Env, row: DeploymentRow, config: StoredConfig, now: number): Promise<LeaseView> {
  const input = {
    id: row.lease_id,
    kind: "deployment" as const,
    spec: config.spec,
    ...(config.policy ? { policy: config.policy } : {}),
    ...(config.image ? { image: config.image } : {}),
    ...(config.volumes?.length ? { volumes: config.volumes } : {}),
    model: { id: config.model, key: newDeploymentKey(), engine_args: config.engine_args },
  };
  const lease = await createLease(db, env, row.org_id, { ...input, name: row.name }, now).catch((e: unknown) => {
    if (e instanceof ApiError && e.code === "name_taken") return createLease(db, env, row.org_id, input, now);
    throw e;
  });
  // A recreate that swapped the lease while this one was being made leaves it pointed at by nothing: it ends.
  const current = await deploymentById(db, row.id);
  if (current?.lease_id !== row.lease_id) await actOnLease(env, row, "end");
  return lease;
}

/** A user's action on the deployment's lease; a refusal other than a state's is the lease's own answer. */
export async function actOnLease(env: Env, row: DeploymentRow, action: UserAction): Promise<ActResult> {
  const result = (await leaseStub(env, row.lease_id).act(row.org_id, action)) as ActResult;
  if (!result.ok && result.status === 402) throw new ApiError(402, result.code, result.message, result.details);
  return result;
}

/**
 * Points the deployment at a new lease in place of `row.lease_id` (compare-and-swap): the new
 * row when this caller won, null when another did first.
 */
async function swapLease(db: Db, row: DeploymentRow, config: StoredConfig, fingerprint: string, now: number): Promise<DeploymentRow | null> {
  const leaseId = newId("ls", now);
  const won = await db
    .updateTable("deployments")
    .set({ lease_id: leaseId, config: JSON.stringify(config), fingerprint, model: config.model, updated_at: now })
    .where("id", "=", row.id)
    .where("lease_id", "=", row.lease_id)
    .returningAll()
    .executeTakeFirst();
  return won ?? null;
}

export interface PutOutcome {
  /** 202: this call created or started a machine; 200: it found one. */
  status: 200 | 202;
  row: DeploymentRow;
  lease: LeaseView | null;
}

const INSERT_DEPLOYMENT = `
  INSERT INTO deployments (id, org_id, name, model, config, fingerprint, api_key, lease_id, created_at, updated_at)
  SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10
  WHERE (SELECT COUNT(*) FROM (SELECT 1 FROM deployments WHERE org_id = ?2 LIMIT ?11)) < ?11
  ON CONFLICT (org_id, name) DO NOTHING`;

/**
 * Inserts a new deployment unless its org holds one of that name or MAX_DEPLOYMENTS already
 * (src/auth/limits.ts; counted in the same statement through `deployments_org_name`, reading at
 * most that many): true when inserted. Of concurrent PUTs of one name the one whose insert lands
 * makes the lease.
 */
async function insertDeployment(d1: D1Database, row: DeploymentRow): Promise<boolean> {
  const res = await d1
    .prepare(INSERT_DEPLOYMENT)
    .bind(row.id, row.org_id, row.name, row.model, row.config, row.fingerprint, row.api_key, row.lease_id, row.created_at, row.updated_at, MAX_DEPLOYMENTS)
    .run();
  return res.meta.changes === 1;
}

async function deploymentCount(db: Db, orgId: string): Promise<number> {
  const row = await db.selectFrom("deployments").select((eb) => eb.fn.countAll<number>().as("n")).where("org_id", "=", orgId).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * `PUT /v1/deployments/:name`: the deployment with this configuration, made, restarted or found.
 * A changed fingerprint is 409 `config_changed` unless `recreate`, which ends the old lease and
 * makes a new one.
 */
export async function putDeployment(db: Db, env: Env, orgId: string, name: string, body: DeploymentConfig, recreate: boolean, now: number): Promise<PutOutcome> {
  const out = await putRow(db, env, orgId, name, body, recreate, now);
  // Its object learns the row as it now is (a new lease, a new configuration, new replicas).
  await deploymentStub(env, out.row.id).sync(objectSummary(out.row));
  return out;
}

async function putRow(db: Db, env: Env, orgId: string, name: string, body: DeploymentConfig, recreate: boolean, now: number): Promise<PutOutcome> {
  const config = storedConfig(body);
  const fingerprint = await configFingerprint(config);
  const id = newId("dp", now);
  const fresh: DeploymentRow = {
    id, org_id: orgId, name, model: config.model, config: JSON.stringify(config), fingerprint,
    api_key: await sealSecret(env, keyBinding({ org_id: orgId, id }), newDeploymentKey()),
    lease_id: newId("ls", now), created_at: now, updated_at: now,
  };
  if (await insertDeployment(env.DB, fresh)) {
    try {
      return { status: 202, row: fresh, lease: await startLease(db, env, fresh, config, now) };
    } catch (e) {
      // Refused before any lease was made (no capacity, budget, a bad spec): the name is free again.
      if ((await leaseOf(env, fresh).catch(() => null)) === null) await db.deleteFrom("deployments").where("id", "=", fresh.id).where("lease_id", "=", fresh.lease_id).execute();
      throw e;
    }
  }
  const row = await deploymentByName(db, orgId, name);
  if (!row) {
    // Not inserted and not there: the org holds as many as it may, or its row was deleted meanwhile.
    if ((await deploymentCount(db, orgId)) >= MAX_DEPLOYMENTS) throw limitReached("deployments");
    throw new ApiError(409, "deployment_busy", `deployment "${name}" was deleted while this request ran; send it again`, { name });
  }
  if (row.fingerprint !== fingerprint && !recreate) {
    throw conflict("config_changed", `deployment "${name}" runs another configuration (model, spec, image or engine_args); send ?recreate=true to replace its machine`, { name, model: row.model });
  }
  const lease = await leaseOf(env, row);
  // A lease that ended, one never made past PENDING_MS (its create died), or a new configuration: a new lease.
  const gone = lease === null ? row.updated_at < now - PENDING_MS : TERMINAL_STATES.includes(lease.state);
  if (gone || row.fingerprint !== fingerprint) {
    const swapped = await swapLease(db, row, config, fingerprint, now);
    if (!swapped) return { status: 200, ...(await reread(db, env, orgId, name)) };
    if (lease !== null && !gone) await actOnLease(env, row, "end");
    // The old lease may still be releasing: its name passes to the new one rather than colliding.
    await handOverLeaseName(db, orgId, name, row.lease_id, swapped.lease_id, now);
    return { status: 202, row: swapped, lease: await startLease(db, env, swapped, config, now) };
  }
  const current = await withReplicas(db, row, config, now);
  if (lease?.state === "stopped") {
    const started = await actOnLease(env, current, "start");
    if (started.ok) return { status: 202, row: current, lease: started.lease };
  }
  return { status: 200, row: current, lease: lease === null ? null : await leaseOf(env, current) };
}

/** The row with this PUT's replicas (they are not in the fingerprint: a change of them is stored, never a conflict). */
async function withReplicas(db: Db, row: DeploymentRow, config: StoredConfig, now: number): Promise<DeploymentRow> {
  const stored = configOf(row);
  if (JSON.stringify(stored.replicas ?? null) === JSON.stringify(config.replicas ?? null)) return row;
  const next: StoredConfig = { ...stored };
  if (config.replicas) next.replicas = config.replicas;
  else delete next.replicas;
  const updated = await db.updateTable("deployments").set({ config: JSON.stringify(next), updated_at: now }).where("id", "=", row.id).where("lease_id", "=", row.lease_id).returningAll().executeTakeFirst();
  return updated ?? row;
}

/**
 * A new lease in place of `oldLeaseId` for the deployment's object (a wake after `sleep: release`,
 * a failing primary replaced): the PUT's own swap, so that of it and a PUT only one makes a lease.
 * Answers the lease the row then names.
 */
export async function renewLease(db: Db, env: Env, orgId: string, id: string, oldLeaseId: string, now: number): Promise<string> {
  const row = await deploymentById(db, id);
  if (!row || row.org_id !== orgId) throw new ApiError(409, "deployment_busy", "the deployment was deleted", {});
  if (row.lease_id !== oldLeaseId) return row.lease_id;
  const config = configOf(row);
  const swapped = await swapLease(db, row, config, row.fingerprint, now);
  if (!swapped) return (await deploymentById(db, id))?.lease_id ?? oldLeaseId;
  await handOverLeaseName(db, orgId, row.name, row.lease_id, swapped.lease_id, now);
  await startLease(db, env, swapped, config, now);
  return swapped.lease_id;
}

async function reread(db: Db, env: Env, orgId: string, name: string): Promise<{ row: DeploymentRow; lease: LeaseView | null }> {
  const row = await deploymentByName(db, orgId, name);
  if (!row) throw notFound("deployment", name);
  return { row, lease: await leaseOf(env, row) };
}

/** `DELETE`: ends its lease, then forgets the deployment (its name and key). null: no such deployment. */
export async function deleteDeployment(db: Db, env: Env, orgId: string, name: string): Promise<DeploymentRow | null> {
  const row = await deploymentByName(db, orgId, name);
  if (!row) return null;
  // Its other replicas end with it; the primary is ended here, as before.
  await deploymentStub(env, row.id).forget(orgId);
  const ended = await actOnLease(env, row, "end");
  if (!ended.ok && ended.status !== 404) throw new ApiError(ended.status, ended.code, ended.message, ended.details);
  // The name is free at once, as the deployment's is: a PUT right after names its new lease so.
  await freeLeaseName(db, { org_id: orgId, name: row.name, lease_id: row.lease_id });
  await db.deleteFrom("deployments").where("id", "=", row.id).execute();
  return row;
}

/** `rotate-key`: a new api_key; the old one stops working at once. */
export async function rotateDeploymentKey(db: Db, env: Env, orgId: string, name: string, now: number): Promise<DeploymentRow | null> {
  const row = await deploymentByName(db, orgId, name);
  if (!row) return null;
  const key = newDeploymentKey();
  // The deployment's object learns the new key's digest first (the gateway's quick path, gateway.ts):
  // the old key stops working before the answer, and a failure here leaves the old key stored and working.
  await deploymentStub(env, row.id).setKey(row.org_id, await sha256Hex(key));
  const api_key = await sealSecret(env, keyBinding(row), key);
  return (await db.updateTable("deployments").set({ api_key, updated_at: now }).where("id", "=", row.id).returningAll().executeTakeFirst()) ?? null;
}

/** `GET .../env`: the shell lines that point an OpenAI client at the deployment. */
export function envLines(view: Pick<DeploymentView, "base_url" | "api_key" | "model">): string {
  return [
    `export OPENAI_BASE_URL=${shQuote(view.base_url ?? "")}`,
    `export OPENAI_API_KEY=${shQuote(view.api_key ?? "")}`,
    `export LESSOR_MODEL_ID=${shQuote(view.model)}`,
  ].join("\n") + "\n";
}
