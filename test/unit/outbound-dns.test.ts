/**
 * Where a target's name points (src/outbound/dns.ts), against a fake DNS-over-HTTPS resolver that
 * answers as Cloudflare's JSON API does: every address of the name must be public, and a resolver
 * that cannot say leaves the target unchecked, never passed.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_DNS_RESOLVER, dnsResolver, guardTarget, lookup } from "../../src/outbound/dns";
import type { TargetRules } from "../../src/outbound/target";

const RESOLVER = "https://dns.example.test/dns-query";
const STRICT: TargetRules = { allowLoopback: false, ports: [] };

type Records = Record<string, { A?: string[]; AAAA?: string[]; CNAME?: string; status?: number }>;

/** A resolver holding `records`; `asked` lists each query as `<type> <name>`. */
function resolver(records: Records) {
  const asked: string[] = [];
  const fetcher = async (url: string, init?: RequestInit) => {
    const u = new URL(url);
    const name = u.searchParams.get("name")!;
    const type = u.searchParams.get("type") as "A" | "AAAA";
    asked.push(`${type} ${name}`);
    expect(`${u.origin}${u.pathname}`).toBe(RESOLVER);
    expect(new Headers(init?.headers).get("accept")).toBe("application/dns-json");
    const r = records[name];
    if (!r) return Response.json({ Status: 3, Question: [{ name, type: 1 }] });
    if (r.status !== undefined) return Response.json({ Status: r.status });
    const answer = [
      ...(r.CNAME ? [{ name, type: 5, TTL: 60, data: `${r.CNAME}.` }] : []),
      ...(r[type] ?? []).map((data) => ({ name: r.CNAME ?? name, type: type === "A" ? 1 : 28, TTL: 60, data })),
    ];
    return Response.json({ Status: 0, Question: [{ name, type: type === "A" ? 1 : 28 }], Answer: answer });
  };
  return { fetcher, asked };
}

describe("guardTarget", () => {
  const records: Records = {
    "hooks.example.com": { A: ["93.184.215.14"], AAAA: ["2606:2800:21f:cb07:6820:80da:af6b:8b2c"] },
    "inside.example.com": { A: ["10.0.0.7"] },
    "sneaky.example.com": { A: ["93.184.215.14", "127.0.0.1"] },
    "v6.example.com": { AAAA: ["::ffff:169.254.169.254"] },
    "alias.example.com": { CNAME: "metadata.example.net", A: ["169.254.169.254"] },
    "ula.example.com": { AAAA: ["fd00::1"] },
    "broken.example.com": { status: 2 },
    "nonsense.example.com": { A: ["not-an-address"] },
  };

  it("passes a name every address of which is public, and asks for both A and AAAA", async () => {
    const { fetcher, asked } = resolver(records);
    expect(await guardTarget("https://hooks.example.com/x", STRICT, RESOLVER, fetcher)).toEqual({ ok: true, url: "https://hooks.example.com/x" });
    expect(asked.sort()).toEqual(["A hooks.example.com", "AAAA hooks.example.com"]);
  });

  it.each([
    ["inside.example.com", "inside.example.com points at a private address (10.0.0.7)"],
    ["sneaky.example.com", "sneaky.example.com points at a loopback address (127.0.0.1)"],
    ["v6.example.com", "v6.example.com points at a link-local address (::ffff:169.254.169.254)"],
    ["alias.example.com", "alias.example.com points at a link-local address (169.254.169.254)"],
    ["ula.example.com", "ula.example.com points at a unique-local address (fd00::1)"],
  ])("refuses %s", async (name, reason) => {
    const { fetcher } = resolver(records);
    expect(await guardTarget(`https://${name}/`, STRICT, RESOLVER, fetcher)).toEqual({ ok: false, refused: true, reason });
  });

  it.each([
    ["gone.example.com", "gone.example.com has no address"],
    ["broken.example.com", "could not check where broken.example.com points: the resolver answered DNS status 2"],
    ["nonsense.example.com", "could not check where nonsense.example.com points: the resolver answered something that is not an address"],
  ])("leaves %s unchecked, not passed", async (name, reason) => {
    const { fetcher } = resolver(records);
    expect(await guardTarget(`https://${name}/`, STRICT, RESOLVER, fetcher)).toEqual({ ok: false, refused: false, url: `https://${name}/`, reason });
  });

  it("leaves a name unchecked when the resolver fails or is unreachable", async () => {
    const down = async () => new Response("busy", { status: 503 });
    expect(await guardTarget("https://hooks.example.com/", STRICT, RESOLVER, down)).toMatchObject({ ok: false, refused: false, reason: expect.stringMatching(/answered 503$/) });
    const unreachable = async () => {
      throw new TypeError("Network connection lost");
    };
    expect(await guardTarget("https://hooks.example.com/", STRICT, RESOLVER, unreachable)).toMatchObject({ ok: false, refused: false, reason: expect.stringMatching(/could not be asked: Network connection lost$/) });
    const huge = async () => new Response("x".repeat(100 * 1024));
    expect(await guardTarget("https://hooks.example.com/", STRICT, RESOLVER, huge)).toMatchObject({ ok: false, refused: false, reason: expect.stringMatching(/too large$/) });
  });

  it("asks nothing for a URL refused by its form, a literal address or an allowed loopback, nor when looking up is off", async () => {
    const { fetcher, asked } = resolver(records);
    expect(await guardTarget("https://10.0.0.1/", STRICT, RESOLVER, fetcher)).toEqual({ ok: false, refused: true, reason: "the host is a private address" });
    expect(await guardTarget("https://hooks.example.com:8443/", STRICT, RESOLVER, fetcher)).toMatchObject({ ok: false, refused: true });
    expect(await guardTarget("https://8.8.8.8/", STRICT, RESOLVER, fetcher)).toEqual({ ok: true, url: "https://8.8.8.8/" });
    expect(await guardTarget("http://localhost:8080/", { allowLoopback: true, ports: [] }, RESOLVER, fetcher)).toEqual({ ok: true, url: "http://localhost:8080/" });
    expect(await guardTarget("https://inside.example.com/", STRICT, null, fetcher)).toEqual({ ok: true, url: "https://inside.example.com/" });
    expect(asked).toEqual([]);
  });

  it("a name pointing at loopback passes only where loopback is allowed", async () => {
    const { fetcher } = resolver({ "dev.example.com": { A: ["127.0.0.1"] } });
    expect(await guardTarget("https://dev.example.com/", STRICT, RESOLVER, fetcher)).toMatchObject({ ok: false, refused: true });
    expect(await guardTarget("https://dev.example.com/", { allowLoopback: true, ports: [] }, RESOLVER, fetcher)).toEqual({ ok: true, url: "https://dev.example.com/" });
  });
});

describe("lookup", () => {
  it("answers the addresses of both record types, following a CNAME's answer", async () => {
    const { fetcher } = resolver({ "a.example.com": { CNAME: "b.example.net", A: ["1.2.3.4"], AAAA: ["2606:4700::1"] } });
    expect(await lookup(RESOLVER, "a.example.com", fetcher)).toEqual({ ok: true, addresses: ["1.2.3.4", "2606:4700::1"] });
    expect(await lookup(RESOLVER, "nx.example.com", fetcher)).toEqual({ ok: true, addresses: [] });
  });
});

describe("LESSOR_DNS_RESOLVER", () => {
  it("is Cloudflare's resolver unless set; off turns looking up off", () => {
    expect(dnsResolver({})).toBe(DEFAULT_DNS_RESOLVER);
    expect(DEFAULT_DNS_RESOLVER).toBe("https://cloudflare-dns.com/dns-query");
    expect(dnsResolver({ LESSOR_DNS_RESOLVER: "" })).toBe(DEFAULT_DNS_RESOLVER);
    expect(dnsResolver({ LESSOR_DNS_RESOLVER: RESOLVER })).toBe(RESOLVER);
    expect(dnsResolver({ LESSOR_DNS_RESOLVER: "off" })).toBeNull();
    // A value the installation refuses to serve with (src/config.ts) is not followed.
    expect(dnsResolver({ LESSOR_DNS_RESOLVER: "http://dns.example.test/" })).toBe(DEFAULT_DNS_RESOLVER);
  });
});
