/**
 * The lease token: what a lease's machine agent authenticates with (docs/agent.md "The token").
 * `lsl_` + base62 of 32 random bytes (43 characters), made for one lease's machine; the lease's
 * object keeps only its SHA-256 (guarantee 9), so the plaintext exists only in the answer of the
 * mint and on the machine.
 */
import { hexEquals, randomBase62, sha256Hex } from "../ids";

export const LEASE_TOKEN_PREFIX = "lsl_";
const SECRET_BYTES = 32;
const SECRET_CHARS = Math.ceil((SECRET_BYTES * 8) / Math.log2(62));
export const LEASE_TOKEN_FORMAT = new RegExp(`^${LEASE_TOKEN_PREFIX}[0-9A-Za-z]{${SECRET_CHARS}}$`);

/** A fresh token; the caller stores `hashLeaseToken(token)` and hands the token to the machine. */
export function mintLeaseToken(): string {
  return LEASE_TOKEN_PREFIX + randomBase62(SECRET_BYTES);
}

export const looksLikeLeaseToken = (token: string) => LEASE_TOKEN_FORMAT.test(token);

export const hashLeaseToken = (token: string): Promise<string> => sha256Hex(token);

/**
 * Whether `presented` is the token whose hash is `storedHash`. The comparison takes the same time
 * wherever the hashes differ; a malformed token is refused before anything is hashed.
 */
export async function verifyLeaseToken(presented: string, storedHash: string | null): Promise<boolean> {
  if (storedHash === null || !looksLikeLeaseToken(presented)) return false;
  return hexEquals(await hashLeaseToken(presented), storedHash);
}
