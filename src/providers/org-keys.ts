/**
 * An org's own provider keys, checked before they are stored or forgotten: one read-only call
 * proves a key works, a new key must see every machine the org's live leases hold, and a key live
 * leases still need is never forgotten. The routes are functions/v1/providers.ts; the table is
 * `provider_keys` (docs/storage.md).
 */
import { installationId } from "../config";
import type { Db } from "../db";
import type { Env } from "../env";
import { ApiError, errorText } from "../errors";
import { installationPrefix } from "../lease/label";
import { machinesNotSeen, type HeldMachine } from "./account-check";
import { ProviderError, type Machine } from "./contract";
import {
  deleteProviderKey,
  masterKeyConfigured,
  masterKeyMissing,
  providerCredentials,
  providerKeyRows,
  recordVerification,
  storeProviderKey,
  type ProviderCredentials,
  type ProviderKeyRow,
} from "./credentials";
import { forgetUsableProviders, isConfigured, providerSetup, providerWith } from "./registry";

/** The machines the org's live leases hold on one provider, from the D1 index (docs/storage.md). */
async function liveMachinesOn(db: Db, orgId: string, provider: string): Promise<HeldMachine[]> {
  const held = await db
    .selectFrom("leases")
    .select(["id as lease_id", "machine_id"])
    .where("org_id", "=", orgId)
    .where("provider", "=", provider)
    // Live: `released_at` is set exactly when a lease is released; this reads `leases_provider_unreleased`.
    .where("released_at", "is", null)
    .where("machine_id", "is not", null)
    .execute();
  return held as HeldMachine[];
}

/** Refuses to forget a key while live leases on its provider need it to stop and destroy their machines. */
export async function assertNotInUse(db: Db, orgId: string, name: string): Promise<void> {
  const live = await db
    .selectFrom("leases")
    .select(({ fn }) => fn.countAll<number>().as("n"))
    .where("org_id", "=", orgId)
    .where("provider", "=", name)
    .where("released_at", "is", null)
    .executeTakeFirstOrThrow();
  if (Number(live.n) > 0) {
    throw new ApiError(409, "provider_in_use", `${Number(live.n)} live lease(s) on ${name} need this key to stop and destroy their machines; end them first`, {
      live_leases: Number(live.n),
    });
  }
  // A volume bills until it is deleted, and only the key can delete it (docs/volumes.md).
  const volumes = await db.selectFrom("volumes").select(({ fn }) => fn.countAll<number>().as("n")).where("org_id", "=", orgId).where("provider", "=", name).executeTakeFirstOrThrow();
  if (Number(volumes.n) > 0) {
    throw new ApiError(409, "provider_in_use", `${Number(volumes.n)} volume(s) on ${name} need this key to be deleted; delete them first`, { live_leases: 0, volumes: Number(volumes.n) });
  }
}

/** A refusal is the provider saying no to these credentials; anything else says nothing about them. */
const isRefusal = (e: ProviderError) => e.kind === "auth" || e.kind === "not_found" || e.kind === "insufficient_funds";

export async function verifyKey(env: Env, name: string, credentials: ProviderCredentials): Promise<{ ok: true } | { ok: false; refused: boolean; error: string }> {
  try {
    await providerWith(env, name, credentials).verify();
    return { ok: true };
  } catch (e) {
    if (e instanceof ProviderError) return { ok: false, refused: isRefusal(e), error: `${e.kind}: ${e.message}` };
    // An adapter refusing the settings before any call (a missing option).
    return { ok: false, refused: true, error: errorText(e) };
  }
}

export function checkOptions(name: string, options: Record<string, string>): void {
  const fields = providerSetup(name).options;
  const known = new Set(fields.map((f) => f.name));
  const unknown = Object.keys(options).filter((k) => !known.has(k));
  const missing = fields.filter((f) => f.required && !options[f.name]).map((f) => f.name);
  if (unknown.length > 0 || missing.length > 0) {
    throw new ApiError(400, "invalid_request", `${name} takes the options ${fields.length ? fields.map((f) => f.name).join(", ") : "(none)"}`, {
      unknown,
      missing,
    });
  }
}

/** At most this many lease ids are named in a `provider_account_mismatch`. */
const MISMATCH_LEASES_SHOWN = 20;

/**
 * Refuses a key that cannot reach every machine the org's live leases hold on the provider
 * (src/providers/account-check.ts): one list by this installation's label prefix
 * through the new key, before anything is stored. Nothing is changed when it refuses.
 */
export async function assertSeesLiveMachines(env: Env, db: Db, orgId: string, name: string, credentials: ProviderCredentials): Promise<void> {
  const machines = await liveMachinesOn(db, orgId, name);
  if (machines.length === 0) return;
  const provider = providerWith(env, name, credentials);
  let listed: Machine[] = [];
  // A provider that cannot list by label gives no proof: every machine counts as not seen.
  if (provider.capabilities.list_by_label) {
    try {
      listed = await provider.listMachines(installationPrefix(installationId(env)));
    } catch (e) {
      const kind = e instanceof ProviderError ? e.kind : "error";
      throw new ApiError(
        503,
        "provider_unavailable",
        `${name} did not list the machines this org's live leases hold through the new key (${kind}); nothing was changed, try again`,
        { provider: name, live_machines: machines.length },
        { "retry-after": "30" },
        true, // shown: written here, naming only the error kind, never the provider's text
      );
    }
  }
  const unseen = machinesNotSeen(machines, listed);
  if (unseen.length > 0) {
    throw new ApiError(
      409,
      "provider_account_mismatch",
      `the new ${name} key does not see ${unseen.length} of the ${machines.length} machine(s) this org's live leases hold there (another account?); nothing was changed and the stored key stays. End those leases first, or use a key of the account that holds them`,
      { provider: name, live_machines: machines.length, not_seen: unseen.length, leases: unseen.slice(0, MISMATCH_LEASES_SHOWN).map((u) => u.lease_id) },
    );
  }
}


/** The provider, enabled here; 404 otherwise (the same answer for a name lessor has no adapter for). */
export function enabledProvider(env: Env, name: string): string {
  if (!isConfigured(env, name)) throw new ApiError(404, "not_found", `provider ${name} is not enabled on this installation`, { name });
  return name;
}

/** The org's stored key row for one provider, if it holds one. */
export async function providerKeyRow(db: Db, orgId: string, name: string): Promise<ProviderKeyRow | undefined> {
  return (await providerKeyRows(db, orgId)).get(name);
}

const noKeyFor = (name: string) => new ApiError(404, "not_found", `this org has no key for ${name}`, { name });

/**
 * Stores the org's key for a provider once one read-only call has not refused it and it sees every
 * machine the org's live leases hold there; the verification is recorded with it (an unreachable
 * provider stores the key as `unreachable`). Nothing is stored when it refuses.
 */
export async function putProviderKey(env: Env, db: Db, orgId: string, name: string, credentials: ProviderCredentials, now: number): Promise<void> {
  if (!providerSetup(name).needsKey) {
    throw new ApiError(400, "provider_needs_no_key", `${name} is an installation-wide account: every org rents from it without a key`, { name });
  }
  if (!masterKeyConfigured(env)) throw masterKeyMissing();
  checkOptions(name, credentials.options);
  const checked = await verifyKey(env, name, credentials);
  if (!checked.ok && checked.refused) {
    throw new ApiError(422, "provider_key_refused", `${name} refused the key or its settings; nothing was stored (${checked.error})`, { name });
  }
  await assertSeesLiveMachines(env, db, orgId, name, credentials);
  await storeProviderKey(db, env, orgId, name, credentials, now);
  // Answered, or not reachable now: either way the key is stored; `unreachable` says which.
  await recordVerification(db, orgId, name, checked.ok ? true : null, checked.ok ? null : checked.error, now);
  forgetUsableProviders(orgId);
  console.log(JSON.stringify({ msg: "provider key stored", org_id: orgId, provider: name, verified: checked.ok }));
}

/**
 * Checks the org's stored key again with one read-only call and records the answer; a provider
 * that needs no key has nothing to check. 404 when the org holds no key for it.
 */
export async function reverifyProviderKey(env: Env, db: Db, orgId: string, name: string, now: number): Promise<void> {
  if (!providerSetup(name).needsKey) return;
  const credentials = await providerCredentials(db, env, orgId, name);
  if (!credentials) {
    if (!(await providerKeyRow(db, orgId, name))) throw noKeyFor(name);
    // Stored under another master key: it can never be used again.
    await recordVerification(db, orgId, name, false, "the stored key cannot be decrypted with this installation's LESSOR_MASTER_KEY; PUT it again", now);
    forgetUsableProviders(orgId);
    return;
  }
  const checked = await verifyKey(env, name, credentials);
  await recordVerification(db, orgId, name, checked.ok ? true : checked.refused ? false : null, checked.ok ? null : checked.error, now);
  forgetUsableProviders(orgId);
}

/** Forgets the org's key for a provider, unless live leases there still need it. 404 when it holds none. */
export async function forgetProviderKey(db: Db, orgId: string, name: string): Promise<void> {
  if (!(await providerKeyRow(db, orgId, name))) throw noKeyFor(name);
  await assertNotInUse(db, orgId, name);
  await deleteProviderKey(db, orgId, name);
  forgetUsableProviders(orgId);
  console.log(JSON.stringify({ msg: "provider key deleted", org_id: orgId, provider: name }));
}
