/**
 * The stub clouds served in-process to one unit test file, and the real adapters pointed at them
 * as the Worker builds them. The clouds' clock is the harness's `clock`, which the test moves and
 * the adapters' sleeps move too, so machines boot, fail, vanish and bill when the test says, not
 * when the machine running it is slow.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import type { Offer } from "../../../src/catalog/offer";
import { leasePrefix, machineLabel } from "../../../src/lease/label";
import type { Provider } from "../../../src/providers/contract";
import type { HttpProviderOptions } from "../../../src/providers/http";
import { LambdaProvider } from "../../../src/providers/lambda/adapter";
import { RunPodProvider } from "../../../src/providers/runpod/adapter";
import { SIM_DEFAULT_FAULTS } from "../../../src/providers/sim/faults";
import { VastProvider } from "../../../src/providers/vast/adapter";
import { STUB_API_KEYS, STUB_LAMBDA_SSH_KEY_NAME, stubCloudAdmin, type StubProvider } from "../stub-clouds-admin";
import type { ContractStub } from "../contract-stub";
import type { Dialect } from "./dialect";
import { startStubClouds, type StubClouds, type StubCloudsOptions } from "./server";

/** Where every test's clock starts: noon UTC, so that hours and days are easy to read. */
export const STUB_T0 = Date.UTC(2026, 5, 1, 12, 0, 0);
/** The default faults' delays: PROVISIONING lasts 0.5 s, STARTING 1.5 s. */
export const PROVISION_MS = SIM_DEFAULT_FAULTS.provision_delay_ms;
export const BOOT_MS = SIM_DEFAULT_FAULTS.boot_delay_ms;

export interface StubCloudsHarness {
  /** The clouds' now, in epoch milliseconds. */
  clock: number;
  readonly clouds: StubClouds;
  /** Whether the provider is served (its document is present). */
  served(p: StubProvider): boolean;
  admin(p: StubProvider): ReturnType<typeof stubCloudAdmin>;
  /**
   * The provider's ContractStub, in this process: its `calls` (with `recordCalls`) say what the
   * adapter sent, and its `fault()` answers the next call of an operation so instead (one shot,
   * still held to the document). A reset empties both.
   */
  stub(p: StubProvider): ContractStub;
  /** The adapter as the Worker builds it, with a sleep that moves the clouds' clock instead. */
  adapter(p: StubProvider, options?: Partial<HttpProviderOptions>): Provider;
}

/** Starts the stub clouds before the file's tests and stops them after. */
export function useStubClouds(options: Pick<StubCloudsOptions, "recordCalls"> = {}): StubCloudsHarness {
  let clouds: StubClouds | undefined;
  const h: StubCloudsHarness = {
    clock: STUB_T0,
    get clouds() {
      if (!clouds) throw new Error("the stub clouds are not started");
      return clouds;
    },
    served: (p) => clouds?.health.providers.includes(p) ?? false,
    admin: (p) => stubCloudAdmin(h.clouds.url, p),
    stub(p) {
      const served = h.clouds.served[p];
      if (!served) throw new Error(`${p} is not served`);
      return served.stub;
    },
    adapter(p, options = {}) {
      const base = { apiKey: STUB_API_KEYS[p], baseUrl: h.clouds.baseUrl(p), sleep: async (ms: number) => void (h.clock += ms), ...options };
      switch (p) {
        case "runpod":
          return new RunPodProvider(base);
        case "vast":
          return new VastProvider(base);
        case "lambda":
          return new LambdaProvider({ ...base, sshKeyName: STUB_LAMBDA_SSH_KEY_NAME });
      }
    },
  };
  beforeAll(async () => {
    clouds = await startStubClouds({ now: () => h.clock, logViolations: false, ...options });
  });
  afterAll(async () => {
    await clouds?.close();
  });
  return h;
}

/** The provider's cheapest on-demand one-GPU offer of `gpu`, whichever host. */
export async function cheapestOffer(provider: Provider, gpu: string): Promise<Offer> {
  const { offers } = await provider.listOffers();
  // On-demand: a spot offer (Vast's by bid) is rented with a bid, which these tests do not give.
  const offer = offers.filter((o) => o.gpu === gpu && o.gpu_count === 1 && !o.spot).sort((a, b) => a.hourly_usd - b.hourly_usd)[0];
  if (!offer) throw new Error(`${provider.name}: no ${gpu}:1 offer`);
  return offer;
}

/** The installation id the stub clouds' tests label their machines with. */
export const STUB_INSTALLATION = "stub";

/** A test lease's machine labels (by attempt) and the prefix that lists them. */
export function leaseLabels(lease: string): { label: (attempt: number) => string; prefix: string } {
  return { label: (attempt) => machineLabel(STUB_INSTALLATION, lease, attempt), prefix: leasePrefix(STUB_INSTALLATION, lease) };
}

/** One provider's cloud and adapter, renewed before each test (see useProviderRig). */
export interface ProviderRig<P extends Provider, D extends Dialect> {
  /** The provider's ContractStub: its calls and its one-shot answers (StubCloudsHarness.stub). */
  readonly stub: ContractStub;
  readonly dialect: D;
  /** The adapter, its sleeps recorded in `sleeps` (the clock does not move) and `random` fixed at 0.5. */
  readonly provider: P;
  readonly sleeps: number[];
}

/**
 * For a file of tests of one adapter alone: before each test the provider's cloud is reset (test
 * hooks and recorded calls too) and the clock set to STUB_T0, and the adapter built afresh; after
 * each, no violation of the provider's document may be left behind. Skipped when the document is
 * absent. Start the harness with `recordCalls` to read `stub.calls`.
 */
export function useProviderRig<P extends Provider, D extends Dialect>(h: StubCloudsHarness, p: StubProvider): ProviderRig<P, D> {
  let current: ProviderRig<P, D> | undefined;
  const now = (): ProviderRig<P, D> => {
    if (!current) throw new Error(`the ${p} rig is used outside a test`);
    return current;
  };
  beforeEach(async (ctx) => {
    if (!h.served(p)) ctx.skip();
    h.clock = STUB_T0;
    await h.admin(p).reset();
    const sleeps: number[] = [];
    const provider = h.adapter(p, { sleep: async (ms) => void sleeps.push(ms), random: () => 0.5 }) as P;
    current = { stub: h.stub(p), dialect: h.clouds.served[p]!.dialect as D, provider, sleeps };
  });
  afterEach(async () => {
    if (!h.served(p)) return;
    // Every request the adapter sent, and every answer the stub gave, held to the document.
    expect((await h.admin(p).getViolations()).violations).toEqual([]);
  });
  return {
    get stub() {
      return now().stub;
    },
    get dialect() {
      return now().dialect;
    },
    get provider() {
      return now().provider;
    },
    get sleeps() {
      return now().sleeps;
    },
  };
}
