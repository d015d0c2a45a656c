/**
 * HTTP plumbing shared by every adapter (runpod, vast, lambda, and the sim over its Durable Object's
 * fetch): one request with a timeout, and bounded, jittered retries for calls that are safe to repeat. What an answer
 * means (which status is which ProviderError) stays in each adapter: the providers disagree.
 *
 * Rules kept here (contract.ts): a create is never sent through `retrying`; a transport failure
 * is a `TransportError`, which a read turns into `unavailable` and a create into `ambiguous`.
 */
import { errorText } from "../errors";
import { ProviderError, type MachineEndpoint } from "./contract";

/** What every real provider's adapter is constructed with; tests inject `fetch`, `sleep`, `random`. */
export interface HttpProviderOptions extends HttpCallOptions {
  apiKey: string;
}

/** How calls are sent and repeated; the defaults are the real providers'. */
export interface HttpCallOptions {
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** The provider's server URL (the document's `servers[0]`); paths are the document's own. */
  baseUrl?: string;
  /** Retries after the first attempt, for reads and idempotent actions (default READ_RETRIES). */
  retries?: number;
  /** Per-request timeout (default REQUEST_TIMEOUT_MS). A create that times out is ambiguous. */
  timeoutMs?: number;
  /** The first backoff step and the longest (defaults BACKOFF_BASE_MS, BACKOFF_MAX_MS). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** The longest Retry-After waited out inside a call (default RETRY_AFTER_CAP_MS). */
  retryAfterCapMs?: number;
}

/** At most this many retries after the first attempt (the brief: max 3). */
export const READ_RETRIES = 3;
/** Backoff before retry n (0-based) is BACKOFF_BASE_MS * 2^n, capped, with "equal jitter". */
export const BACKOFF_BASE_MS = 250;
export const BACKOFF_MAX_MS = 4000;
/**
 * A Retry-After up to this long is waited out inside the call; a longer one is the caller's to
 * wait (the error carries it), so that one request never holds a lease's alarm for minutes.
 */
export const RETRY_AFTER_CAP_MS = 5000;
export const REQUEST_TIMEOUT_MS = 30_000;

export interface HttpAnswer {
  status: number;
  headers: Headers;
  /** Parsed JSON, or null when the body was empty or not JSON. */
  body: unknown;
  text: string;
}

/** The request never produced an answer: connection refused or dropped, DNS, timeout. */
export class TransportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TransportError";
  }
}

export type Query = Record<string, string | number | boolean | undefined>;

export class ProviderHttp {
  readonly #provider: string;
  readonly #apiKey: string | null;
  readonly #fetch: typeof fetch;
  readonly #baseUrl: string;
  readonly #timeoutMs: number;
  readonly #backoffBaseMs: number;
  readonly #backoffMaxMs: number;
  readonly #retryAfterCapMs: number;
  readonly retries: number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random: () => number;

  /** `apiKey: null` sends no authorization: only the sim, which is inside the Worker, has none. */
  constructor(provider: string, defaultBaseUrl: string, options: HttpCallOptions & { apiKey: string | null }) {
    if (options.apiKey !== null && !options.apiKey) throw new Error(`${provider}: an API key is required`);
    this.#provider = provider;
    this.#apiKey = options.apiKey;
    // Never call a bare `fetch` taken off an object: in Workers it must keep its own `this`.
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#baseUrl = (options.baseUrl ?? defaultBaseUrl).replace(/\/+$/, "");
    this.#timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
    this.#backoffBaseMs = options.backoffBaseMs ?? BACKOFF_BASE_MS;
    this.#backoffMaxMs = options.backoffMaxMs ?? BACKOFF_MAX_MS;
    this.#retryAfterCapMs = options.retryAfterCapMs ?? RETRY_AFTER_CAP_MS;
    this.retries = options.retries ?? READ_RETRIES;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = options.random ?? Math.random;
  }

  /** One request, Bearer-authenticated when there is a key. Throws TransportError when no answer came back. */
  async send(method: string, path: string, options: { query?: Query; body?: unknown } = {}): Promise<HttpAnswer> {
    const url = new URL(this.#baseUrl + path);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: "application/json" };
    if (this.#apiKey !== null) headers.authorization = `Bearer ${this.#apiKey}`;
    const init: RequestInit = { method, headers };
    if (options.body !== undefined) {
      headers["content-type"] = "application/json";
      init.body = JSON.stringify(options.body);
    }
    if (typeof AbortSignal !== "undefined" && typeof AbortSignal.timeout === "function") init.signal = AbortSignal.timeout(this.#timeoutMs);
    let res: Response;
    let text: string;
    try {
      res = await this.#fetch(url.toString(), init);
      text = await res.text();
    } catch (e) {
      // The message may name the URL; it never holds the key (that lives only in a header).
      throw new TransportError(`${this.#provider}: ${method} ${path}: ${errorText(e)}`);
    }
    let body: unknown = null;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
    }
    return { status: res.status, headers: res.headers, body, text };
  }

  /**
   * One attempt of a call that is safe to repeat: a transport failure is `unavailable`, and a 429
   * or 5xx becomes the adapter's own normalized error, which `retrying` knows how to wait out.
   */
  async sendRepeatable(
    method: string,
    path: string,
    options: { query?: Query; body?: unknown },
    toError: (call: string, answer: HttpAnswer) => ProviderError,
  ): Promise<HttpAnswer> {
    let answer: HttpAnswer;
    try {
      answer = await this.send(method, path, options);
    } catch (e) {
      if (e instanceof TransportError) throw this.unavailable(e);
      throw e;
    }
    if (answer.status === 429 || answer.status >= 500) throw toError(`${method} ${path}`, answer);
    return answer;
  }

  /**
   * Runs `attempt` again on `unavailable` or `rate_limited`, at most `retries` more times, after a
   * jittered exponential backoff (or the provider's Retry-After, when it is short enough).
   */
  async retrying<T>(attempt: () => Promise<T>): Promise<T> {
    for (let n = 0; ; n++) {
      try {
        return await attempt();
      } catch (e) {
        if (!(e instanceof ProviderError) || (e.kind !== "unavailable" && e.kind !== "rate_limited") || n >= this.retries) throw e;
        const wait = e.kind === "rate_limited" ? (e.retryAfterMs ?? 0) : 0;
        if (wait > this.#retryAfterCapMs) throw e;
        await this.sleep(Math.max(wait, this.backoffMs(n)));
      }
    }
  }

  /** Equal jitter: half the exponential step fixed, half random, so retries never synchronize. */
  backoffMs(n: number): number {
    const step = Math.min(this.#backoffMaxMs, this.#backoffBaseMs * 2 ** n);
    return Math.round(step / 2 + (this.random() * step) / 2);
  }

  /** A transport failure of a call that is safe to repeat. */
  unavailable(e: TransportError): ProviderError {
    return new ProviderError(this.#provider, "unavailable", e.message);
  }
}

/** Retry-After as milliseconds: delta-seconds or an HTTP-date (RFC 9110 §10.2.3); null when absent. */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | null {
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Rounds a price to a hundredth of a cent, as every offer is stored. */
export function usd(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

export function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

export function str(x: unknown): string | null {
  return typeof x === "string" ? x : null;
}

export function num(x: unknown): number | null {
  return typeof x === "number" && Number.isFinite(x) ? x : null;
}


/**
 * A port a real provider publishes at `url` (contract.ts `endpoint`): each request goes over the
 * network with the global `fetch`, to `url` + path, and its answer is returned as it streams.
 */
export function publicEndpoint(url: string): MachineEndpoint {
  return { url, fetch: (path, init) => fetch(`${url}${path}`, init) };
}
