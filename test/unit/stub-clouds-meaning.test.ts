/**
 * What the providers' documents MEAN, played by the stub clouds and read by the real adapters
 * (docs/design.md "Refusals"): a refusal is not an unknown outcome, states lessor used to misread, names that must
 * fit, what a stopped machine bills, both readings of a Vast charge, what `cmd` means, what a
 * listing costs, and capabilities that say only what is true. Every request and answer still
 * passes through the provider's ContractStub, and no test may leave a violation behind.
 */
import { execFileSync } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { signedWebhooks } from "../../src/ingress/providers";
import { installationPrefix, latestAttempt, leasePrefix, machineLabel, parseLabel } from "../../src/lease/label";
import { ProviderError, type BillingRecord, type Provider } from "../../src/providers/contract";
import { LAMBDA_NAME_MAX } from "../../src/providers/lambda/adapter";
import { HOUR_MS } from "../../src/providers/sim/machines";
import { VAST_BILLING_LAG_MS } from "../../src/providers/vast/adapter";
import type { StubAnswer } from "../support/contract-stub";
import { STUB_API_KEYS, STUB_PROVIDERS, type StubProvider } from "../support/stub-clouds-admin";
import type { LambdaDialect } from "../support/stub-clouds/lambda";
import { BOOT_MS, cheapestOffer, leaseLabels, PROVISION_MS, STUB_INSTALLATION, STUB_T0 as T0, useStubClouds } from "../support/stub-clouds/harness";
import type { VastDialect } from "../support/stub-clouds/vast";
import { ledgerCost } from "../support/ledger-cost";

const h = useStubClouds();
const { served, admin, adapter } = h;

const PROVIDERS = STUB_PROVIDERS;
const dialect = <D>(p: StubProvider) => h.clouds.served[p]!.dialect as unknown as D;

const INSTALLATION = STUB_INSTALLATION;
const LEASE = "ls_01jstubmeaning";
const { label, prefix: PREFIX } = leaseLabels(LEASE);

const offerOf = (provider: Provider, gpu = "l4") => cheapestOffer(provider, gpu);

async function running(provider: Provider, lbl = label(1), cmd?: string) {
  const m = await provider.createMachine({ label: lbl, offer_id: (await offerOf(provider)).provider_offer_id, ...(cmd ? { cmd } : {}) });
  h.clock += PROVISION_MS + BOOT_MS;
  return m;
}

/** The error a create ends in (a create that succeeds fails the test). */
async function createError(provider: Provider, offerId: string): Promise<ProviderError> {
  try {
    await provider.createMachine({ label: label(1), offer_id: offerId });
  } catch (e) {
    expect(e).toBeInstanceOf(ProviderError);
    return e as ProviderError;
  }
  throw new Error("the create succeeded");
}

/** Clears what a test set on the dialects (the admin reset knows only the core). */
function clearDialects() {
  for (const p of PROVIDERS) {
    if (!served(p)) continue;
    const d = h.clouds.served[p]!.dialect as unknown as { injected: unknown[]; instanceOverride?: Map<string, unknown>; statusOverride?: Map<string, unknown>; chargeAmounts?: string };
    d.injected.length = 0;
    d.instanceOverride?.clear();
    d.statusOverride?.clear();
    if (d.chargeAmounts) d.chargeAmounts = "range";
  }
}

function providerOf(name: string): StubProvider {
  const p = PROVIDERS.find((x) => name.startsWith(x.charAt(0).toUpperCase() + x.slice(1)) || name.includes(`on ${x}`));
  if (!p) throw new Error(`no provider in "${name}"`);
  return p;
}

beforeEach(async (ctx) => {
  const p = providerOf(ctx.task.name);
  if (!served(p)) ctx.skip();
  h.clock = T0;
  clearDialects();
  await admin(p).reset();
});

afterEach(async (ctx) => {
  const p = providerOf(ctx.task.name);
  if (!served(p)) return;
  clearDialects();
  expect((await admin(p).getViolations()).violations).toEqual([]);
});

describe("a refusal is not an unknown outcome", () => {
  const problem = (status: number, detail: string): StubAnswer => ({ status, body: { title: "Bad Request", status, detail } });
  const vastError = (status: number, error: string, msg: string): StubAnswer => ({ status, body: { success: false, error, msg, ask_id: 3011 } });
  const lambdaError = (status: number, code: string, message: string, suggestion?: string): StubAnswer => ({
    status,
    body: { error: { code, message, ...(suggestion ? { suggestion } : {}) } },
  });

  const CASES: Record<StubProvider, Array<[StubAnswer, string]>> = {
    runpod: [
      [problem(400, "request could not be processed"), "refused"],
      // A word in an unrelated refusal never makes it a capacity miss.
      [problem(400, "image registry credential is unavailable"), "refused"],
      [problem(422, "gpu.count must be at least 1"), "refused"],
      [problem(400, "There are no longer any instances available with the requested specifications. Please refresh and try again."), "no_capacity"],
    ],
    vast: [
      [vastError(400, "invalid_args", "error 400/3467: Invalid args: 'image' is not a valid image"), "refused"],
      [vastError(400, "invalid_price", "error 400: the price is below the ask's minimum"), "refused"],
      [vastError(400, "no_ssh_key_for_vm", "error 400: a VM needs an SSH key on the account"), "refused"],
      [vastError(410, "no_such_ask", "error 410/3907: no_such_ask Instance type 3011 is no longer available."), "no_capacity"],
    ],
    lambda: [
      [lambdaError(400, "global/invalid-parameters", "Invalid instance type for region."), "refused"],
      [lambdaError(400, "instance-operations/launch/file-system-in-wrong-region", "File system is in another region."), "refused"],
      [lambdaError(404, "global/object-does-not-exist", "Instance type not found.", "List instance types and try again."), "refused"],
      [lambdaError(403, "global/invalid-address", "Your billing address is invalid.", "Update your billing address."), "insufficient_funds"],
      [lambdaError(403, "global/account-inactive", "Your account is inactive.", "Contact support."), "insufficient_funds"],
      [lambdaError(400, "instance-operations/launch/insufficient-capacity", "Not enough capacity to fulfill launch request."), "no_capacity"],
    ],
  };

  it.each(PROVIDERS)("a create's documented refusals are classified from their codes on %s: refused (final), no_capacity, insufficient_funds; the provider's words kept, nothing made, no secret", async (p) => {
    const provider = adapter(p);
    const offer = await offerOf(provider);
    const d = h.clouds.served[p]!.dialect;
    for (const [answer, kind] of CASES[p]) {
      d.injected.push({ answer });
      const e = await createError(provider, offer.provider_offer_id);
      expect([e.kind, e.message], JSON.stringify(answer.body)).toEqual([kind, expect.any(String)]);
      const words = JSON.stringify(answer.body).match(/"(?:detail|msg|message)":"([^"]+)"/)![1]!;
      expect(e.message).toContain(words);
      expect(e.message).not.toContain(STUB_API_KEYS[p]);
    }
    expect(await provider.listMachines(PREFIX)).toEqual([]);
  });
});

describe("machines whose state lessor misread", () => {
  it("Vast: a container exited, unknown or offline while meant to run is an error, never starting", async () => {
    const provider = adapter("vast");
    const m = await running(provider);
    const d = dialect<VastDialect>("vast");
    for (const actual of ["exited", "unknown", "offline"]) {
      d.instanceOverride.set(m.id, { actual_status: actual, intended_status: "running", cur_state: "running", status_msg: null });
      expect((await provider.getMachine(m.id))?.status, actual).toBe("error");
      expect((await provider.listMachines(PREFIX)).map((x) => x.status), actual).toEqual(["error"]);
    }
  });

  it("Vast: a contract stopped behind lessor's back (cur_state stopped) reads stopped", async () => {
    const provider = adapter("vast");
    const m = await running(provider);
    dialect<VastDialect>("vast").instanceOverride.set(m.id, { actual_status: "exited", intended_status: "running", cur_state: "stopped", status_msg: null });
    expect((await provider.getMachine(m.id))?.status).toBe("stopped");
  });

  it("Lambda: a terminating instance stays visible (an error) until Lambda says terminated", async () => {
    const provider = adapter("lambda");
    const m = await running(provider);
    const d = dialect<LambdaDialect>("lambda");
    d.statusOverride.set(m.id, "terminating");
    expect((await provider.getMachine(m.id))?.status).toBe("error");
    expect((await provider.listMachines(PREFIX)).map((x) => [x.id, x.status])).toEqual([[m.id, "error"]]);
    d.statusOverride.clear();
    await provider.destroyMachine(m.id);
    expect(await provider.getMachine(m.id)).toBeNull();
    expect(await provider.listMachines(PREFIX)).toEqual([]);
  });

  it("Lambda: adoption after an ambiguous create picks the highest attempt in the label (instances carry no creation time)", async () => {
    const provider = adapter("lambda");
    const offer = await offerOf(provider);
    // Listed oldest first; every created_at is 0, so only the label can tell which is latest.
    const second = await provider.createMachine({ label: label(2), offer_id: offer.provider_offer_id });
    const tenth = await provider.createMachine({ label: label(10), offer_id: offer.provider_offer_id });
    const third = await provider.createMachine({ label: label(3), offer_id: offer.provider_offer_id });
    const alive = await provider.listMachines(PREFIX);
    expect(alive.map((m) => m.created_at)).toEqual([0, 0, 0]);
    expect(alive.map((m) => m.id).sort()).toEqual([second.id, tenth.id, third.id].sort());
    expect(latestAttempt(INSTALLATION, alive)?.id).toBe(tenth.id);
    expect(latestAttempt(INSTALLATION, [...alive].reverse())?.id).toBe(tenth.id);
  });
});

describe("names that must fit", () => {
  it("Lambda: the longest installation id with attempt 10 (a 65-character label) launches, and is found by both prefixes with its whole label", async () => {
    const installation = "z".repeat(24);
    const lease = "ls_01jz9v3k7m2q8r4t6w0y5x1c3b";
    const longest = machineLabel(installation, lease, 10);
    expect(longest.length).toBeGreaterThan(LAMBDA_NAME_MAX);
    const provider = adapter("lambda");
    const m = await provider.createMachine({ label: longest, offer_id: (await offerOf(provider)).provider_offer_id });
    expect(m.label).toBe(longest);
    for (const prefix of [leasePrefix(installation, lease), installationPrefix(installation)]) {
      expect((await provider.listMachines(prefix)).map((x) => [x.id, x.label])).toEqual([[m.id, longest]]);
    }
    expect(parseLabel(installation, (await provider.getMachine(m.id))!.label)).toEqual({ leaseId: lease, attempt: 10 });
    // Another lease's attempt 1 on the same installation is not found by this lease's prefix.
    await provider.createMachine({ label: machineLabel(installation, "ls_01jz9v3k7m2q8r4t6w0y5x1c3c", 1), offer_id: (await offerOf(provider)).provider_offer_id });
    expect((await provider.listMachines(leasePrefix(installation, lease))).map((x) => x.id)).toEqual([m.id]);
  });
});

describe("capabilities say only what is true", () => {
  it.each(PROVIDERS)("each capability declared on %s is what the adapter does against its cloud", async (p) => {
    const provider = adapter(p);
    const caps = provider.capabilities;
    const m = await running(provider);
    // list_by_label: the machine is found by its lease's prefix.
    expect((await provider.listMachines(PREFIX)).map((x) => x.id).includes(m.id)).toBe(caps.list_by_label);
    // billing_records: the adapter has the method the core calls.
    expect(typeof provider.listBillingRecords === "function").toBe(caps.billing_records);
    // webhooks: declared exactly where ingress checks the provider's signature (src/ingress/).
    expect(caps.webhooks).toBe(signedWebhooks(p));
    // stop and start: they work where declared, and are refused where not.
    if (caps.stop) {
      await provider.stopMachine(m.id);
      const stopped = (await provider.getMachine(m.id))!;
      expect(stopped.status).toBe("stopped");
      // stop_ends_billing: a stopped machine bills nothing exactly where stopping ends billing,
      // and what it says it bills is what its cloud bills it.
      expect(stopped.stopped_hourly_usd > 0).toBe(!caps.stop_ends_billing);
      const ledger = (await admin(p).getLedger(PREFIX)).machines.find((x) => x.id === m.id)!;
      expect(stopped.stopped_hourly_usd).toBeCloseTo(ledger.disk_price_per_hour, 4);
    } else {
      await expect(provider.stopMachine(m.id)).rejects.toBeInstanceOf(ProviderError);
    }
    if (caps.start) {
      await provider.startMachine(m.id);
      expect((await provider.getMachine(m.id))?.status).toBe("starting");
    } else {
      await expect(provider.startMachine(m.id)).rejects.toBeInstanceOf(ProviderError);
    }
  });
});

describe("cmd means the same on every provider", () => {
  it.each(PROVIDERS)("a cmd with quotes, && and $ runs as one sh -c command line on %s", async (p) => {
    const cmd = `echo 'it''s "$HOME"' && exec serve --port 8000`;
    const provider = adapter(p);
    const m = await running(provider, label(1), cmd);
    const sent = (h.clouds.served[p]!.dialect.core.get(m.id)!.cmd ?? "") as string;
    // The argv the container is given, as a POSIX shell splits the provider's argument string
    // (RunPod's `args`, Vast's `args_str`), or as Lambda's cloud-config list states it.
    let argv: string[];
    if (p === "lambda") {
      const line = /runcmd:\n {2}- (.*)\n/.exec(sent)![1]!;
      argv = JSON.parse(line) as string[];
      argv = argv.slice(argv.indexOf("sh"));
    } else {
      argv = execFileSync("sh", ["-c", `set -- ${sent}; printf '%s\\0' "$@"`]).toString().split("\0").slice(0, -1);
    }
    expect(argv).toEqual(["sh", "-c", cmd]);
  });
});

describe("listing costs", () => {
  it("Vast: a lease's machines are listed in one request filtered by label, however many instances the account holds", async () => {
    const base = adapter("vast");
    const offer = await offerOf(base);
    for (let n = 0; n < 30; n++) await base.createMachine({ label: machineLabel(INSTALLATION, `ls_01jother${n}`, 1), offer_id: offer.provider_offer_id });
    const mine = await base.createMachine({ label: label(2), offer_id: offer.provider_offer_id });
    const calls: string[] = [];
    const counting = adapter("vast", {
      fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
        calls.push(String(input));
        return fetch(input, init);
      }) as typeof fetch,
    });
    expect((await counting.listMachines(PREFIX)).map((m) => [m.id, m.label])).toEqual([[mine.id, label(2)]]);
    expect(calls).toHaveLength(1);
    // The installation's listing still pages through everything (no prefix operator).
    expect((await counting.listMachines(installationPrefix(INSTALLATION))).length).toBe(31);
  });
});

describe("money", () => {
  it("Vast: a day's records are right whether a charge row's amount is the range's or the contract's cumulative charge", async () => {
    const provider = adapter("vast");
    const offer = await offerOf(provider);
    // Runs from June 1 12:00, stops for two hours, and is destroyed on June 3 at 06:00: three days.
    const m = await provider.createMachine({ label: label(1), offer_id: offer.provider_offer_id });
    h.clock = T0 + 6 * HOUR_MS;
    await provider.stopMachine(m.id);
    h.clock = T0 + 8 * HOUR_MS;
    await provider.startMachine(m.id);
    h.clock = T0 + 42 * HOUR_MS;
    await provider.destroyMachine(m.id);
    h.clock = Date.UTC(2026, 5, 4) + VAST_BILLING_LAG_MS;

    const d = dialect<VastDialect>("vast");
    const ledger = (await admin("vast").getLedger(PREFIX)).machines;
    const listings: Record<string, BillingRecord[]> = {};
    for (const mode of ["range", "cumulative"] as const) {
      d.chargeAmounts = mode;
      const { records } = await provider.listBillingRecords!({ from: T0, to: h.clock });
      expect(records.map((r) => r.record_id), mode).toEqual(["2026-06-01", "2026-06-02", "2026-06-03"].map((day) => `instance-${m.id}:${day}`));
      // Each day is that day's charge: the three add up to the whole ledger, within Vast's rounding.
      const total = records.reduce((s, r) => s + r.amount_usd, 0);
      expect(Math.abs(total - ledgerCost(ledger)), mode).toBeLessThanOrEqual(0.002);
      // The second day ran 24 hours at the running rate.
      expect(records[1]!.amount_usd, mode).toBeCloseTo(24 * ledger[0]!.price_per_hour, 2);
      listings[mode] = records;
    }
    // The same records under both readings, to Vast's $0.001 (each reading rounds its own sums).
    expect(listings.cumulative!.map((r) => r.record_id)).toEqual(listings.range!.map((r) => r.record_id));
    listings.cumulative!.forEach((r, n) => expect(Math.abs(r.amount_usd - listings.range![n]!.amount_usd)).toBeLessThanOrEqual(0.0011));
  });
});

