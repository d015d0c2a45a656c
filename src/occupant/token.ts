/**
 * The lease token: what a lease's machine agent authenticates with (docs/agent.md "The token").
 * `lsl_` + base62 of 32 random bytes (43 characters), made for one lease's machine; the lease's
 * object keeps only its SHA-256 (guarantee 9), so the plaintext exists only in the answer of the
 * mint and on the machine.
 *
 * A create does not carry it: the provider keeps what a create carries where anyone with the
 * account's key can read it (docs/security.md). It carries an enrollment token, `lse_` and the same
 * form, which the agent exchanges for the lease token on its first call (`mayEnroll`).
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

export const ENROLL_TOKEN_PREFIX = "lse_";
const ENROLL_TOKEN_FORMAT = new RegExp(`^${ENROLL_TOKEN_PREFIX}[0-9A-Za-z]{${SECRET_CHARS}}$`);

/** A fresh enrollment token for a machine's create; the object keeps `hashLeaseToken(token)`. */
export function mintEnrollToken(): string {
  return ENROLL_TOKEN_PREFIX + randomBase62(SECRET_BYTES);
}

export const looksLikeEnrollToken = (token: string) => ENROLL_TOKEN_FORMAT.test(token);

/** The agent's own secret for its enrollment, made on the machine (agent.sh: 43 base62 characters). */
export const ENROLL_NONCE = /^[0-9A-Za-z]{32,128}$/;

/**
 * How long after lessor creates or starts a machine its enrollment stays open, beyond the lease's
 * `boot_timeout`: the agent enrolls as soon as the machine runs, and a machine that has not booted
 * by then is replaced anyway.
 */
export const ENROLL_GRACE_MS = 10 * 60_000;

export const enrollOpenUntil = (bootTimeoutMs: number, now: number) => now + bootTimeoutMs + ENROLL_GRACE_MS;

/** A machine's enrollment as the lease's object keeps it (hashes only). */
export interface Enrollment {
  enroll_hash: string | null;
  /** Until when an agent may enroll without a nonce seen before; null: closed. */
  enroll_open_until: number | null;
  /** The nonce the agent of this session enrolled with. */
  enroll_nonce_hash: string | null;
}

/**
 * Whether an agent presenting an enrollment token whose hash is `tokenHash`, with a nonce whose
 * hash is `nonceHash`, gets a lease token now: the token is the machine's, and either the
 * enrollment is open (lessor created or started the machine within its window and no agent has
 * enrolled since) or the nonce is the one this session's agent enrolled with (its answer was lost,
 * or it was started again on the same disk). A reader of the provider's records has the token but
 * never the nonce, which is made on the machine.
 */
export function mayEnroll(e: Enrollment, tokenHash: string, nonceHash: string, now: number): boolean {
  if (e.enroll_hash === null || !hexEquals(tokenHash, e.enroll_hash)) return false;
  const open = e.enroll_open_until !== null && now < e.enroll_open_until;
  return open || (e.enroll_nonce_hash !== null && hexEquals(nonceHash, e.enroll_nonce_hash));
}
