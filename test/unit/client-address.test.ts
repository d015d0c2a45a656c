/** Which bucket a client's failed authentications count in (src/auth/client-address.ts). */
import { describe, expect, it } from "vitest";
import { authFailureBucket } from "../../src/auth/client-address";

describe("authFailureBucket", () => {
  it("an IPv4 address is its own bucket", () => {
    expect(authFailureBucket("203.0.113.7")).toBe("auth-failures:203.0.113.7");
    expect(authFailureBucket(" 203.0.113.7 ")).toBe("auth-failures:203.0.113.7");
    expect(authFailureBucket("203.0.113.8")).not.toBe(authFailureBucket("203.0.113.7"));
  });

  it("an IPv6 address counts by its /64, however it is written", () => {
    const a = authFailureBucket("2001:db8:1:2:aaaa::1");
    expect(a).toBe("auth-failures:2001:db8:1:2::/64");
    expect(authFailureBucket("2001:0DB8:0001:0002:ffff:ffff:ffff:ffff")).toBe(a);
    expect(authFailureBucket("2001:db8:1:3::1")).not.toBe(a);
    expect(authFailureBucket("2001:db8::1")).toBe("auth-failures:2001:db8:0:0::/64");
    expect(authFailureBucket("::1")).toBe("auth-failures:0:0:0:0::/64");
    expect(authFailureBucket("::ffff:192.0.2.1")).toBe("auth-failures:0:0:0:0::/64");
  });

  it("no address, or something that is not one, shares one bucket", () => {
    for (const v of [undefined, null, "", "localhost", "1.2.3", "2001:db8::1::2", "1:2:3:4:5:6:7:8:9", "x".repeat(100), "::g"]) {
      expect(authFailureBucket(v)).toBe("auth-failures:shared");
    }
  });
});
