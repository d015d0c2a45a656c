/**
 * The sim sends a webhook on every machine status change to `<LESSOR_PUBLIC_URL>/v1/ingress/sim/...`
 * (src/providers/sim/webhooks.ts), and the pool sets both settings. `https://lessor.test` is no
 * real host: this setup file answers those deliveries in this isolate (where the sim's object
 * runs), with 202 and nothing done, so that no file's leases are poked behind its back. A test of
 * ingress itself turns forwarding on (`forwardIngress`), and the deliveries reach the Worker.
 */
import { SELF } from "cloudflare:test";
import { BASE } from "./helpers";

const PREFIX = `${BASE}/v1/ingress/`;
const STATE = Symbol.for("lessor.test.ingressSink");

interface SinkState {
  forward: boolean;
  /** Every delivery seen, forwarded or not. */
  seen: { url: string; headers: Record<string, string>; body: string; status: number }[];
}

type Global = typeof globalThis & { [STATE]?: SinkState };

function state(): SinkState {
  return ((globalThis as Global)[STATE] ??= { forward: false, seen: [] });
}

/** Sends the sim's deliveries to the Worker (true) or answers them here (false, the default). */
export function forwardIngress(on: boolean): void {
  state().forward = on;
}

/** The deliveries seen since the last call, and forgets them. */
export function takeIngressDeliveries(): SinkState["seen"] {
  return state().seen.splice(0);
}

// Setup files may run more than once in an isolate: the sink wraps fetch once.
if ((globalThis as Global)[STATE] === undefined) {
  const real = globalThis.fetch;
  state();
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.startsWith(PREFIX)) return real(input, init);
    const req = new Request(input, init);
    const body = await req.text();
    const headers = Object.fromEntries(req.headers);
    const res = state().forward
      ? await SELF.fetch(url, { method: req.method, headers, body })
      : new Response(JSON.stringify({ result: "ignored", event_id: headers["webhook-id"] ?? null, reason: "unknown_machine" }), { status: 202 });
    state().seen.push({ url, headers, body, status: res.status });
    return res;
  };
}
