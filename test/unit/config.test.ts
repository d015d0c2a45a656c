import { describe, expect, it } from "vitest";
import { BOOTSTRAP_TOKEN_MIN_LENGTH, configProblems, configProblemsCached, publicUrl } from "../../src/config";
import { wakeWaitMs } from "../../src/deployments/wake-wait";
import { agentAccess } from "../../src/providers/agent-start";

const good = {
  LESSOR_BOOTSTRAP_TOKEN: "b".repeat(BOOTSTRAP_TOKEN_MIN_LENGTH),
  LESSOR_MASTER_KEY: "m".repeat(32),
  LESSOR_INSTALLATION_ID: "acmeprod",
  LESSOR_PROVIDERS: "runpod,vast,lambda",
  LESSOR_PUBLIC_URL: "https://lessor.example.com",
};

describe("configProblems (src/config.ts)", () => {
  it("cached: a change to any setting it reads is a new answer, the loopback-webhook one included", () => {
    const prod = { ...good, LESSOR_ENVIRONMENT: "production" };
    expect(configProblemsCached(prod)).toEqual([]);
    expect(configProblemsCached({ ...prod, LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP: "1" })).toEqual([
      expect.stringMatching(/^LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP must not be set in production/),
    ]);
    expect(configProblemsCached(prod)).toEqual([]);
  });

  it("accepts a development installation with the defaults", () => {
    expect(configProblems({ LESSOR_BOOTSTRAP_TOKEN: "b".repeat(32), LESSOR_INSTALLATION_ID: "dev", LESSOR_PROVIDERS: "sim,runpod" })).toEqual([]);
    expect(configProblems({})).toEqual([]);
  });

  it("refuses a bootstrap token of 31 characters and accepts 32; unset disables bootstrap instead", () => {
    expect(configProblems({ LESSOR_BOOTSTRAP_TOKEN: "b".repeat(31) })).toEqual([expect.stringMatching(/^LESSOR_BOOTSTRAP_TOKEN must be at least 32/)]);
    expect(configProblems({ LESSOR_BOOTSTRAP_TOKEN: "b".repeat(32) })).toEqual([]);
    expect(configProblems({ LESSOR_BOOTSTRAP_TOKEN: undefined })).toEqual([]);
  });

  it("refuses an ingress token of 31 characters or one that is not a plain path segment; accepts 32; unset turns ingress off instead", () => {
    const refused = [expect.stringMatching(/^LESSOR_INGRESS_TOKEN must be at least 32 characters/)];
    expect(configProblems({ LESSOR_INGRESS_TOKEN: "i".repeat(31) })).toEqual(refused);
    for (const bad of [`${"i".repeat(32)}/`, `${"i".repeat(32)} `, `${"i".repeat(32)}%2F`, `${"i".repeat(32)}?`]) {
      expect(configProblems({ LESSOR_INGRESS_TOKEN: bad }), bad).toEqual(refused);
    }
    expect(configProblems({ LESSOR_INGRESS_TOKEN: "i".repeat(32) })).toEqual([]);
    expect(configProblems({ LESSOR_INGRESS_TOKEN: "aZ09-_.~".repeat(4) })).toEqual([]);
    expect(configProblems({ LESSOR_INGRESS_TOKEN: undefined })).toEqual([]);
    expect(configProblems({ LESSOR_INGRESS_TOKEN: "" })).toEqual([]);
  });

  it("never echoes a secret's value", () => {
    const text = configProblems({ LESSOR_BOOTSTRAP_TOKEN: "shortsecret", LESSOR_MASTER_KEY: "alsoshort", LESSOR_INGRESS_TOKEN: "shortingress" }).join(" ");
    expect(text).not.toContain("shortsecret");
    expect(text).not.toContain("alsoshort");
    expect(text).not.toContain("shortingress");
  });

  it("refuses a gateway wake wait that is not a duration; unset is 30 s", () => {
    expect(configProblems({ LESSOR_GATEWAY_WAKE_WAIT: "soon" })).toEqual([expect.stringMatching(/^LESSOR_GATEWAY_WAKE_WAIT must be a duration/)]);
    expect(configProblems({ LESSOR_GATEWAY_WAKE_WAIT: "45s" })).toEqual([]);
    expect(wakeWaitMs({ LESSOR_GATEWAY_WAKE_WAIT: "45s" })).toBe(45_000);
    expect(wakeWaitMs({})).toBe(30_000);
  });

  it("refuses a malformed installation id", () => {
    expect(configProblems({ LESSOR_INSTALLATION_ID: "Acme-Prod" })).toHaveLength(1);
  });

  describe("in production", () => {
    const prod = { ...good, LESSOR_ENVIRONMENT: "production" };
    it("accepts its own installation id, a master key and real providers", () => {
      expect(configProblems(prod)).toEqual([]);
    });
    it("refuses the default installation id, or none", () => {
      expect(configProblems({ ...prod, LESSOR_INSTALLATION_ID: "dev" })).toEqual([expect.stringMatching(/^LESSOR_INSTALLATION_ID must be set/)]);
      expect(configProblems({ ...prod, LESSOR_INSTALLATION_ID: undefined })).toEqual([expect.stringMatching(/^LESSOR_INSTALLATION_ID must be set/)]);
    });
    it("refuses sim as a provider, also when LESSOR_PROVIDERS is left to its default", () => {
      expect(configProblems({ ...prod, LESSOR_PROVIDERS: "runpod, SIM" })).toEqual([expect.stringMatching(/must not include "sim"/)]);
      expect(configProblems({ ...prod, LESSOR_PROVIDERS: undefined })).toEqual([expect.stringMatching(/must not include "sim"/)]);
    });
    it("needs a master key", () => {
      expect(configProblems({ ...prod, LESSOR_MASTER_KEY: undefined })).toEqual([expect.stringMatching(/^LESSOR_MASTER_KEY must be set/)]);
    });
  });

  describe("LESSOR_PUBLIC_URL", () => {
    const prod = { ...good, LESSOR_ENVIRONMENT: "production" };
    it.each([
      ["https://lessor.example.com", false, []],
      ["https://lessor.example.com/", false, []],
      ["https://lessor.example.com:8443", true, []],
      ["http://127.0.0.1:8787", false, []],
      ["http://127.0.0.1:8787", true, [/must be https in production/]],
      ["http://lessor.example.com", true, [/must be https in production/]],
      ["ftp://lessor.example.com", false, [/http or https/]],
      ["lessor.example.com", false, [/absolute URL/]],
      ["https://lessor.example.com/api", false, [/origin only/]],
      ["https://lessor.example.com/?x=1", false, [/origin only/]],
      ["https://user:pw@lessor.example.com", false, [/origin only/]],
      ["https://lessor.example.com#x", false, [/origin only/]],
    ] as const)("%s (production: %s)", (url, production, want) => {
      const env = production ? { ...prod, LESSOR_PUBLIC_URL: url } : { LESSOR_PUBLIC_URL: url };
      expect(configProblems(env)).toEqual(want.map((r) => expect.stringMatching(new RegExp(`^LESSOR_PUBLIC_URL ${r.source}|${r.source}`))));
    });

    it("is required in production, optional in development", () => {
      expect(configProblems({ ...prod, LESSOR_PUBLIC_URL: undefined })).toEqual([expect.stringMatching(/^LESSOR_PUBLIC_URL must be set in production/)]);
      expect(configProblems({ ...prod, LESSOR_PUBLIC_URL: "" })).toEqual([expect.stringMatching(/^LESSOR_PUBLIC_URL must be set in production/)]);
      expect(configProblems({ LESSOR_PUBLIC_URL: undefined })).toEqual([]);
    });

    it("never echoes the value (it may hold credentials)", () => {
      expect(configProblems({ LESSOR_PUBLIC_URL: "https://user:hunter22@x.example" }).join(" ")).not.toContain("hunter22");
    });

    it("publicUrl and agentAccess: the origin without a trailing slash; null when unset", () => {
      expect(publicUrl({ LESSOR_PUBLIC_URL: "https://lessor.example.com/" })).toBe("https://lessor.example.com");
      expect(publicUrl({})).toBeNull();
      expect(agentAccess({ LESSOR_PUBLIC_URL: "http://127.0.0.1:8787" }, "ls_01jx", "tok")).toEqual({ url: "http://127.0.0.1:8787", lease_id: "ls_01jx", enroll_token: "tok" });
      expect(agentAccess({}, "ls_01jx", "tok")).toBeNull();
    });
  });
});
