/**
 * What the gateway (gateway.ts) sends on of a caller's request headers, and passes back of the
 * model server's answer headers. Pure.
 */

/** Headers that describe one hop, or the caller's own credentials and address: never sent on. */
const NOT_FORWARDED = new Set(["authorization", "host", "connection", "keep-alive", "transfer-encoding", "te", "upgrade", "proxy-authorization", "content-length", "cookie"]);

/** The headers sent on to the model server: the caller's, less one hop's and its credentials (`cf-*`, `x-forwarded-*` too). */
export function forwardedHeaders(headers: Headers): [string, string][] {
  return [...headers].filter(([name]) => !NOT_FORWARDED.has(name) && !name.startsWith("cf-") && !name.startsWith("x-forwarded-") && name !== "x-real-ip");
}

/**
 * Headers of the model server's answer never passed to the caller: those that describe one hop
 * (RFC 9110 section 7.6.1; `proxy-connection` and `keep-alive` of older HTTP), and those that say
 * what software answered (`server`, `x-powered-by`, `via`), which would tell a deployment's callers
 * what to attack on the machine. `set-cookie` too: lessor's origin is the console's, and a model
 * server has no business setting cookies there. The names the answer's own `Connection` lists go
 * as well (`answeredHeaders`).
 */
const NOT_ANSWERED = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "server",
  "x-powered-by",
  "via",
  "set-cookie",
]);

/** The model server's answer headers that reach the caller: all but NOT_ANSWERED and what its Connection header names. Pure. */
export function answeredHeaders(headers: Headers): Headers {
  const named = (headers.get("connection") ?? "")
    .split(",")
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean);
  const out = new Headers();
  for (const [name, value] of headers) if (!NOT_ANSWERED.has(name) && !named.includes(name)) out.append(name, value);
  return out;
}
