/** Which bucket a client's failed authentications count in (docs/design.md "Limits"). Pure. */
/**
 * The name of the RateLimiter that counts failed authentications from the address in
 * `CF-Connecting-IP` (set by Cloudflare's edge, which a client cannot override there). An IPv6
 * address counts by its /64, the block one subscriber is given, so that one client cannot walk
 * its own block for fresh buckets. Without the header (`wrangler dev`, tests) or with something
 * that is not an address in it, every failure shares one bucket.
 */
export function authFailureBucket(connectingIp: string | undefined | null): string {
  const ip = connectingIp?.trim().toLowerCase() ?? "";
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(ip)) return `auth-failures:${ip}`;
  const v6 = ipv6Prefix64(ip);
  return v6 ? `auth-failures:${v6}::/64` : "auth-failures:shared";
}

/** The first four groups of an IPv6 address, or null when `ip` is not one. */
function ipv6Prefix64(ip: string): string | null {
  if (ip.length > 45 || !/^[0-9a-f:.]+$/.test(ip) || !ip.includes(":")) return null;
  const halves = ip.split("::");
  if (halves.length > 2) return null;
  const groups = (h: string) => (h === "" ? [] : h.split(":"));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  // An embedded IPv4 tail (::ffff:1.2.3.4) fills the last two groups.
  const width = (g: string[]) => g.reduce((n, x) => n + (x.includes(".") ? 2 : 1), 0);
  const missing = 8 - width(head) - width(tail);
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  const first = all.slice(0, 4);
  if (first.length < 4 || !first.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return first.map((g) => g.replace(/^0+(?=.)/, "")).join(":");
}
