/**
 * A simulated machine's files (docs/sim.md "Data in and out"): how much of a workdir bundle its
 * disk holds, and the bytes its `write` statements make. Pure: no I/O and no clock (STYLE.md rule
 * 1); cloud.ts fetches, stores and uploads.
 */
import type { TarLimits } from "./tar";

/**
 * The sim's machine keeps its workdir in the sim object's SQLite, one row a file, and a row holds
 * at most 2 MB: a file of the workdir is at most 1 MiB, all of them 16 MiB, in at most 1,000
 * entries. A bundle past any of them is not unpacked: the run fails, as on a full disk.
 */
export const SIM_WORKDIR_LIMITS: TarLimits = { entries: 1_000, bytes: 16 * 1024 * 1024, file_bytes: 1024 * 1024 };

/** A workdir whose digest does not match is fetched again; after this many tries the run fails (agent.sh's five). */
export const SIM_WORKDIR_TRIES = 5;

/** The exit code of a run whose workdir could not be had (agent.sh's `die`). */
export const SIM_WORKDIR_FAILED_CODE = 2;

/** FNV-1a over the seed's UTF-8: the 32-bit key of a file's content. */
function seedKey(seed: string): number {
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(seed)) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h;
}

/** MurmurHash3's finalizer: a 32-bit mix good enough that the bytes neither repeat nor compress. */
function mix(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/**
 * Bytes `offset` to `offset + length` of the file a `write PATH SIZE SEED` makes. The content is
 * a pure function of the seed and the offset, so any part is made without the parts before it and
 * a test makes the same bytes to compare: word `k` (bytes 4k to 4k+3, little-endian) is
 * `mix(key(seed) + k * 0x9e3779b9)`, `key` FNV-1a 32 of the seed's UTF-8, `mix` MurmurHash3's
 * 32-bit finalizer.
 */
export function simFileBytes(seed: string, offset: number, length: number): Uint8Array {
  const key = seedKey(seed);
  const first = Math.floor(offset / 4);
  const words = Math.ceil((offset + length) / 4) - first;
  const buf = new Uint8Array(words * 4);
  const view = new DataView(buf.buffer);
  // k * golden ratio modulo 2^32, with k above 2^32 for files past 16 GiB (never: writes stop at 1 GiB).
  for (let i = 0; i < words; i++) view.setUint32(i * 4, mix((key + Math.imul(first + i, 0x9e3779b9)) >>> 0), true);
  const skip = offset - first * 4;
  return buf.subarray(skip, skip + length);
}
