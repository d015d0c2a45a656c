/**
 * The console's one way to the API: openapi-fetch over the types generated from the Worker's
 * OpenAPI document (cli/api-types.d.ts), with the signed-in key as the bearer. The key lives in
 * sessionStorage only (never a URL, a cookie or a log): it goes when the tab closes or on
 * "Sign out", and any 401 forgets it and returns to sign-in with the API's reason.
 */
import createClient, { type Middleware } from "openapi-fetch";
import type { components, paths } from "../../cli/api-types";
import { sseFrames } from "../../cli/stream.mjs";

export type Schemas = components["schemas"];
export type Lease = Schemas["Lease"];
export type GuardedLease = Schemas["GuardedLease"];

const KEY_ITEM = "lessor.apiKey";

export const storedKey = (): string | null => sessionStorage.getItem(KEY_ITEM);

/** Called with the reason when the key is refused (401) or the user signs out (null). */
let onSignedOut: (reason: string | null) => void = () => {};
export function whenSignedOut(handler: (reason: string | null) => void) {
  onSignedOut = handler;
}

export function signOut(reason: string | null = null) {
  sessionStorage.removeItem(KEY_ITEM);
  onSignedOut(reason);
}

/** An error answer: the envelope's code and message (`{error: {code, message, details}}`). */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

type Envelope = { error?: { code?: string; message?: string; details?: Record<string, unknown> } } | null | undefined;

function failureFrom(res: Response, body: Envelope): ApiFailure {
  const e = body?.error;
  return new ApiFailure(res.status, e?.code ?? `http_${res.status}`, e?.message ?? `${res.status} ${res.statusText}`, e?.details ?? {});
}

export async function failureOf(res: Response): Promise<ApiFailure> {
  return failureFrom(res, (await res.json().catch(() => null)) as Envelope);
}

/** Turns a 401 into a sign-out with the API's own reason. */
async function guard401(res: Response) {
  if (res.status === 401 && storedKey() !== null) signOut((await failureOf(res.clone())).message);
}

const auth: Middleware = {
  onRequest({ request }) {
    const key = storedKey();
    if (key) request.headers.set("authorization", `Bearer ${key}`);
    return request;
  },
  async onResponse({ response }) {
    await guard401(response);
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: location.origin });
api.use(auth);

/** The answer's body (nothing for a 204), or its ApiFailure. */
export async function call<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<NonNullable<T>> {
  const { data, error, response } = await pending;
  if (response.ok) return data as NonNullable<T>;
  throw failureFrom(response, error as Envelope);
}

/**
 * Checks `key` (GET /v1/org) before keeping it: a refused key is an ApiFailure and nothing is
 * stored.
 */
export async function signIn(key: string): Promise<Schemas["Org"]> {
  const res = await fetch("/v1/org", { headers: { authorization: `Bearer ${key}` } });
  if (!res.ok) throw await failureOf(res);
  const org = (await res.json()) as Schemas["Org"];
  sessionStorage.setItem(KEY_ITEM, key);
  return org;
}

export interface Frame {
  id: string | null;
  event: string;
  data: string;
}

/**
 * Follows an SSE route (`?follow=1`) with the key in the Authorization header, which an
 * EventSource cannot send: fetch and a stream reader, frames parsed as an EventSource parses them
 * (cli/stream.mjs). A dropped connection is asked for again with `Last-Event-ID`, so nothing is
 * missed or seen twice; the follow ends at an `end` frame, on `signal`, or with an error answer
 * (a 410 `events_gone` included: `onFailure` decides what follows).
 */
export async function follow(path: string, onFrame: (frame: Frame) => void, signal: AbortSignal, onFailure: (failure: ApiFailure) => void) {
  let last: string | null = null;
  let failures = 0;
  while (!signal.aborted) {
    try {
      const key = storedKey();
      const res = await fetch(`${path}${path.includes("?") ? "&" : "?"}follow=1`, {
        headers: { accept: "text/event-stream", ...(key ? { authorization: `Bearer ${key}` } : {}), ...(last !== null ? { "last-event-id": last } : {}) },
        signal,
      });
      if (!res.ok) {
        await guard401(res);
        if (res.status >= 500 || res.status === 429) throw new Error(`${res.status}`);
        return onFailure(await failureOf(res));
      }
      for await (const frame of sseFrames(res.body!) as AsyncGenerator<Frame>) {
        failures = 0;
        if (frame.id !== null) last = frame.id;
        onFrame(frame);
        if (frame.event === "end") return;
      }
    } catch {
      if (signal.aborted) return;
      failures++;
    }
    await new Promise((r) => setTimeout(r, Math.min(10_000, 250 * 2 ** failures)));
  }
}

/**
 * Saves an answer that needs the key (an artifact's bytes) as a file: a plain link cannot carry
 * the Authorization header, so the bytes are fetched with it and handed to the browser through a
 * Blob URL, revoked once the download has begun.
 */
export async function download(path: string, name: string): Promise<void> {
  const key = storedKey();
  const res = await fetch(path, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  if (!res.ok) {
    await guard401(res);
    throw await failureOf(res);
  }
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
