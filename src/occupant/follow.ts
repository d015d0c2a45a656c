/**
 * Following a lease's log as Server-Sent Events (docs/agent.md "Following the log"). The lease's
 * object holds every open follow as a stream it pushes to: a chunk the agent posts is sent to each
 * follower that has caught up, at once, with no polling. A follower that starts behind (a resume,
 * or the whole log) or falls behind (a slow reader) is fed from storage as it reads, in batches,
 * and joins the pushed ones when it has caught up, so a slow reader holds at most a batch in memory
 * and is never cut off. One timer for all of them sends the keep-alive comment.
 */
import { droppedMarker } from "./logs";
import type { AgentExit } from "./occupant";

/** A comment is sent to every follower this often, so proxies keep the connection open. */
export const KEEPALIVE_MS = 15_000;
/** A follow or an exec counts as the lease's use at most this often (each is a write of the lease). */
export const USE_EVERY_MS = 5_000;
/** What one follower may have queued and unread before it is fed from storage instead. */
export const FOLLOWER_QUEUE_BYTES = 1024 * 1024;
/** How much of the stored log one read from storage takes for a follower behind. */
export const FOLLOW_BATCH_BYTES = 1024 * 1024;

/** Why a follow ends: the command exited, or the lease was released. */
export type FollowEnd = { reason: "exited"; exit: AgentExit } | { reason: "released" };

export interface StoredLogChunk {
  seq: number;
  data: Uint8Array;
}

/** What the followers read from the lease's storage. */
export interface FollowSource {
  /** Chunks after `after` in order, at least one if there is any, about `maxBytes` in all. */
  chunksAfter(after: number, maxBytes: number): StoredLogChunk[];
  /** The highest sequence number dropped (-1: none) and the bytes dropped so far. */
  dropped(): { through: number; bytes: number };
  /** Why the follow ends now, or null while it goes on. */
  ended(): FollowEnd | null;
}

const encoder = new TextEncoder();

/** One event: `data:` lines of `text` (SSE splits data at CR, LF and CRLF; each becomes one line). */
export function sseEvent(fields: { id?: number; event?: string }, text: string): string {
  let out = "";
  if (fields.event !== undefined) out += `event: ${fields.event}\n`;
  if (fields.id !== undefined) out += `id: ${fields.id}\n`;
  for (const line of text.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return out + "\n";
}

export const KEEPALIVE_COMMENT = ": keep-alive\n\n";

export function endEvent(end: FollowEnd): string {
  return sseEvent({ event: "end" }, JSON.stringify(end));
}

class Follower {
  /** The last chunk sent (or that the client had: its Last-Event-ID); -1: none. */
  cursor: number;
  /** Caught up: pushed to as chunks arrive. Otherwise fed from storage as it reads. */
  live = false;
  done = false;
  decoder = new TextDecoder();
  readonly controller: ReadableStreamDefaultController<Uint8Array>;

  constructor(controller: ReadableStreamDefaultController<Uint8Array>, cursor: number) {
    this.controller = controller;
    this.cursor = cursor;
  }

  send(text: string): void {
    this.controller.enqueue(encoder.encode(text));
  }

  chunk(seq: number, data: Uint8Array): void {
    this.cursor = seq;
    this.send(sseEvent({ id: seq }, this.decoder.decode(data, { stream: true })));
  }

  full(): boolean {
    return (this.controller.desiredSize ?? 0) <= 0;
  }

  finish(end: FollowEnd): void {
    if (this.done) return;
    this.done = true;
    this.send(endEvent(end));
    this.controller.close();
  }
}

export class Followers {
  readonly #source: FollowSource;
  readonly #onKeepalive: () => void;
  readonly #keepaliveMs: number;
  readonly #all = new Set<Follower>();
  #timer: ReturnType<typeof setInterval> | null = null;

  /** `onKeepalive` runs at each keep-alive while any follow is open (the lease's use is recorded there). */
  constructor(source: FollowSource, onKeepalive: () => void, keepaliveMs = KEEPALIVE_MS) {
    this.#source = source;
    this.#onKeepalive = onKeepalive;
    this.#keepaliveMs = keepaliveMs;
  }

  get size(): number {
    return this.#all.size;
  }

  /** A new follow from after `cursor` (-1: the whole log, with the marker when output was dropped). */
  open(cursor: number): ReadableStream<Uint8Array> {
    let follower!: Follower;
    return new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          follower = new Follower(controller, cursor);
          this.#all.add(follower);
          this.#tick();
        },
        pull: () => this.#catchUp(follower),
        cancel: () => this.#drop(follower),
      },
      { highWaterMark: FOLLOWER_QUEUE_BYTES, size: (chunk) => chunk.byteLength },
    );
  }

  /** A chunk the agent posted: sent to every follower caught up; the others read it from storage. */
  chunk(seq: number, data: Uint8Array): void {
    for (const f of this.#all) {
      if (!f.live || seq <= f.cursor) continue;
      if (f.full()) {
        f.live = false;
        continue;
      }
      this.#guard(f, () => f.chunk(seq, data));
    }
  }

  /** The command exited or the lease was released: every follower caught up ends now, the others when they catch up. */
  end(): void {
    const end = this.#source.ended();
    if (!end) return;
    for (const f of [...this.#all]) {
      if (!f.live) continue;
      this.#guard(f, () => f.finish(end));
      this.#drop(f);
    }
  }

  /** Feeds a follower behind from storage, one batch per read; caught up, it is pushed to. */
  #catchUp(f: Follower): void {
    if (f.done || f.live) return;
    const dropped = this.#source.dropped();
    if (f.cursor < dropped.through) {
      // What it had not read is gone: one marker, then the oldest chunk kept.
      f.send(sseEvent({ event: "dropped" }, droppedMarker(dropped.bytes).trimEnd()));
      f.cursor = dropped.through;
      f.decoder = new TextDecoder();
    }
    const batch = this.#source.chunksAfter(f.cursor, FOLLOW_BATCH_BYTES);
    for (const c of batch) f.chunk(c.seq, c.data);
    if (batch.length > 0) return;
    f.live = true;
    const end = this.#source.ended();
    if (end) {
      f.finish(end);
      this.#drop(f);
    }
  }

  /** Sends to one follower; a stream its reader has gone from is dropped, never an error for the others. */
  #guard(f: Follower, send: () => void): void {
    try {
      send();
    } catch {
      this.#drop(f);
    }
  }

  #drop(f: Follower): void {
    f.done = true;
    this.#all.delete(f);
    if (this.#all.size === 0 && this.#timer !== null) {
      clearInterval(this.#timer);
      this.#timer = null;
    }
  }

  /** Starts the one keep-alive timer when the first follow opens. */
  #tick(): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => {
      for (const f of [...this.#all]) this.#guard(f, () => f.send(KEEPALIVE_COMMENT));
      if (this.#all.size > 0) this.#onKeepalive();
    }, this.#keepaliveMs);
  }
}
