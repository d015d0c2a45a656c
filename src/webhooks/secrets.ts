/**
 * Webhook signing secrets and signatures (Standard Webhooks 1.0).
 *
 * A secret is `whsec_` + base64 of 24 random bytes, shown once (at creation and at a rotation).
 * It is stored encrypted exactly as an org's provider keys are (src/providers/credentials.ts:
 * AES-256-GCM under LESSOR_MASTER_KEY), bound to its endpoint by the additional data
 * `<org id>/webhook:<endpoint id>`, so a ciphertext copied to another endpoint does not open.
 * The signature is `v1,` + base64 HMAC-SHA256, keyed by the secret's bytes, over
 * `<webhook-id>.<webhook-timestamp>.<body>`; during a rotation every secret still valid signs, and
 * the header carries each signature separated by a space.
 */
import { decryptProviderKey, encryptProviderKey } from "../providers/credentials";
import type { Env } from "../env";

export const SECRET_PREFIX = "whsec_";
const SECRET_BYTES = 24;

export const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

/**
 * The isolate's imported HMAC keys, by their bytes: a delivery signs (and the sim's is verified)
 * with the same few keys over and over, and importing one costs more than the signature. Bounded:
 * past HMAC_KEYS_MAX the map starts again. Non-extractable keys, in this isolate's memory only.
 */
const hmacKeys = new Map<string, Promise<CryptoKey>>();
const HMAC_KEYS_MAX = 256;

function hmacKey(key: Uint8Array): Promise<CryptoKey> {
  const id = base64(key);
  let k = hmacKeys.get(id);
  if (!k) {
    if (hmacKeys.size >= HMAC_KEYS_MAX) hmacKeys.clear();
    k = crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    // A failed import is not kept.
    k.catch(() => hmacKeys.delete(id));
    hmacKeys.set(id, k);
  }
  return k;
}

/** HMAC-SHA256 of `message` (UTF-8) under `key`. */
export async function hmacSha256(key: Uint8Array, message: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(key), new TextEncoder().encode(message)));
}

export function newSecret(): string {
  return SECRET_PREFIX + base64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
}

const slot = (endpointId: string) => `webhook:${endpointId}`;

export const sealSecret = (env: Pick<Env, "LESSOR_MASTER_KEY">, orgId: string, endpointId: string, secret: string) =>
  encryptProviderKey(env, orgId, slot(endpointId), secret);

export const openSecret = (env: Pick<Env, "LESSOR_MASTER_KEY">, orgId: string, endpointId: string, sealed: string) =>
  decryptProviderKey(env, orgId, slot(endpointId), sealed);

/** `v1,<base64>` for one secret. */
export async function sign(secret: string, msgId: string, timestamp: number, body: string): Promise<string> {
  const raw = Uint8Array.from(atob(secret.slice(SECRET_PREFIX.length)), (c) => c.charCodeAt(0));
  return `v1,${base64(await hmacSha256(raw, `${msgId}.${timestamp}.${body}`))}`;
}

/** The three Standard Webhooks headers for one attempt; `timestamp` in seconds. */
export async function signedHeaders(secrets: string[], msgId: string, timestamp: number, body: string): Promise<Record<string, string>> {
  const signatures = await Promise.all(secrets.map((s) => sign(s, msgId, timestamp, body)));
  return { "webhook-id": msgId, "webhook-timestamp": String(timestamp), "webhook-signature": signatures.join(" ") };
}
