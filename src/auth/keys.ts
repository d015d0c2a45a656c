/**
 * API keys: `lsr_` + base62 of 32 random bytes. The secret is shown once, at creation; D1 holds
 * only its SHA-256 (guarantee 9) and a short prefix for people to recognise it by.
 */
import { newId, randomBase62, sha256Hex } from "../ids";
import type { Db } from "../db";
import type { ApiKeyRow } from "../db/schema";
import type { Principal, Scope } from "./principal";

export const KEY_PREFIX = "lsr_";
const SECRET_BYTES = 32;
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

/** The principal of a presented key, or null when it is unknown or revoked. */
export async function authenticateKey(db: Db, secret: string): Promise<Principal | null> {
  const hash = await sha256Hex(secret);
  const row = await db
    .selectFrom("api_keys")
    .select(["id", "org_id", "scope"])
    .where("hash", "=", hash)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return row ? { org_id: row.org_id, scope: row.scope, kind: "api_key", subject: row.id } : null;
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
