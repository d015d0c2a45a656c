/**
 * Identifiers and secrets. Ids are a prefix plus a time-ordered body, so sorting by id sorts by
 * creation time and cursors stay stable (STYLE.md rule 12). Secrets are base62 of 32 random bytes.
 */
const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export type IdPrefix = "org" | "key" | "iss" | "qt" | "ls" | "ev" | "req" | "rc" | "cmd" | "wh" | "dlv" | "dp" | "upl" | "mpu" | "obj" | "vol";

/** The 10 characters of millisecond time an id begins with after its prefix. */
function timePart(at: number): string {
  let time = "";
  let t = Math.max(0, Math.floor(at));
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return time;
}

/**
 * The least id of `prefix` made at or after `at`: every such id sorts at or above it, every one
 * made before below it. A count of an org's rows made since `at` is then a range of its
 * `(org_id, id)` index, with no index on their time (src/db/creation-caps.ts).
 */
export function idFloor(prefix: IdPrefix, at: number): string {
  return `${prefix}_${timePart(at)}`;
}

/** `prefix_` + 10 chars of millisecond time + 16 random chars, all lower-case base32. */
export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  const time = timePart(now);
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let rand = "";
  for (const b of bytes) rand += CROCKFORD[b % 32];
  return `${prefix}_${time}${rand}`;
}

/** Base62 of `bytes` random bytes, by repeated division of the big-endian number. */
export function randomBase62(bytes: number): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  let n = 0n;
  for (const b of buf) n = (n << 8n) | BigInt(b);
  const digits = Math.ceil((bytes * 8) / Math.log2(62));
  let out = "";
  for (let i = 0; i < digits; i++) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

/** Lower-case hex of `bytes`. */
export function toHex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export async function sha256Hex(text: string): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))));
}

/** Compares two secrets in time independent of where they differ, by comparing their hashes. */
export async function secretEquals(a: string, b: string): Promise<boolean> {
  const [ha, hb] = await Promise.all([sha256Hex(a), sha256Hex(b)]);
  return hexEquals(ha, hb);
}

/** Constant-time equality of two hex digests (different lengths are simply unequal). */
export function hexEquals(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
