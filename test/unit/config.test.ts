import { describe, expect, it } from "vitest";
import { BOOTSTRAP_TOKEN_MIN_LENGTH, configProblems } from "../../src/config";

const good = {
  LESSOR_BOOTSTRAP_TOKEN: "b".repeat(BOOTSTRAP_TOKEN_MIN_LENGTH),
  LESSOR_MASTER_KEY: "m".repeat(32),
  LESSOR_INSTALLATION_ID: "acmeprod",
  LESSOR_PROVIDERS: "runpod,vast,lambda",
};

describe("configProblems (src/config.ts)", () => {
  it("accepts a development installation with the defaults", () => {
    expect(configProblems({ LESSOR_BOOTSTRAP_TOKEN: "b".repeat(32), LESSOR_INSTALLATION_ID: "dev", LESSOR_PROVIDERS: "sim,runpod" })).toEqual([]);
    expect(configProblems({})).toEqual([]);
  });

  it("refuses a bootstrap token of 31 characters and accepts 32; unset disables bootstrap instead", () => {
    expect(configProblems({ LESSOR_BOOTSTRAP_TOKEN: "b".repeat(31) })).toEqual([expect.stringMatching(/^LESSOR_BOOTSTRAP_TOKEN must be at least 32/)]);
    expect(configProblems({ LESSOR_BOOTSTRAP_TOKEN: "b".repeat(32) })).toEqual([]);
    expect(configProblems({ LESSOR_BOOTSTRAP_TOKEN: undefined })).toEqual([]);
  });

  it("never echoes a secret's value", () => {
    const text = configProblems({ LESSOR_BOOTSTRAP_TOKEN: "shortsecret", LESSOR_MASTER_KEY: "alsoshort" }).join(" ");
    expect(text).not.toContain("shortsecret");
    expect(text).not.toContain("alsoshort");
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
});
