/**
 * Where a webhook may be sent (guarding against server-side request forgery): an https URL whose
 * host is not a private, loopback, link-local or otherwise non-public address.
 *
 * A literal IP address is checked here (the URL parser has already turned `0x7f.1` or `2130706433`
 * into `127.0.0.1`). A name is not resolved: a Worker cannot ask DNS what a name points at before
 * it connects, so a public name pointing at a private address is not caught here; Cloudflare's
 * `fetch` from a Worker does not reach private networks, which is what stands behind this in a
 * deployed installation (docs/events.md). Names that are loopback by definition (`localhost`) are
 * refused.
 *
 * `npm start` sets LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP=1 so that a receiver on the same machine
 * works: loopback targets, http or https, are then allowed. Never in production (src/config.ts).
 */
import type { Env } from "../env";

export type TargetCheck = { ok: true; url: string } | { ok: false; reason: string };

export const MAX_URL_LENGTH = 2048;

export function loopbackAllowed(env: Pick<Env, "LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP" | "LESSOR_ENVIRONMENT">): boolean {
  return env.LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP === "1" && env.LESSOR_ENVIRONMENT !== "production";
}

export function checkTarget(raw: string, allowLoopback: boolean): TargetCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "not an absolute URL" };
  }
  if (url.username || url.password) return { ok: false, reason: "credentials in the URL are not accepted" };
  if (url.hash) return { ok: false, reason: "a fragment is not sent to the receiver; leave it out" };
  const kind = hostKind(url.hostname);
  const loopback = kind === "loopback" && allowLoopback;
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) return { ok: false, reason: "the URL must be https" };
  if (kind !== "public" && !loopback) return { ok: false, reason: `the host is a ${kind} address` };
  return { ok: true, url: url.href };
}

type HostKind = "public" | "private" | "loopback" | "link-local" | "reserved";

/** What a URL's host is (as the URL parser left it: IPv6 in brackets, IPv4 dotted). */
export function hostKind(host: string): HostKind {
  const h = host.toLowerCase().replace(/\.$/, "");
  if (h === "localhost" || h.endsWith(".localhost")) return "loopback";
  if (h.startsWith("[")) return ipv6Kind(h.slice(1, -1));
  const v4 = ipv4(h);
  return v4 ? ipv4Kind(v4) : "public";
}

function ipv4(h: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : null;
}

function ipv4Kind([a, b]: number[]): HostKind {
  if (a === 127) return "loopback";
  if (a === 10 || (a === 172 && b! >= 16 && b! <= 31) || (a === 192 && b === 168)) return "private";
  if (a === 169 && b === 254) return "link-local";
  // 0/8 (this network), 100.64/10 (carrier-grade NAT), 192.0.0/24, 198.18/15 (benchmarks),
  // 224/4 multicast and 240/4 reserved, 255.255.255.255 broadcast.
  if (a === 0 || (a === 100 && b! >= 64 && b! <= 127) || (a === 192 && b === 0) || (a === 198 && (b === 18 || b === 19)) || a! >= 224) return "reserved";
  return "public";
}

function ipv6Kind(h: string): HostKind {
  if (h === "::1") return "loopback";
  if (h === "::") return "reserved";
  // IPv4-mapped (::ffff:a.b.c.d, which the URL parser writes as ::ffff:xxxx:xxxx) and NAT64.
  const mapped = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(h);
  if (mapped) {
    const hi = parseInt(mapped[1]!, 16);
    const lo = parseInt(mapped[2]!, 16);
    return ipv4Kind([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  }
  const first = parseInt(h.split(":")[0] || "0", 16);
  if ((first & 0xffc0) === 0xfe80) return "link-local";
  if ((first & 0xfe00) === 0xfc00) return "private";
  if ((first & 0xff00) === 0xff00) return "reserved";
  return "public";
}
