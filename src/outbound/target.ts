/**
 * Where lessor may send a request a user named (guarding against server-side request forgery):
 * webhook endpoints (src/webhooks/) and trusted issuers' JWKS URLs (src/auth/jwt.ts). Pure: the
 * URL's form and a literal address are judged here; where a name points is asked in ./dns.ts.
 *
 * A target is https, without credentials or a fragment, on the scheme's own port (443) unless the
 * installation allows more (LESSOR_OUTBOUND_PORTS), and its host is no loopback, private,
 * unique-local, link-local or otherwise reserved address, in any form the URL parser accepts:
 * it turns `0x7f.1`, `2130706433` and `0177.0.0.1` into `127.0.0.1` and `[::ffff:127.0.0.1]` into
 * `[::ffff:7f00:1]` before this sees them, and an IPv6 address that carries an IPv4 one (mapped,
 * NAT64, 6to4) is judged by the IPv4 one. Names that are local by definition (`localhost`,
 * `*.localhost`, `.local`, `.internal`, `.home.arpa`, a single label) are refused without asking.
 *
 * `npm start` sets LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP=1 so that a webhook receiver on the same
 * machine works: loopback targets, over http and on any port, are then allowed for webhooks (never
 * for JWKS). Never in production (src/config.ts). docs/security.md, "Outbound addresses".
 */
import type { Env } from "../env";

export const MAX_URL_LENGTH = 2048;

export type HostKind = "public" | "private" | "unique-local" | "loopback" | "link-local" | "reserved";

export interface TargetRules {
  /** Loopback hosts, over http too and on any port: webhooks in development only (`loopbackAllowed`). */
  allowLoopback: boolean;
  /** Ports allowed beside the scheme's own (LESSOR_OUTBOUND_PORTS). */
  ports: readonly number[];
}

/**
 * A URL that may be a target: `url` as stored and sent; `name` the host to look up before each
 * request (null for a literal address or an allowed loopback name, which nothing can re-point).
 */
export type TargetCheck = { ok: true; url: string; name: string | null } | { ok: false; reason: string };

export function loopbackAllowed(env: Pick<Env, "LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP" | "LESSOR_ENVIRONMENT">): boolean {
  return env.LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP === "1" && env.LESSOR_ENVIRONMENT !== "production";
}

/** LESSOR_OUTBOUND_PORTS as ports (`8443,9443`); empty when unset; null when it is not a list of ports. */
export function outboundPorts(value: string | undefined): number[] | null {
  if (value === undefined || value.trim() === "") return [];
  const ports = value.split(",").map((p) => p.trim());
  if (!ports.every((p) => /^\d{1,5}$/.test(p) && Number(p) >= 1 && Number(p) <= 65535)) return null;
  return ports.map(Number);
}

/**
 * The installation's rules for a webhook endpoint (loopback where `loopbackAllowed`) or a JWKS URL
 * (never loopback). A port list configProblems refuses allows no more ports.
 */
export function targetRules(env: Pick<Env, "LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP" | "LESSOR_ENVIRONMENT" | "LESSOR_OUTBOUND_PORTS">, use: "webhook" | "jwks"): TargetRules {
  return { allowLoopback: use === "webhook" && loopbackAllowed(env), ports: outboundPorts(env.LESSOR_OUTBOUND_PORTS) ?? [] };
}

export function checkTarget(raw: string, rules: TargetRules): TargetCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "not an absolute URL" };
  }
  if (url.username || url.password) return { ok: false, reason: "credentials in the URL are not accepted" };
  if (url.hash) return { ok: false, reason: "a fragment is not sent to the receiver; leave it out" };
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  const literal = host.startsWith("[") || ipv4(host) !== null;
  const kind = hostKind(host);
  const loopback = kind === "loopback" && rules.allowLoopback;
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) return { ok: false, reason: "the URL must be https" };
  if (kind !== "public" && !loopback) return { ok: false, reason: `the host is a ${kind} ${literal ? "address" : "name"}` };
  if (kind === "public" && !literal && !host.includes(".")) return { ok: false, reason: "the host must be a fully qualified name" };
  // The parser leaves `port` empty for the scheme's own (443, 80).
  if (url.port !== "" && !loopback && !rules.ports.includes(Number(url.port))) {
    return { ok: false, reason: `port ${url.port} is not allowed (only 443, unless the installation allows more)` };
  }
  return { ok: true, url: url.href, name: literal || loopback ? null : host };
}

/** Local by definition (RFC 6761, 6762, 8375; ICANN's `.internal`): never in public DNS. */
const LOCAL_NAME = /(^|\.)(local|internal|home\.arpa)$/;

/** What a URL's host is (as the URL parser left it: IPv6 in brackets, IPv4 dotted). */
export function hostKind(host: string): HostKind {
  const h = host.toLowerCase().replace(/\.$/, "");
  if (h === "localhost" || h.endsWith(".localhost")) return "loopback";
  if (LOCAL_NAME.test(h)) return "private";
  if (h.startsWith("[")) return ipv6Kind(h.slice(1, -1));
  const v4 = ipv4(h);
  return v4 ? ipv4Kind(v4) : "public";
}

/**
 * What an address a resolver answered is (`10.0.0.1`, `2606:4700::1111`, `::ffff:127.0.0.1`), or
 * null when it is no address. Written as the URL parser writes hosts first, so every spelling of
 * one address is judged alike.
 */
export function addressKind(address: string): HostKind | null {
  const text = address.trim();
  let host: string;
  try {
    host = new URL(`http://${text.includes(":") ? `[${text}]` : text}/`).hostname;
  } catch {
    return null;
  }
  if (!host.startsWith("[") && ipv4(host) === null) return null;
  return hostKind(host);
}

function ipv4(h: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : null;
}

function ipv4Kind([a, b, c]: number[]): HostKind {
  if (a === 127) return "loopback";
  if (a === 10 || (a === 172 && b! >= 16 && b! <= 31) || (a === 192 && b === 168)) return "private";
  if (a === 169 && b === 254) return "link-local";
  // 0/8 (this network), 100.64/10 (carrier-grade NAT), 192.0.0/24 (protocol assignments),
  // 192.0.2/24, 198.51.100/24 and 203.0.113/24 (documentation), 192.88.99/24 (6to4 relays),
  // 198.18/15 (benchmarks), 224/4 multicast, 240/4 reserved and 255.255.255.255 (RFC 6890).
  if (
    a === 0 ||
    (a === 100 && b! >= 64 && b! <= 127) ||
    (a === 192 && b === 0 && (c === 0 || c === 2)) ||
    (a === 192 && b === 88 && c === 99) ||
    (a === 198 && (b === 18 || b === 19)) ||
    (a === 198 && b === 51 && c === 100) ||
    (a === 203 && b === 0 && c === 113) ||
    a! >= 224
  ) {
    return "reserved";
  }
  return "public";
}

/** The eight 16-bit groups of an IPv6 address as the URL parser writes it (hex, at most one `::`); null otherwise. */
function ipv6Groups(h: string): number[] | null {
  const halves = h.split("::");
  if (halves.length > 2) return null;
  const groups = (s: string | undefined) => (s ? s.split(":").map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN)) : []);
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  const zeros = 8 - head.length - tail.length;
  if ([...head, ...tail].some(Number.isNaN) || (halves.length === 1 ? zeros !== 0 : zeros < 1)) return null;
  return [...head, ...new Array<number>(zeros).fill(0), ...tail];
}

const embedded = (hi: number, lo: number) => ipv4Kind([hi >> 8, hi & 255, lo >> 8, lo & 255]);

function ipv6Kind(h: string): HostKind {
  const g = ipv6Groups(h);
  if (!g) return "reserved";
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(7) && g[7] === 1) return "loopback";
  // IPv4-mapped ::ffff:a.b.c.d, and NAT64 64:ff9b::a.b.c.d (RFC 6052): the IPv4 address decides.
  if (zeroUpTo(5) && g[5] === 0xffff) return embedded(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return embedded(g[6]!, g[7]!);
  if ((g[0]! & 0xfe00) === 0xfc00) return "unique-local";
  if ((g[0]! & 0xffc0) === 0xfe80) return "link-local";
  // Only 2000::/3 is global unicast: the rest (::, ::/8 with the IPv4-compatible and translated
  // forms, 100::/64 discard, local NAT64, fec0::/10 site-local, ff00::/8 multicast) is not.
  if ((g[0]! & 0xe000) !== 0x2000) return "reserved";
  // 6to4 2002:aabb:ccdd::/48 carries a.b.c.d.
  if (g[0] === 0x2002) return embedded(g[1]!, g[2]!);
  // 2001::/23 (protocol assignments: Teredo, ORCHID, ...), 2001:db8::/32 and 3fff::/20 (documentation).
  if ((g[0] === 0x2001 && (g[1]! < 0x200 || g[1] === 0xdb8)) || (g[0] === 0x3fff && g[1]! < 0x1000)) return "reserved";
  return "public";
}
