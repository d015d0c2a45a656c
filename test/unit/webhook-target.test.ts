/** Where a webhook or a JWKS fetch may go (src/outbound/target.ts), both sides of every boundary and every spelling of an address. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { configProblems } from "../../src/config";
import { addressKind, checkTarget, hostKind, loopbackAllowed, outboundPorts, targetRules, type TargetRules } from "../../src/outbound/target";

const STRICT: TargetRules = { allowLoopback: false, ports: [] };
const DEV: TargetRules = { allowLoopback: true, ports: [] };
const reason = (url: string, rules = STRICT) => {
  const c = checkTarget(url, rules);
  return c.ok ? null : c.reason;
};

describe("hostKind", () => {
  it.each([
    ["hooks.example.com", "public"],
    ["localhost", "loopback"],
    ["localhost.", "loopback"],
    ["a.localhost", "loopback"],
    ["localhost.example.com", "public"],
    ["printer.local", "private"],
    ["metadata.google.internal", "private"],
    ["nas.home.arpa", "private"],
    ["local.example.com", "public"],
    ["127.0.0.1", "loopback"],
    ["126.255.255.255", "public"],
    ["128.0.0.1", "public"],
    ["10.0.0.0", "private"],
    ["11.0.0.0", "public"],
    ["172.15.255.255", "public"],
    ["172.16.0.0", "private"],
    ["172.31.255.255", "private"],
    ["172.32.0.0", "public"],
    ["192.168.0.1", "private"],
    ["192.169.0.1", "public"],
    ["169.254.0.1", "link-local"],
    ["169.255.0.1", "public"],
    ["100.63.255.255", "public"],
    ["100.64.0.0", "reserved"],
    ["100.127.255.255", "reserved"],
    ["100.128.0.0", "public"],
    ["0.0.0.0", "reserved"],
    ["0.255.255.255", "reserved"],
    ["1.0.0.0", "public"],
    ["192.0.0.1", "reserved"],
    ["192.0.1.1", "public"],
    ["192.0.2.1", "reserved"],
    ["192.0.3.1", "public"],
    ["192.88.99.1", "reserved"],
    ["198.17.255.255", "public"],
    ["198.18.0.0", "reserved"],
    ["198.19.255.255", "reserved"],
    ["198.20.0.0", "public"],
    ["198.51.100.1", "reserved"],
    ["203.0.113.1", "reserved"],
    ["203.0.114.1", "public"],
    ["224.0.0.1", "reserved"],
    ["223.255.255.255", "public"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "reserved"],
    ["[::1]", "loopback"],
    ["[::]", "reserved"],
    ["[::2]", "reserved"],
    ["[::7f00:1]", "reserved"],
    ["[fe80::1]", "link-local"],
    ["[febf::1]", "link-local"],
    ["[fec0::1]", "reserved"],
    ["[fc00::]", "unique-local"],
    ["[fc00::1]", "unique-local"],
    ["[fdff::1]", "unique-local"],
    ["[fe00::1]", "reserved"],
    ["[fb00::1]", "reserved"],
    ["[ff02::1]", "reserved"],
    ["[100::1]", "reserved"],
    ["[::ffff:7f00:1]", "loopback"],
    ["[::ffff:a00:1]", "private"],
    ["[::ffff:a9fe:a9fe]", "link-local"],
    ["[::ffff:808:808]", "public"],
    ["[::ffff:0:7f00:1]", "reserved"],
    ["[64:ff9b::a9fe:a9fe]", "link-local"],
    ["[64:ff9b::808:808]", "public"],
    ["[64:ff9b:1::1]", "reserved"],
    ["[2002:7f00:1::]", "loopback"],
    ["[2002:c0a8:101::1]", "private"],
    ["[2002:808:808::1]", "public"],
    ["[2001::1]", "reserved"],
    ["[2001:1ff::1]", "reserved"],
    ["[2001:200::1]", "public"],
    ["[2001:db8::1]", "reserved"],
    ["[3fff::1]", "reserved"],
    ["[3fff:1000::1]", "public"],
    ["[1fff:ffff::1]", "reserved"],
    ["[4000::1]", "reserved"],
    ["[2606:4700::1111]", "public"],
    ["[2a00:1450:4001::1]", "public"],
  ])("%s is %s", (host, kind) => {
    expect(hostKind(host)).toBe(kind);
  });
});

describe("checkTarget", () => {
  it("takes https on a public host on port 443, and refuses the rest with a reason", () => {
    expect(checkTarget("https://hooks.example.com/x?y=1", STRICT)).toEqual({ ok: true, url: "https://hooks.example.com/x?y=1", name: "hooks.example.com" });
    expect(checkTarget("https://hooks.example.com:443/x", STRICT)).toEqual({ ok: true, url: "https://hooks.example.com/x", name: "hooks.example.com" });
    expect(checkTarget("https://8.8.8.8/", STRICT)).toEqual({ ok: true, url: "https://8.8.8.8/", name: null });
    expect(checkTarget("https://[2606:4700::1111]/", STRICT)).toEqual({ ok: true, url: "https://[2606:4700::1111]/", name: null });
    expect(reason("http://hooks.example.com/")).toBe("the URL must be https");
    expect(reason("https://10.0.0.1/")).toBe("the host is a private address");
    expect(reason("https://printer.local/")).toBe("the host is a private name");
    expect(reason("https://intranet/")).toBe("the host must be a fully qualified name");
    expect(reason("https://u:p@hooks.example.com/")).toBe("credentials in the URL are not accepted");
    expect(reason("https://hooks.example.com/#frag")).toMatch(/fragment/);
    expect(reason("//hooks.example.com")).toBe("not an absolute URL");
  });

  it("refuses every port but the scheme's own unless the installation allows it", () => {
    for (const url of ["https://hooks.example.com:8443/", "https://hooks.example.com:80/", "https://8.8.8.8:8080/", "https://[2606:4700::1111]:22/", "https://hooks.example.com:1/"]) {
      expect(reason(url), url).toMatch(/^port \d+ is not allowed/);
    }
    expect(checkTarget("https://hooks.example.com:8443/", { allowLoopback: false, ports: [8443] })).toMatchObject({ ok: true, url: "https://hooks.example.com:8443/" });
    expect(reason("https://hooks.example.com:9443/", { allowLoopback: false, ports: [8443] })).toMatch(/^port 9443/);
  });

  // The forms the issue names, each refused in production however it is spelled.
  it.each([
    "http://2130706433/",
    "https://2130706433/",
    "https://0x7f.1/",
    "https://0x7f000001/",
    "https://0177.0.0.1/",
    "https://017700000001/",
    "https://127.1/",
    "https://127.0.0.1./",
    "https://[::1]/",
    "https://[0:0:0:0:0:0:0:1]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:7f00:1]/",
    "https://[0:0:0:0:0:ffff:7f00:1]/",
    "https://[::127.0.0.1]/",
    "https://[::]/",
    "https://0.0.0.0/",
    "https://0/",
    "https://0.1.2.3/",
    "https://[fc00::]/",
    "https://[fd12:3456::1]/",
    "https://[fe80::1]/",
    "https://[::ffff:169.254.169.254]/",
    "https://[64:ff9b::169.254.169.254]/",
    "https://[2002:a9fe:a9fe::]/",
    "https://100.64.0.1/",
    "https://169.254.169.254/latest/meta-data",
    "https://10.1.2.3/",
    "https://172.16.0.1/",
    "https://192.168.0.10/",
    "https://localhost/",
    "https://LOCALHOST/",
    "https://app.localhost/",
    "https://metadata.google.internal/computeMetadata/v1/",
  ])("refuses %s", (url) => {
    expect(checkTarget(url, STRICT).ok).toBe(false);
  });

  it("allows loopback, over http and on any port, only where the setting says so, and never a private address", () => {
    for (const url of ["http://127.0.0.1:9999/hook", "https://127.0.0.1/", "http://localhost:8080/", "http://[::1]:3000/", "http://[::ffff:127.0.0.1]:1234/"]) {
      expect(checkTarget(url, STRICT).ok, url).toBe(false);
      expect(checkTarget(url, DEV), url).toMatchObject({ ok: true, name: null });
    }
    for (const url of ["http://10.0.0.1/", "https://192.168.1.1/", "http://hooks.example.com/", "https://169.254.169.254/", "https://hooks.example.com:8443/"]) {
      expect(checkTarget(url, DEV).ok, url).toBe(false);
    }
  });

  it("the setting is off in production whatever it says, and JWKS URLs never have it", () => {
    expect(loopbackAllowed({ LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP: "1" })).toBe(true);
    expect(loopbackAllowed({ LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP: "1", LESSOR_ENVIRONMENT: "production" })).toBe(false);
    expect(loopbackAllowed({ LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP: "true" })).toBe(false);
    expect(loopbackAllowed({})).toBe(false);
    const dev = { LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP: "1", LESSOR_OUTBOUND_PORTS: "8443" };
    expect(targetRules(dev, "webhook")).toEqual({ allowLoopback: true, ports: [8443] });
    expect(targetRules(dev, "jwks")).toEqual({ allowLoopback: false, ports: [8443] });
  });
});

describe("every spelling of an IPv4 address is judged as the address", () => {
  const octets = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255));
  const hex = (n: number) => n.toString(16);
  /** The host spellings the URL parser accepts for a.b.c.d (WHATWG URL "IPv4 parser"), and IPv6 forms that carry it. */
  const spellings = ([a, b, c, d]: number[]) => {
    const n = ((a! << 24) >>> 0) + (b! << 16) + (c! << 8) + d!;
    return [
      `${a}.${b}.${c}.${d}`,
      String(n),
      `0x${hex(n)}`,
      `0${n.toString(8)}`,
      `0x${hex(a!)}.0x${hex(b!)}.0x${hex(c!)}.0x${hex(d!)}`,
      `0${a!.toString(8)}.0${b!.toString(8)}.0${c!.toString(8)}.0${d!.toString(8)}`,
      `${a}.${(b! << 16) + (c! << 8) + d!}`,
      `${a}.${b}.${(c! << 8) + d!}`,
      `[::ffff:${a}.${b}.${c}.${d}]`,
      `[::ffff:${hex((a! << 8) + b!)}:${hex((c! << 8) + d!)}]`,
      `[0:0:0:0:0:ffff:${hex((a! << 8) + b!)}:${hex((c! << 8) + d!)}]`,
      `[64:ff9b::${a}.${b}.${c}.${d}]`,
      `[2002:${hex((a! << 8) + b!)}:${hex((c! << 8) + d!)}::1]`,
    ];
  };

  it("whatever the address", () => {
    fc.assert(
      fc.property(octets, (o) => {
        const dotted = checkTarget(`https://${o.join(".")}/`, STRICT);
        for (const host of spellings(o)) {
          const c = checkTarget(`https://${host}/`, STRICT);
          expect(c.ok, host).toBe(dotted.ok);
          if (!c.ok && !dotted.ok) expect(c.reason, host).toBe(dotted.reason);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("so none of loopback, private, link-local, this-network or carrier-grade NAT gets through in any of them", () => {
    const blocked = fc.oneof(
      fc.tuple(fc.constant(127), fc.nat(255), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(10), fc.nat(255), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(192), fc.constant(168), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(169), fc.constant(254), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(0), fc.nat(255), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), fc.nat(255), fc.nat(255)),
    );
    fc.assert(
      fc.property(blocked, (o) => {
        for (const host of spellings(o)) expect(checkTarget(`https://${host}/`, STRICT).ok, host).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe("addressKind: what a resolver answered", () => {
  it.each([
    ["93.184.215.14", "public"],
    ["10.0.0.1", "private"],
    ["127.0.0.53", "loopback"],
    ["169.254.169.254", "link-local"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["fd00::1", "unique-local"],
    ["FE80::1", "link-local"],
    ["2606:4700:4700::1111", "public"],
    [" 8.8.8.8 ", "public"],
    ["example.com", null],
    ["1.2.3.4.5", null],
    ["fe80::1%eth0", null],
    ["", null],
    ["[::1]", null],
  ])("%j is %s", (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });
});

describe("the installation's settings", () => {
  it("reads LESSOR_OUTBOUND_PORTS as a list of ports", () => {
    expect(outboundPorts(undefined)).toEqual([]);
    expect(outboundPorts("")).toEqual([]);
    expect(outboundPorts("8443")).toEqual([8443]);
    expect(outboundPorts("8443, 9443")).toEqual([8443, 9443]);
    for (const bad of ["0", "65536", "x", "8443,", "-1", "1.5", "443 444"]) expect(outboundPorts(bad), bad).toBeNull();
  });

  it("refuses to serve with a loopback setting in production, a bad port list or a resolver that is not https", () => {
    const prod = {
      LESSOR_ENVIRONMENT: "production",
      LESSOR_INSTALLATION_ID: "acme",
      LESSOR_MASTER_KEY: "m".repeat(32),
      LESSOR_PROVIDERS: "runpod",
      LESSOR_PUBLIC_URL: "https://lessor.example.com",
    };
    expect(configProblems(prod)).toEqual([]);
    expect(configProblems({ ...prod, LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP: "1" })).toEqual([expect.stringMatching(/^LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP must not be set in production/)]);
    expect(configProblems({ LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP: "1" })).toEqual([]);
    expect(configProblems({ ...prod, LESSOR_OUTBOUND_PORTS: "8443,9443", LESSOR_DNS_RESOLVER: "https://dns.example.com/dns-query" })).toEqual([]);
    expect(configProblems({ ...prod, LESSOR_DNS_RESOLVER: "off" })).toEqual([]);
    expect(configProblems({ ...prod, LESSOR_OUTBOUND_PORTS: "http" })).toEqual([expect.stringMatching(/^LESSOR_OUTBOUND_PORTS must be ports/)]);
    for (const resolver of ["http://dns.example.com/dns-query", "dns.example.com", "https://u:p@dns.example.com/"]) {
      expect(configProblems({ ...prod, LESSOR_DNS_RESOLVER: resolver }), resolver).toEqual([expect.stringMatching(/^LESSOR_DNS_RESOLVER must be `off` or the https URL/)]);
    }
  });
});
