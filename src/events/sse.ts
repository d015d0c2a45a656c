/**
 * Server-Sent Events (the WHATWG HTML "server-sent events" section): the frames lessor sends, and
 * the followers one Durable Object pushes them to.
 *
 * A Durable Object that holds events (a lease's, an org's) keeps its open streams in memory and
 * writes each new event to every one of them when it is appended: nothing polls. A stream answers
 * what was missed first (everything after the client's `Last-Event-ID`), then what comes.
 * A follower that falls more than MAX_QUEUED_BYTES behind is closed: the client reconnects with its
 * `Last-Event-ID` and reads the rest from storage.
 */

/** A comment this often keeps proxies from closing an idle stream. */
export const HEARTBEAT_MS = 15_000;
/** Where a client reconnects after a dropped stream (the `retry:` field), in milliseconds. */
export const RECONNECT_MS = 3_000;
/** How much may wait for one slow reader before its stream is closed. */
export const MAX_QUEUED_BYTES = 1024 * 1024;

const encoder = new TextEncoder();

/** One event: `id:` (what a client resumes from), an optional `event:` name, one `data:` line of JSON. */
export function eventFrame(id: string | number | null, data: unknown, name?: string): string {
  let frame = "";
  if (id !== null) frame += `id: ${id}\n`;
  if (name) frame += `event: ${name}\n`;
  // JSON.stringify escapes every line break, so the data is always one line.
  return `${frame}data: ${JSON.stringify(data)}\n\n`;
}

export const commentFrame = (text: string) => `: ${text}\n\n`;

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  // Tells nginx-like proxies not to buffer the stream.
  "x-accel-buffering": "no",
} as const;

interface Follower {
  controller: ReadableStreamDefaultController<Uint8Array>;
  closed: boolean;
}

/** The open streams of one object. */
export class Followers {
  #followers = new Set<Follower>();
  #timer: ReturnType<typeof setInterval> | null = null;

  get size(): number {
    return this.#followers.size;
  }

  /**
   * A new stream that starts with `backlog`; when `end` is given the stream ends after it (the
   * lease is already released), otherwise it stays open for `publish`.
   */
  open(backlog: string[], end: string | null): ReadableStream<Uint8Array> {
    let follower: Follower | null = null;
    return new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          controller.enqueue(encoder.encode(`retry: ${RECONNECT_MS}\n\n`));
          for (const frame of backlog) controller.enqueue(encoder.encode(frame));
          if (end !== null) {
            controller.enqueue(encoder.encode(end));
            controller.close();
            return;
          }
          follower = { controller, closed: false };
          this.#followers.add(follower);
          this.#arm();
        },
        cancel: () => {
          if (follower) this.#drop(follower);
        },
      },
      { highWaterMark: MAX_QUEUED_BYTES, size: (chunk) => chunk.byteLength },
    );
  }

  /** Writes `frames` to every open stream; with `end`, writes it too and closes them all. */
  publish(frames: string[], end: string | null = null): void {
    if (this.#followers.size === 0) return;
    const chunk = encoder.encode(frames.join("") + (end ?? ""));
    for (const f of [...this.#followers]) {
      this.#write(f, chunk);
      if (end !== null) this.#close(f);
    }
  }

  #write(f: Follower, chunk: Uint8Array) {
    if (f.closed) return;
    try {
      // A reader this far behind is cut loose; it resumes from its Last-Event-ID.
      if ((f.controller.desiredSize ?? 0) < 0) return this.#close(f);
      f.controller.enqueue(chunk);
    } catch {
      this.#drop(f);
    }
  }

  #close(f: Follower) {
    if (!f.closed) {
      try {
        f.controller.close();
      } catch {
        // already closed or errored by the reader going away
      }
    }
    this.#drop(f);
  }

  #drop(f: Follower) {
    f.closed = true;
    this.#followers.delete(f);
    if (this.#followers.size === 0 && this.#timer !== null) {
      clearInterval(this.#timer);
      this.#timer = null;
    }
  }

  #arm() {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => {
      const chunk = encoder.encode(commentFrame("keepalive"));
      for (const f of [...this.#followers]) this.#write(f, chunk);
    }, HEARTBEAT_MS);
  }
}
