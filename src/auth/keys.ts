/**
 * API keys: `lsr_` + base62 of 32 random bytes. The secret is shown once, at creation; D1 holds
 * only its SHA-256 (guarantee 9) and a short prefix for people to recognise it by.
 *
 * A presented key is checked, and its budget taken, by the key's own object (key-object.ts),
 * named by the secret's hash; revocation goes through that object too.
 *
 * An unknown key never creates storage anywhere. Every object a name reaches is
 * created (with its storage) on first call, so a guessed secret must not reach one: a hash this
 * isolate has not seen admitted is first looked up in D1, and only a key that exists and is not
 * revoked goes on to its object. A known key still costs one call (the hash is remembered).
 */
import { database, type Db } from "../db";
import type { ApiKeyRow } from "../db/schema";
import type { Env } from "../env";
import { newId, randomBase62, sha256Hex } from "../ids";
import type { Admission } from "./key-object";
import type { Scope } from "./principal";

export const KEY_PREFIX = "lsr_";
const SECRET_BYTES = 32;
/** What mintKey makes: the prefix and base62 digits enough for SECRET_BYTES (43). */
const KEY_FORMAT = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${Math.ceil((SECRET_BYTES * 8) / Math.log2(62))}}$`);
/** `lsr_` and the first 6 characters of the secret. */
const DISPLAY_PREFIX_LENGTH = KEY_PREFIX.length + 6;

export interface NewKey {
  row: ApiKeyRow;
  secret: string;
}

export async function mintKey(orgId: string, name: string, scope: Scope, now: number): Promise<NewKey> {
  const secret = KEY_PREFIX + randomBase62(SECRET_BYTES);
  const row: ApiKeyRow = {
    id: newId("key", now),
    org_id: orgId,
    name,
    prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH),
    hash: await sha256Hex(secret),
    scope,
    created_at: now,
    revoked_at: null,
  };
  return { row, secret };
}

function keyObject(env: Env, hash: string) {
  return env.API_KEY.get(env.API_KEY.idFromName(hash));
}

/**
 * The principal of a presented key with one unit of its budget taken, or null when the key is
 * malformed, unknown or revoked. One call to the key's object; no D1 read while it remembers the
 * key.
 */
export async function admitKey(env: Env, secret: string, limit: number): Promise<Admission | null> {
  if (!KEY_FORMAT.test(secret)) return null;
  const hash = await sha256Hex(secret);
  if (!seenKeys.has(hash)) {
    const row = await database(env.DB).selectFrom("api_keys").select("revoked_at").where("hash", "=", hash).executeTakeFirst();
    if (!row || row.revoked_at !== null) return null;
  }
  const admission = await keyObject(env, hash).admit(hash, limit);
  if (admission) rememberSeen(hash);
  return admission;
}

/**
 * Hashes of keys this isolate has seen admitted: their objects exist already, so they skip the D1
 * look-up. Whether a key is still valid is its object's answer, never this set's. Bounded: when
 * full it starts again, which costs one D1 read per key.
 */
const seenKeys = new Set<string>();
const SEEN_KEYS_MAX = 10_000;

function rememberSeen(hash: string) {
  if (seenKeys.size >= SEEN_KEYS_MAX) seenKeys.clear();
  seenKeys.add(hash);
}

/**
 * Revokes one of an org's keys through its object (so that the object, which remembers the key,
 * refuses it from its next request on) and answers the key as it now is; null when the org has no
 * such key. Revoking a revoked key changes nothing.
 */
export async function revokeKey(env: Env, orgId: string, id: string, now: number): Promise<ApiKeyRow | null> {
  const db = database(env.DB);
  const owned = () => db.selectFrom("api_keys").selectAll().where("id", "=", id).where("org_id", "=", orgId).executeTakeFirst();
  const row = await owned();
  if (!row) return null;
  if (row.revoked_at !== null) return row;
  await keyObject(env, row.hash).revoke(row.hash, now);
  return (await owned()) ?? null;
}

/** The row of a key by its hash, revoked or not (for the key's object only). */
export async function loadKeyRow(db: Db, hash: string) {
  return db.selectFrom("api_keys").select(["id", "org_id", "scope", "revoked_at"]).where("hash", "=", hash).executeTakeFirst();
}

/** Marks a key revoked in D1 (for the key's object only: revokeKey goes through it). */
export async function revokeKeyRow(db: Db, hash: string, now: number): Promise<void> {
  await db.updateTable("api_keys").set({ revoked_at: now }).where("hash", "=", hash).where("revoked_at", "is", null).execute();
}

export function renderKey(row: ApiKeyRow) {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scope: row.scope,
    created_at: new Date(row.created_at).toISOString(),
    revoked_at: row.revoked_at === null ? null : new Date(row.revoked_at).toISOString(),
  };
}
