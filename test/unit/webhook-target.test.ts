/** Where a webhook may go (src/webhooks/target.ts), both sides of every boundary. */
import { describe, expect, it } from "vitest";
import { configProblems } from "../../src/config";
import { checkTarget, hostKind, loopbackAllowed } from "../../src/webhooks/target";

describe("hostKind", () => {
  it.each([
    ["hooks.example.com", "public"],
    ["localhost", "loopback"],
    ["localhost.", "loopback"],
    ["a.localhost", "loopback"],
    ["localhost.example.com", "public"],
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
    ["224.0.0.1", "reserved"],
    ["223.255.255.255", "public"],
    ["255.255.255.255", "reserved"],
    ["[::1]", "loopback"],
    ["[::]", "reserved"],
    ["[fe80::1]", "link-local"],
    ["[febf::1]", "link-local"],
    ["[fec0::1]", "public"],
    ["[fc00::1]", "private"],
    ["[fdff::1]", "private"],
    ["[fe00::1]", "public"],
    ["[ff02::1]", "reserved"],
    ["[::ffff:7f00:1]", "loopback"],
    ["[::ffff:a00:1]", "private"],
    ["[::ffff:808:808]", "public"],
    ["[64:ff9b::a9fe:a9fe]", "link-local"],
    ["[2606:4700::1111]", "public"],
  ])("%s is %s", (host, kind) => {
    expect(hostKind(host)).toBe(kind);
  });
});

describe("checkTarget", () => {
  it("takes https on a public host, and refuses the rest with a reason", () => {
    expect(checkTarget("https://hooks.example.com/x?y=1", false)).toEqual({ ok: true, url: "https://hooks.example.com/x?y=1" });
    expect(checkTarget("http://hooks.example.com/", false)).toEqual({ ok: false, reason: "the URL must be https" });
    expect(checkTarget("https://10.0.0.1/", false)).toEqual({ ok: false, reason: "the host is a private address" });
    expect(checkTarget("https://u:p@hooks.example.com/", false).ok).toBe(false);
    expect(checkTarget("https://hooks.example.com/#frag", false).ok).toBe(false);
    expect(checkTarget("//hooks.example.com", false).ok).toBe(false);
  });

  it("allows loopback, over http too, only where the setting says so, and never a private address", () => {
    for (const url of ["http://127.0.0.1:9999/hook", "https://127.0.0.1/", "http://localhost:8080/", "http://[::1]:3000/"]) {
      expect(checkTarget(url, false).ok, url).toBe(false);
      expect(checkTarget(url, true).ok, url).toBe(true);
    }
    for (const url of ["http://10.0.0.1/", "https://192.168.1.1/", "http://hooks.example.com/", "https://169.254.169.254/"]) {
      expect(checkTarget(url, true).ok, url).toBe(false);
    }
  });

  it("the setting is off in production whatever it says", () => {
    expect(loopbackAllowed({ LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP: "1" })).toBe(true);
    expect(loopbackAllowed({ LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP: "1", LESSOR_ENVIRONMENT: "production" })).toBe(false);
    expect(loopbackAllowed({ LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP: "true" })).toBe(false);
    expect(loopbackAllowed({})).toBe(false);
  });
});

describe("the loopback setting in production", () => {
  it("makes a production installation refuse to serve; elsewhere it is fine", () => {
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
  });
});
