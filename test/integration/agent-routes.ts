/**
 * The sim's agent moves a lease's data over HTTP, through the agent routes at
 * `<LESSOR_PUBLIC_URL>/v1/agent/...` (docs/sim.md "Data in and out"), and the pool's public URL,
 * `https://lessor.test`, is no real host: this setup file sends those requests to the Worker under
 * test (SELF), in this isolate, where the sim's object runs. As agent.sh's calls reach `wrangler dev`.
 */
import { SELF } from "cloudflare:test";
import { BASE } from "./helpers";

const PREFIX = `${BASE}/v1/agent/`;
const WRAPPED = Symbol.for("lessor.test.agentRoutes");

type Global = typeof globalThis & { [WRAPPED]?: true };

// Setup files may run more than once in an isolate: fetch is wrapped once.
if ((globalThis as Global)[WRAPPED] === undefined) {
  (globalThis as Global)[WRAPPED] = true;
  const before = globalThis.fetch;
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.startsWith(PREFIX)) return before(input, init);
    return SELF.fetch(new Request(input, init));
  };
}
