/** Steps shared by the lease tests: create, wait for a state, read the sim's ledger. */
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, beforeEach, expect } from "vitest";
import { simAdmin } from "../../src/providers/sim/adapter";
import type { SimLedgerMachine } from "../../src/providers/sim/machines";
import { call, createKey, createOrg, json, refreshCatalog, type TestOrg } from "./helpers";

export const sim = () => simAdmin(env);

/** Fast machines and no faults: what most lease tests want. */
export async function fastSim(extra: Record<string, number> = {}) {
  await sim().reset();
  await sim().setFaults({ provision_delay_ms: 50, boot_delay_ms: 100, ...extra });
}

export async function createLease(key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await call("POST", "/v1/leases", { key, body, headers });
  const lease = await json(res);
  if (res.status !== 202) throw new Error(`create lease: ${res.status} ${JSON.stringify(lease)}`);
  return lease;
}

export async function getLease(key: string, id: string) {
  const res = await call("GET", `/v1/leases/${id}`, { key });
  expect(res.status).toBe(200);
  return json(res);
}

export async function events(key: string, id: string): Promise<any[]> {
  const res = await call("GET", `/v1/leases/${id}/events`, { key });
  expect(res.status).toBe(200);
  return (await json(res)).data;
}

export async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function waitForState(key: string, id: string, state: string, timeoutMs = 15_000) {
  let last: any = null;
  try {
    return await waitFor(`lease ${id} to be ${state}`, async () => {
      last = await getLease(key, id);
      return last.state === state ? last : null;
    }, timeoutMs);
  } catch (e) {
    throw new Error(`${(e as Error).message}; last seen ${JSON.stringify(last?.state)}; events ${JSON.stringify(await events(key, id))}`);
  }
}

/**
 * The lease's object started again, as after an eviction or a crash: everything it held only in
 * memory is gone. `sql` is run on its storage first (a state the test wants it to start from).
 */
export async function restartedWith(leaseId: string, sql?: string): Promise<void> {
  const stub = () => env.LEASE.get(env.LEASE.idFromName(leaseId));
  // Written in a call of its own: an abort drops what its own call has not yet committed.
  if (sql) await runInDurableObject(stub(), (_o, state) => void state.storage.sql.exec(sql));
  await runInDurableObject(stub(), (_o, state) => state.abort("the test restarts the lease's object")).catch(() => undefined);
}

/** The sim's machines for one lease (every attempt). */
export async function machinesOf(leaseId: string): Promise<SimLedgerMachine[]> {
  const ledger = await sim().getLedger(`lessor-dev-${leaseId}-`);
  return ledger.machines;
}

export { maxAliveAtOnce } from "../../src/providers/sim/machines";

/**
 * The usual setup of a lease test file: an org with a write key and the catalog refreshed once
 * (handed to `ready`), and a fast sim before each test.
 */
export function leaseSuite(ready: (org: TestOrg, key: string) => void): void {
  beforeAll(async () => {
    const org = await createOrg();
    ready(org, (await createKey(org, "write")).secret);
    await refreshCatalog();
  });
  beforeEach(async () => {
    await fastSim();
  });
}
