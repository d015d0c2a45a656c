/**
 * The capability gate (src/catalog/eligible-providers.ts): a lease with a cmd runs only on a
 * provider that can start lessor's agent (`run_agent`), and is refused plainly (409
 * `capability_missing`) when none it may use can.
 */
import { describe, expect, it } from "vitest";
import { capabilitiesNeeded, providersWithCapabilities } from "../../src/catalog/eligible-providers";
import type { CapabilityName } from "../../src/providers/contract";
import { ApiError } from "../../src/errors";
import type { ProviderCapabilities } from "../../src/providers/contract";
import { KNOWN_PROVIDERS, providerCapabilities } from "../../src/providers/registry";

/** A provider's capabilities (the sim's), without spot and with the agent. */
const BASE: ProviderCapabilities = { ...providerCapabilities("sim"), spot: false, run_agent: true };
/** Made-up providers: `able` runs the agent, `unable` does not. */
const CAPS: Record<string, ProviderCapabilities> = {
  able: BASE,
  able2: BASE,
  unable: { ...BASE, run_agent: false },
  unable2: { ...BASE, run_agent: false, spot: true },
};
const capsOf = (p: string) => CAPS[p]!;

describe("capabilitiesNeeded", () => {
  it.each([
    [{ cmd: "serve" }, ["run_agent"]],
    [{ cmd: " " }, ["run_agent"]],
    [{ cmd: "" }, []],
    [{ cmd: null }, []],
    [{}, []],
  ] as const)("%j needs %j", (lease, needed) => {
    expect(capabilitiesNeeded(lease)).toEqual(needed);
  });
});

describe("providersWithCapabilities", () => {
  const TABLE: Array<[string, string[], CapabilityName[], string[] | "capability_missing"]> = [
    ["nothing needed: every candidate, in order", ["unable", "able"], [], ["unable", "able"]],
    ["run_agent: the incapable ones are left out, the order kept", ["unable", "able2", "unable2", "able"], ["run_agent"], ["able2", "able"]],
    ["run_agent, every candidate able", ["able", "able2"], ["run_agent"], ["able", "able2"]],
    ["run_agent, one candidate and it is unable", ["unable"], ["run_agent"], "capability_missing"],
    ["run_agent, every candidate unable", ["unable", "unable2"], ["run_agent"], "capability_missing"],
    ["two capabilities: both must hold", ["unable2", "able"], ["run_agent", "spot"], "capability_missing"],
    ["no candidates: left to the caller's own answer", [], ["run_agent"], []],
  ];

  it.each(TABLE)("%s", (_, candidates, needed, want) => {
    if (want === "capability_missing") {
      let thrown: unknown;
      try {
        providersWithCapabilities(candidates, needed, capsOf);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(ApiError);
      const e = thrown as ApiError;
      expect([e.status, e.code]).toEqual([409, "capability_missing"]);
      expect(e.details).toEqual({ capabilities: needed, providers: candidates });
    } else {
      expect(providersWithCapabilities(candidates, needed, capsOf)).toEqual(want);
    }
  });
});

describe("the providers lessor has", () => {
  // Every adapter passes the environment and start line (src/providers/agent-start.ts), so none
  // is refused today; a provider added without them must say so here.
  it.each(KNOWN_PROVIDERS.map((p) => [p]))("%s runs the agent", (p) => {
    expect(providerCapabilities(p).run_agent).toBe(true);
  });
});
