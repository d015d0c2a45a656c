/**
 * Each org's own provider keys (guarantee 9): encrypted with AES-256-GCM before they reach D1,
 * decrypted only in memory, for the one call that needs them. They are never returned, logged
 * or put in an event.
 *
 * The AES key is derived with HKDF-SHA256 from the Worker secret LESSOR_MASTER_KEY, so the secret
 * can be any long random string. Each ciphertext is bound to its row by the AES-GCM additional
 * data "<org_id>/<provider>": a ciphertext copied to another org or provider fails to decrypt.
 * Rotating LESSOR_MASTER_KEY makes every stored key unreadable: they must be PUT again.
 */
import { base64url } from "jose";
import type { Db } from "../db";
import type { Selectable } from "kysely";
import type { ProviderKeysTable } from "../db/schema";
import type { Env } from "../env";
import { ApiError } from "../errors";

/** The shortest LESSOR_MASTER_KEY accepted: 32 characters, as `openssl rand -base64 32` gives 44. */
export const MASTER_KEY_MIN_LENGTH = 32;
const FORMAT = "v1";
const HKDF_INFO = new TextEncoder().encode("lessor provider keys v1");
const IV_BYTES = 12;

/** What an adapter is constructed with: the key, and the org's settings that are not secret. */
export interface ProviderCredentials {
  api_key: string;
  options: Record<string, string>;
}

export function masterKeyConfigured(env: Pick<Env, "LESSOR_MASTER_KEY">): boolean {
  return (env.LESSOR_MASTER_KEY ?? "").length >= MASTER_KEY_MIN_LENGTH;
}

export const masterKeyMissing = () =>
  new ApiError(
    503,
    "provider_keys_disabled",
    `this installation cannot store provider keys: set the Worker secret LESSOR_MASTER_KEY (at least ${MASTER_KEY_MIN_LENGTH} characters)`,
    {},
    {},
    true, // shown: it names a setting, never its value
  );

let derived: { secret: string; key: Promise<CryptoKey> } | null = null;

function aesKey(secret: string): Promise<CryptoKey> {
  if (derived?.secret !== secret) {
    const key = (async () => {
      const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), "HKDF", false, ["deriveKey"]);
      return crypto.subtle.deriveKey(
        { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(32), info: HKDF_INFO },
        material,
        { name: "AES-GCM", length: 256 },
        false,
        ["encrypt", "decrypt"],
      );
    })();
    derived = { secret, key };
  }
  return derived.key;
}

function masterSecret(env: Pick<Env, "LESSOR_MASTER_KEY">): string {
  if (!masterKeyConfigured(env)) throw masterKeyMissing();
  return env.LESSOR_MASTER_KEY!;
}

/**
 * `secret` sealed with AES-256-GCM under the master key, bound to `boundTo` (its additional data):
 * a ciphertext copied to another row fails to open. Provider keys are bound to "<org_id>/<provider>";
 * other secrets (a deployment's api_key) to a name that begins with their kind, so no two meet.
 */
export async function sealSecret(env: Pick<Env, "LESSOR_MASTER_KEY">, boundTo: string, secret: string): Promise<string> {
  const key = await aesKey(masterSecret(env));
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: new TextEncoder().encode(boundTo) }, key, new TextEncoder().encode(secret));
  return `${FORMAT}.${base64url.encode(iv)}.${base64url.encode(new Uint8Array(sealed))}`;
}

/** The secret in the clear, or null when the ciphertext does not open (another master key, another row). */
export async function openSecret(env: Pick<Env, "LESSOR_MASTER_KEY">, boundTo: string, ciphertext: string): Promise<string | null> {
  const [format, iv, sealed] = ciphertext.split(".");
  if (format !== FORMAT || !iv || !sealed) return null;
  try {
    const key = await aesKey(masterSecret(env));
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: base64url.decode(iv), additionalData: new TextEncoder().encode(boundTo) }, key, base64url.decode(sealed));
    return new TextDecoder().decode(plain);
  } catch (e) {
    if (e instanceof ApiError) throw e;
    return null;
  }
}

export function encryptProviderKey(env: Pick<Env, "LESSOR_MASTER_KEY">, orgId: string, provider: string, apiKey: string): Promise<string> {
  return sealSecret(env, `${orgId}/${provider}`, apiKey);
}

/** The key in the clear, or null when the ciphertext does not open (another master key, another row). */
export function decryptProviderKey(env: Pick<Env, "LESSOR_MASTER_KEY">, orgId: string, provider: string, ciphertext: string): Promise<string | null> {
  return openSecret(env, `${orgId}/${provider}`, ciphertext);
}

export type ProviderKeyRow = Selectable<ProviderKeysTable>;

export async function storeProviderKey(
  db: Db,
  env: Pick<Env, "LESSOR_MASTER_KEY">,
  orgId: string,
  provider: string,
  credentials: ProviderCredentials,
  now: number,
): Promise<void> {
  const ciphertext = await encryptProviderKey(env, orgId, provider, credentials.api_key);
  const options = JSON.stringify(credentials.options);
  await db
    .insertInto("provider_keys")
    .values({ org_id: orgId, provider, ciphertext, options, created_at: now, updated_at: now, verified_at: null, verified_ok: null, verify_error: null })
    .onConflict((oc) =>
      oc.columns(["org_id", "provider"]).doUpdateSet({ ciphertext, options, updated_at: now, verified_at: null, verified_ok: null, verify_error: null }),
    )
    .execute();
}

/** `ok`: true (it worked), false (the provider refused), null (no answer: says nothing of the key). */
export async function recordVerification(db: Db, orgId: string, provider: string, ok: boolean | null, error: string | null, now: number): Promise<void> {
  await db
    .updateTable("provider_keys")
    .set({ verified_at: now, verified_ok: ok === null ? null : ok ? 1 : 0, verify_error: error })
    .where("org_id", "=", orgId)
    .where("provider", "=", provider)
    .execute();
}

export async function deleteProviderKey(db: Db, orgId: string, provider: string): Promise<void> {
  await db.deleteFrom("provider_keys").where("org_id", "=", orgId).where("provider", "=", provider).execute();
}

/** The org's key rows (no key in the clear), by provider name. */
export async function providerKeyRows(db: Db, orgId: string): Promise<Map<string, ProviderKeyRow>> {
  const rows = await db.selectFrom("provider_keys").selectAll().where("org_id", "=", orgId).execute();
  return new Map(rows.map((r) => [r.provider, r as ProviderKeyRow]));
}

/** An org's credentials for a provider, decrypted; null when it has none (or they no longer open). */
export async function providerCredentials(db: Db, env: Pick<Env, "LESSOR_MASTER_KEY">, orgId: string, provider: string): Promise<ProviderCredentials | null> {
  const row = await db
    .selectFrom("provider_keys")
    .select(["ciphertext", "options"])
    .where("org_id", "=", orgId)
    .where("provider", "=", provider)
    .executeTakeFirst();
  if (!row || !masterKeyConfigured(env)) return null;
  const apiKey = await decryptProviderKey(env, orgId, provider, row.ciphertext);
  if (apiKey === null) return null;
  return { api_key: apiKey, options: storedOptions(row.options) };
}

/**
 * Every org's credentials for `provider`, most recently verified working first, read in one
 * query; a key that no longer opens (another master key) is left out.
 */
export async function keyHolders(db: Db, env: Pick<Env, "LESSOR_MASTER_KEY">, provider: string): Promise<Array<{ org_id: string; credentials: ProviderCredentials }>> {
  if (!masterKeyConfigured(env)) return [];
  const rows = await db
    .selectFrom("provider_keys")
    .select(["org_id", "ciphertext", "options"])
    .where("provider", "=", provider)
    .orderBy("verified_ok", "desc")
    .orderBy("verified_at", "desc")
    .orderBy("org_id")
    .execute();
  const out: Array<{ org_id: string; credentials: ProviderCredentials }> = [];
  for (const row of rows) {
    const apiKey = await decryptProviderKey(env, row.org_id, provider, row.ciphertext);
    if (apiKey !== null) out.push({ org_id: row.org_id, credentials: { api_key: apiKey, options: storedOptions(row.options) } });
  }
  return out;
}

/**
 * The keys a market refresh may read `provider`'s offers with (docs/design.md "Markets"), in the order to
 * try them: those whose last verification worked, most recently verified first, then those never
 * answered; keys the provider refused are left out. At most `limit` rows are read and opened.
 */
export async function marketKeys(db: Db, env: Pick<Env, "LESSOR_MASTER_KEY">, provider: string, limit: number): Promise<ProviderCredentials[]> {
  if (!masterKeyConfigured(env)) return [];
  const rows = await db
    .selectFrom("provider_keys")
    .select(["org_id", "ciphertext", "options"])
    .where("provider", "=", provider)
    .where((eb) => eb.or([eb("verified_ok", "=", 1), eb("verified_ok", "is", null)]))
    // SQLite sorts NULL last in descending order: verified (1) before unanswered, newest first.
    .orderBy("verified_ok", "desc")
    .orderBy("verified_at", "desc")
    .orderBy("org_id")
    .limit(limit)
    .execute();
  const out: ProviderCredentials[] = [];
  for (const row of rows) {
    const apiKey = await decryptProviderKey(env, row.org_id, provider, row.ciphertext);
    if (apiKey !== null) out.push({ api_key: apiKey, options: storedOptions(row.options) });
  }
  return out;
}

/** The non-secret settings stored with a key (the `options` column), as strings only. */
export function storedOptions(text: string): Record<string, string> {
  try {
    const v = JSON.parse(text) as unknown;
    if (typeof v !== "object" || v === null || Array.isArray(v)) return {};
    return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string"));
  } catch {
    return {};
  }
}
