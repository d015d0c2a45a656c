// @ts-check
/**
 * The API client: openapi-fetch over the types openapi-typescript generated from the Worker's
 * OpenAPI document (cli/api-types.d.ts, `npm run gen:cli-types`), so every request and answer
 * the CLI handles is the document's own type. `call` turns an error answer into a CliError with
 * the exit code of its class.
 */
import createClient from "openapi-fetch";
import { CliError, EXIT, exitCodeForApiError } from "./exit-codes.mjs";

/** @typedef {import("./api-types").paths} Paths */
/** @typedef {import("openapi-fetch").Client<Paths>} Api */

/** How long one request may take before the CLI gives up (exit code 8). */
export const REQUEST_TIMEOUT_MS = 30_000;

/**
 * @param {{ url: string, apiKey?: string }} config
 * @param {string} version the CLI's, sent as its User-Agent
 * @returns {Api}
 */
export function apiClient(config, version) {
  return createClient({
    baseUrl: config.url,
    headers: { ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}), "user-agent": `lessor-cli/${version}` },
    fetch: (request) => fetch(request, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }),
  });
}

/**
 * The answer's body, or a CliError: the API's own message and code, or why nothing was answered.
 * @template T
 * @param {Promise<{ data?: T, error?: unknown, response: Response }>} pending
 * @returns {Promise<NonNullable<T>>}
 */
export async function call(pending) {
  let answer;
  try {
    answer = await pending;
  } catch (e) {
    throw transportError(e);
  }
  const { data, error, response } = answer;
  if (response.ok && data !== undefined && data !== null) return data;
  throw apiError(response, error);
}

/** @param {unknown} e */
export function transportError(e) {
  const err = /** @type {Error & { cause?: { code?: string, message?: string } }} */ (e);
  if (err?.name === "TimeoutError" || err?.name === "AbortError") {
    return new CliError(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`, EXIT.TIMEOUT, { code: "timeout" });
  }
  const why = err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(e);
  return new CliError(`cannot reach lessor: ${why}`, EXIT.UNEXPECTED, { code: "unreachable" });
}

/**
 * @param {Response} response
 * @param {unknown} body
 */
export function apiError(response, body) {
  const envelope = /** @type {{ error?: { code?: unknown, message?: unknown, details?: unknown }, request_id?: unknown } | null} */ (
    typeof body === "object" ? body : null
  );
  const inner = envelope?.error;
  const code = typeof inner?.code === "string" ? inner.code : undefined;
  const message = typeof inner?.message === "string" ? inner.message : `${response.url} answered ${response.status} ${response.statusText}`.trim();
  const details = typeof inner?.details === "object" && inner.details !== null ? /** @type {Record<string, unknown>} */ (inner.details) : {};
  const requestId = typeof envelope?.request_id === "string" ? envelope.request_id : null;
  const exitCode = response.ok ? EXIT.UNEXPECTED : exitCodeForApiError(response.status, code);
  return new CliError(message, exitCode, { code: code ?? `http_${response.status}`, details, requestId });
}

/** How long a transfer (a bundle up, an artifact down) may go without a byte moving (exit code 8). */
export const STALL_MS = 30_000;

/**
 * A request whose body or answer may be large: a workdir bundle up, an artifact down. It has no
 * bound on how long it takes, only on how long it goes without progress: `touch` (called by the
 * body's stream for every chunk sent, and by the reader for every chunk read) starts the
 * STALL_MS timer again. `close` stops the timer once the answer is read. The answer is returned as
 * it came, error statuses included (the caller knows which it expects: 200 or 206).
 * @param {{ url: string, apiKey?: string }} config
 * @param {string} version
 * @param {string} path e.g. `/v1/uploads`
 * @param {{ method?: string, headers?: Record<string, string>, body?: (touch: () => void) => ReadableStream<Uint8Array>, stallMs?: number }} [init]
 * @returns {Promise<{ response: Response, touch: () => void, close: () => void }>}
 */
export async function transfer(config, version, path, init = {}) {
  const stallMs = init.stallMs ?? STALL_MS;
  const controller = new AbortController();
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const close = () => clearTimeout(timer);
  const touch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort(new DOMException(`no progress for ${stallMs / 1000} s`, "TimeoutError")), stallMs);
  };
  touch();
  try {
    const body = init.body?.(touch);
    const response = await fetch(`${config.url}${path}`, {
      method: init.method ?? "GET",
      headers: { ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}), "user-agent": `lessor-cli/${version}`, ...init.headers },
      signal: controller.signal,
      ...(body ? { body, duplex: "half" } : {}),
    });
    touch();
    return { response, touch, close };
  } catch (e) {
    close();
    throw stallError(e, stallMs);
  }
}

/**
 * What a transfer failed with: a stall is a timeout (8), anything else as transportError says.
 * @param {unknown} e
 * @param {number} [stallMs]
 */
export function stallError(e, stallMs = STALL_MS) {
  if (e instanceof CliError) return e;
  const name = /** @type {{ name?: string }} */ (e)?.name;
  if (name === "TimeoutError") return new CliError(`no progress for ${stallMs / 1000} s`, EXIT.TIMEOUT, { code: "timeout" });
  return transportError(e);
}
