/**
 * Server-Sent Events (the WHATWG HTML "server-sent events" section): the frames lessor sends, and
 * the followers one Durable Object pushes them to. Every stream lessor answers is made here: a
 * lease's events, an org's event log and a lease's agent log (docs/events.md, docs/agent.md).
 *
 * A Durable Object holds its open streams in memory. Each follower has a cursor: the last item it
 * was sent (or its client's `Last-Event-ID`). A follower that has caught up is pushed each new item
 * the moment the object writes it; nothing polls. One that starts behind (a resume, or the whole
 * log) or falls behind (a reader slower than what arrives) is fed from storage as it reads, one
 * batch at a time, and is pushed to again once it has caught up: a slow reader holds at most about
 * FOLLOWER_QUEUE_BYTES and a batch in memory, and is never cut off. One timer for all of an
 * object's followers sends the keepalive comment.
 */

/** A keepalive comment goes to every open stream this often, so proxies keep it open. */
export const KEEPALIVE_MS = 15_000;
/** Where a client reconnects after a dropped stream (the `retry:` field), in milliseconds. */
export const RECONNECT_MS = 3_000;
/** What one follower may have queued and unread before it is fed from storage instead. */
export const FOLLOWER_QUEUE_BYTES = 1024 * 1024;

export const KEEPALIVE_COMMENT = ": keepalive\n\n";

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  // Tells nginx-like proxies not to buffer the stream.
  "x-accel-buffering": "no",
} as const;

const encoder = new TextEncoder();

/**
 * One event: `id:` (what a client resumes from), an optional `event:` name, and `text` as `data:`
 * lines (SSE splits data at CR, LF and CRLF; each becomes one line, and a reader gets LF back).
 */
export function sseFrame(fields: { id?: number; event?: string }, text: string): string {
  let out = "";
  if (fields.id !== undefined) out += `id: ${fields.id}\n`;
  if (fields.event !== undefined) out += `event: ${fields.event}\n`;
  for (const line of text.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return out + "\n";
}

/** What a stream's followers read from their object's storage. */
export interface FollowSource<T> {
  /**
   * The next batch after `cursor`, in order: at least one item when there is any, a bounded
   * amount in all. null: what comes after `cursor` is no longer kept, so the stream closes without
   * an end and the client's reconnect is told so (410).
   */
  itemsAfter(cursor: number): T[] | null;
  /** The cursor an item moves its follower to. */
  cursorOf(item: T): number;
  /** A new stream's way of writing an item as a frame (it may keep state across items, as a text decoder does). */
  writer(): (item: T) => string;
  /** The stream's last frame when it ends now (after everything stored), or null while it goes on. */
  ended(): string | null;
}

export interface FollowOptions {
  /** Runs at each keepalive while any stream is open. */
  onKeepalive?: () => void;
  keepaliveMs?: number;
}

class Follower<T> {
  /** Caught up: pushed to as items arrive. Otherwise fed from storage as it reads. */
  live = false;
  done = false;

  constructor(
    readonly controller: ReadableStreamDefaultController<Uint8Array>,
    /** The last item sent (or that the client had); what storage is read after. */
    public cursor: number,
    readonly write: (item: T) => string,
  ) {}

  send(text: string): void {
    this.controller.enqueue(encoder.encode(text));
  }

  item(cursor: number, item: T): void {
    this.cursor = cursor;
    this.send(this.write(item));
  }

  full(): boolean {
    return (this.controller.desiredSize ?? 0) <= 0;
  }

  /** Sends the end frame (none: the client reconnects) and closes. */
  close(end: string | null): void {
    if (this.done) return;
    this.done = true;
    if (end !== null) this.send(end);
    this.controller.close();
  }
}

/** The open streams of one object. */
export class Followers<T> {
  readonly #source: FollowSource<T>;
  readonly #onKeepalive: () => void;
  readonly #keepaliveMs: number;
  readonly #all = new Set<Follower<T>>();
  #timer: ReturnType<typeof setInterval> | null = null;

  constructor(source: FollowSource<T>, options: FollowOptions = {}) {
    this.#source = source;
    this.#onKeepalive = options.onKeepalive ?? (() => undefined);
    this.#keepaliveMs = options.keepaliveMs ?? KEEPALIVE_MS;
  }

  get size(): number {
    return this.#all.size;
  }

  /** A new stream of what comes after `cursor`: `retry:`, what storage holds, then what arrives, until the end. */
  open(cursor: number): ReadableStream<Uint8Array> {
    let follower!: Follower<T>;
    return new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          follower = new Follower(controller, cursor, this.#source.writer());
          follower.send(`retry: ${RECONNECT_MS}\n\n`);
          this.#all.add(follower);
          this.#arm();
        },
        pull: () => this.#catchUp(follower),
        cancel: () => this.#drop(follower),
      },
      { highWaterMark: FOLLOWER_QUEUE_BYTES, size: (chunk) => chunk.byteLength },
    );
  }

  /** A new item, as written: sent to every follower caught up; one whose queue is full reads it from storage later. */
  push(item: T): void {
    const cursor = this.#source.cursorOf(item);
    for (const f of this.#all) {
      if (!f.live || cursor <= f.cursor) continue;
      if (f.full()) {
        f.live = false;
        continue;
      }
      this.#guard(f, () => f.item(cursor, item));
    }
  }

  /** New items are in storage: every follower caught up is sent them, from one read per batch for all of them. */
  wake(): void {
    for (;;) {
      const live = [...this.#all].filter((f) => f.live);
      if (live.length === 0) return;
      const batch = this.#source.itemsAfter(Math.min(...live.map((f) => f.cursor)));
      if (batch === null || batch.length === 0) return;
      for (const item of batch) this.push(item);
    }
  }

  /** The stream ends now (the source says how): every follower caught up ends, the others when they catch up. */
  end(): void {
    const end = this.#source.ended();
    if (end === null) return;
    for (const f of [...this.#all]) {
      if (!f.live) continue;
      this.#guard(f, () => f.close(end));
      this.#drop(f);
    }
  }

  /** Feeds a follower behind from storage, one batch per read; caught up, it is pushed to. */
  #catchUp(f: Follower<T>): void {
    if (f.done || f.live) return;
    const batch = this.#source.itemsAfter(f.cursor);
    if (batch === null) {
      this.#guard(f, () => f.close(null));
      return this.#drop(f);
    }
    for (const item of batch) f.item(this.#source.cursorOf(item), item);
    if (batch.length > 0) return;
    f.live = true;
    const end = this.#source.ended();
    if (end !== null) {
      f.close(end);
      this.#drop(f);
    }
  }

  /** Sends to one follower; a stream its reader has gone from is dropped, never an error for the others. */
  #guard(f: Follower<T>, send: () => void): void {
    try {
      send();
    } catch {
      this.#drop(f);
    }
  }

  #drop(f: Follower<T>): void {
    f.done = true;
    this.#all.delete(f);
    if (this.#all.size === 0 && this.#timer !== null) {
      clearInterval(this.#timer);
      this.#timer = null;
    }
  }

  /** Starts the one keepalive timer when the first stream opens. */
  #arm(): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => {
      for (const f of [...this.#all]) this.#guard(f, () => f.send(KEEPALIVE_COMMENT));
      if (this.#all.size > 0) this.#onKeepalive();
    }, this.#keepaliveMs);
  }
}

/**
 * A stream as a Durable Object hands it over RPC. The object's stream is piped into a native
 * stream, so that a reader who goes away ends the pipe here, where its error is expected and
 * dropped (the follower is then cancelled and let go), instead of as an uncaught "Network
 * connection lost" in the runtime's own pump of a JavaScript stream. `ended` runs once, when the
 * pipe is done.
 */
export function overRpc(stream: ReadableStream<Uint8Array>, ended: () => void = () => undefined): ReadableStream<Uint8Array> {
  const { readable, writable } = new IdentityTransformStream();
  // The pipe settles when the stream ends and when its reader goes away: either way the stream's
  // slot is given back (src/auth/stream-slots.ts).
  void stream
    .pipeTo(writable)
    .catch(() => undefined)
    .finally(ended);
  return readable;
}
