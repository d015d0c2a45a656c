/**
 * A webhook receiver inside the Workers pool: `fetch` to its origin is answered here (the org's
 * object runs in this isolate), every other request goes out as usual. Each delivery is verified
 * with the `standardwebhooks` package, as a user's receiver would.
 */
import { Webhook } from "standardwebhooks";
import { vi } from "vitest";

export const RECEIVER = "https://hooks.receiver.test";

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  json: any;
}

export class Receiver {
  received: Received[] = [];
  /** The status the next deliveries get, in order; then `fallback`. */
  answers: number[] = [];
  fallback = 200;
  /** How long each answer takes; with `inFlight`/`maxInFlight`, how many requests were open at once. */
  delayMs = 0;
  inFlight = 0;
  maxInFlight = 0;
  #spy: ReturnType<typeof vi.spyOn> | null = null;

  install() {
    const real = globalThis.fetch;
    this.#spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      if (!req.url.startsWith(RECEIVER)) return real(input, init);
      const body = await req.text();
      const headers = Object.fromEntries(req.headers);
      this.received.push({ path: new URL(req.url).pathname, headers, body, json: JSON.parse(body) });
      const status = this.answers.shift() ?? this.fallback;
      this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
      try {
        if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
      } finally {
        this.inFlight--;
      }
      return new Response("ok", { status });
    });
    return this;
  }

  uninstall() {
    this.#spy?.mockRestore();
  }

  at(path: string) {
    return this.received.filter((r) => r.path === path);
  }
}

/** Verifies one delivery with `secret` as the `standardwebhooks` package does; throws when it does not verify. */
export function verify(secret: string, r: Received): unknown {
  return new Webhook(secret).verify(r.body, {
    "webhook-id": r.headers["webhook-id"]!,
    "webhook-timestamp": r.headers["webhook-timestamp"]!,
    "webhook-signature": r.headers["webhook-signature"]!,
  });
}
