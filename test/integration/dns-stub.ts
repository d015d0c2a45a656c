/**
 * The pool's DNS-over-HTTPS resolver (LESSOR_DNS_RESOLVER, vitest.config.ts): the outbound guard
 * (src/outbound/dns.ts) asks it where webhook and JWKS names point before each request, and no
 * test may depend on the real DNS. Answered here, in this isolate, as Cloudflare's JSON API
 * answers: a name a test set with `setDns` has those addresses; any other name under `.test` has
 * one public address; the rest do not exist (NXDOMAIN). `dnsDown` makes the resolver answer 503.
 */
export const DNS_RESOLVER = "https://dns.lessor.test/dns-query";
/** The address every `.test` name has unless a test says otherwise: a public one (nothing is sent to it; the receivers answer in this isolate). */
export const PUBLIC_TEST_ADDRESS = "93.184.215.14";

const STATE = Symbol.for("lessor.test.dnsStub");

interface DnsState {
  names: Map<string, string[]>;
  down: boolean;
  /** Every name asked, in order. */
  asked: string[];
}

type Global = typeof globalThis & { [STATE]?: DnsState };

function state(): DnsState {
  return ((globalThis as Global)[STATE] ??= { names: new Map(), down: false, asked: [] });
}

/** Gives `name` these addresses (A and AAAA alike), or the default again with null. */
export function setDns(name: string, addresses: string[] | null): void {
  if (addresses === null) state().names.delete(name);
  else state().names.set(name, addresses);
}

export function dnsDown(down: boolean): void {
  state().down = down;
}

/** The names asked since the last call, and forgets them. */
export function takeDnsQueries(): string[] {
  return state().asked.splice(0);
}

function answer(name: string, type: string): Response {
  const s = state();
  s.asked.push(name);
  if (s.down) return new Response("resolver unavailable", { status: 503 });
  const addresses = s.names.get(name) ?? (name.endsWith(".test") ? [PUBLIC_TEST_ADDRESS] : null);
  if (addresses === null) return Response.json({ Status: 3, Question: [{ name, type: 1 }] });
  const wanted = type === "AAAA" ? 28 : 1;
  const records = addresses.filter((a) => (a.includes(":") ? 28 : 1) === wanted).map((data) => ({ name: `${name}.`, type: wanted, TTL: 0, data }));
  return Response.json({ Status: 0, Question: [{ name, type: wanted }], Answer: records });
}

// Setup files may run more than once in an isolate: the stub wraps fetch once.
if ((globalThis as Global)[STATE] === undefined) {
  const real = globalThis.fetch;
  state();
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.startsWith(`${DNS_RESOLVER}?`)) return real(input, init);
    const q = new URL(url).searchParams;
    return answer(q.get("name") ?? "", q.get("type") ?? "A");
  };
}
