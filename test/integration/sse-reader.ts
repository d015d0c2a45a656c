/** Reads a Server-Sent Events answer frame by frame, as an EventSource would parse it. */
export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  /** Comment lines (`: ...`). */
  comments: string[];
}

export class SseReader {
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #decoder = new TextDecoder();
  #buffer = "";
  ended = false;

  constructor(res: Response) {
    if (!res.body) throw new Error("no body");
    this.#reader = res.body.getReader();
  }

  /** The next frame, or null once the stream ended; throws after `timeoutMs` without one. */
  async next(timeoutMs = 10_000): Promise<SseFrame | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const cut = this.#buffer.indexOf("\n\n");
      if (cut >= 0) {
        const raw = this.#buffer.slice(0, cut);
        this.#buffer = this.#buffer.slice(cut + 2);
        return parseFrame(raw);
      }
      if (this.ended) return null;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no frame within ${timeoutMs} ms; buffered ${JSON.stringify(this.#buffer)}`);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), left)));
      const read = await Promise.race([this.#reader.read(), timeout]);
      clearTimeout(timer);
      if (read === "timeout") continue;
      if (read.done) this.ended = true;
      else this.#buffer += this.#decoder.decode(read.value, { stream: true });
    }
  }

  /** Frames that carry data (events), skipping `retry:` and comments, until `until` says stop. */
  async events(until: (f: SseFrame) => boolean, timeoutMs = 15_000): Promise<SseFrame[]> {
    const out: SseFrame[] = [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const f = await this.next(Math.max(1, deadline - Date.now()));
      if (f === null) return out;
      if (f.data === undefined) continue;
      out.push(f);
      if (until(f)) return out;
    }
  }

  async cancel() {
    await this.#reader.cancel().catch(() => undefined);
  }
}

function parseFrame(raw: string): SseFrame {
  const frame: SseFrame = { comments: [] };
  for (const line of raw.split("\n")) {
    if (line.startsWith(":")) {
      frame.comments.push(line.slice(1).trim());
      continue;
    }
    const i = line.indexOf(":");
    const field = i < 0 ? line : line.slice(0, i);
    const value = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
    if (field === "data") frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
    else if (field === "id" || field === "event" || field === "retry") frame[field] = value;
  }
  return frame;
}
