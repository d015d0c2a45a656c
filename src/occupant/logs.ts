/**
 * The rules of a lease's log, as pure functions (docs/agent.md "Logs"): the agent ships its
 * command's output in numbered chunks; a chunk whose number was seen before is stored once, and
 * the log keeps at most LOG_CAP_BYTES (and LOG_MAX_CHUNKS chunks), dropping the oldest chunks
 * and counting the bytes it dropped, which a reader sees as one marker line.
 */
import { MAX_BODY_BYTES } from "../body-limit";

/** At most this much in one chunk: the body limit of every request, which answers the 413. */
export const LOG_CHUNK_MAX_BYTES = MAX_BODY_BYTES;
/** What one lease's log keeps. */
export const LOG_CAP_BYTES = 16 * 1024 * 1024;
/** A log of tiny chunks costs a row each: past this many the oldest are dropped too. */
export const LOG_MAX_CHUNKS = 262_144;
/** The largest sequence number a chunk may carry (what SQLite and JSON hold exactly). */
export const LOG_SEQ_MAX = Number.MAX_SAFE_INTEGER;

export interface LogLedger {
  /** Bytes stored now. */
  bytes: number;
  /** Chunks stored now. */
  chunks: number;
  /** The highest sequence number dropped so far; -1 when none was. */
  dropped_through: number;
  /** Whether a chunk with this sequence number is stored now. */
  has_seq: boolean;
}

export type AppendPlan =
  | { duplicate: true }
  /** Store the chunk, then drop the oldest chunks until `excess_bytes` and `excess_chunks` are covered. */
  | { duplicate: false; excess_bytes: number; excess_chunks: number };

/** Whether a chunk of `bytes` with sequence number `seq` is new, and how much must go to keep it. */
export function planAppend(ledger: LogLedger, seq: number, bytes: number, cap = LOG_CAP_BYTES, maxChunks = LOG_MAX_CHUNKS): AppendPlan {
  // A number at or below one already dropped was stored once: a retry of it must not come back.
  if (ledger.has_seq || seq <= ledger.dropped_through) return { duplicate: true };
  return {
    duplicate: false,
    excess_bytes: Math.max(0, ledger.bytes + bytes - cap),
    excess_chunks: Math.max(0, ledger.chunks + 1 - maxChunks),
  };
}

export interface StoredChunk {
  seq: number;
  bytes: number;
}

/**
 * The chunks to drop, oldest first from `oldest` (sorted by seq), until at least `excessBytes`
 * bytes and `excessChunks` chunks are gone.
 */
export function chunksToDrop(oldest: Iterable<StoredChunk>, excessBytes: number, excessChunks: number): StoredChunk[] {
  const drop: StoredChunk[] = [];
  let bytes = 0;
  if (excessBytes <= 0 && excessChunks <= 0) return drop;
  for (const c of oldest) {
    drop.push(c);
    bytes += c.bytes;
    if (bytes >= excessBytes && drop.length >= excessChunks) break;
  }
  return drop;
}

/** The line a reader sees first when the log has dropped output. */
export function droppedMarker(droppedBytes: number): string {
  return `[lessor: ${droppedBytes} bytes of earlier output were dropped to keep this log within ${LOG_CAP_BYTES} bytes]\n`;
}

/** The most lines `?tail=` may ask for (a whole log of one-byte lines has fewer than this). */
export const TAIL_MAX_LINES = LOG_CAP_BYTES;

/** How many newline bytes `bytes` holds. */
export function newlines(bytes: Uint8Array): number {
  let n = 0;
  for (const b of bytes) if (b === 0x0a) n++;
  return n;
}

/**
 * The last `n` lines of `text`: a final newline ends the last line rather than beginning an empty
 * one, and is kept. `n` at or above the number of lines answers the whole text.
 */
export function tailLines(text: string, n: number): string {
  if (n <= 0) return "";
  const ended = text.endsWith("\n");
  const lines = (ended ? text.slice(0, -1) : text).split("\n");
  if (lines.length <= n) return text;
  return lines.slice(-n).join("\n") + (ended ? "\n" : "");
}

/** A lease's log (and its execs) is kept this long after the lease is released, then deleted. */
export const LOG_RETENTION_MS = 7 * 24 * 3_600_000;

/** When a lease's log is to be deleted: LOG_RETENTION_MS after its release; null while it is live. */
export function logsExpireAt(l: { state: string; released_at: number | null }): number | null {
  return l.state === "released" && l.released_at !== null ? l.released_at + LOG_RETENTION_MS : null;
}
