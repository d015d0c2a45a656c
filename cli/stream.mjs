// @ts-check
/**
 * Following a stream the API answers as Server-Sent Events (a lease's events or its log; see
 * docs/events.md and docs/agent.md): frames parsed as an EventSource parses them, and a follow
 * that survives a dropped connection by asking again with `Last-Event-ID`, so nothing is missed
 * and nothing is printed twice.
 */
import { apiError, transportError } from "./client.mjs";
import { CliError, EXIT } from "./exit-codes.mjs";

/** @typedef {{ id: string | null, event: string, data: string }} Frame */

/** Reconnects in a row before the follow gives up (each waits longer, up to RECONNECT_MAX_MS). */
export const RECONNECT_TRIES = 8;
const RECONNECT_MAX_MS = 10_000;

/**
 * The frames of one SSE body, as an EventSource dispatches them: a frame without `data:` (a
 * `retry:`, a keepalive comment) dispatches nothing; `data:` lines join with LF.
 * @param {ReadableStream<Uint8Array>} body
 * @returns {AsyncGenerator<Frame>}
 */
export async function* sseFrames(body) {
  const decoder = new TextDecoder();
  let buffer = "";
  /** @type {string[]} */
  let data = [];
  let id = /** @type {string | null} */ (null);
  let event = "message";
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let nl = buffer.search(/\r\n|\r|\n/); nl >= 0; nl = buffer.search(/\r\n|\r|\n/)) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + (buffer.startsWith("\r\n", nl) ? 2 : 1));
        if (line === "") {
          if (data.length > 0) yield { id, event, data: data.join("\n") };
          data = [];
          event = "message";
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") data.push(value);
        else if (field === "event") event = value;
        else if (field === "id") id = value;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * Follows `path` (with `query`) until a frame named `end`, which it yields last. A connection that
 * drops is asked for again after the last id seen; an error answer stops the follow with its
 * CliError (a 404, a 410, a refused key).
 * @param {{ url: string, apiKey?: string }} config
 * @param {string} version
 * @param {string} path e.g. `/v1/leases/ls_.../logs`
 * @param {{ signal?: AbortSignal, lastEventId?: string | null, sleep?: (ms: number) => Promise<void> }} [options]
 * @returns {AsyncGenerator<Frame>}
 */
export async function* follow(config, version, path, options = {}) {
  const sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  let last = options.lastEventId ?? null;
  let failures = 0;
  for (;;) {
    /** @type {Response} */
    let res;
    try {
      res = await fetch(`${config.url}${path}?follow=1`, {
        headers: {
          accept: "text/event-stream",
          "user-agent": `lessor-cli/${version}`,
          ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
          ...(last !== null ? { "last-event-id": last } : {}),
        },
        signal: options.signal,
      });
    } catch (e) {
      if (options.signal?.aborted) return;
      if (++failures > RECONNECT_TRIES) throw transportError(e);
      await sleep(Math.min(RECONNECT_MAX_MS, 500 * 2 ** failures));
      continue;
    }
    if (!res.ok) {
      const body = await res.json().catch(() => null);
      // A busy server or one restarting: asked again like a dropped connection.
      if ((res.status >= 500 || res.status === 429) && ++failures <= RECONNECT_TRIES) {
        await sleep(Math.min(RECONNECT_MAX_MS, 500 * 2 ** failures));
        continue;
      }
      throw apiError(res, body);
    }
    if (!res.body) throw new CliError(`${path} answered no stream`, EXIT.UNEXPECTED);
    try {
      for await (const frame of sseFrames(res.body)) {
        failures = 0;
        if (frame.id !== null) last = frame.id;
        yield frame;
        if (frame.event === "end") return;
      }
    } catch (e) {
      if (options.signal?.aborted) return;
      if (++failures > RECONNECT_TRIES) throw transportError(e);
    }
    // The stream closed without its end (a proxy's timeout, a redeploy): ask again after `last`.
    await sleep(Math.min(RECONNECT_MAX_MS, 250 * 2 ** failures));
  }
}
