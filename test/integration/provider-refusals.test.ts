/**
 * A refusal is not an unknown outcome (docs/design.md "Refusals"): a create the provider refuses for a reason no
 * retry fixes ends the lease at once with reason `provider_refused` and the provider's own words
 * in the event, on RunPod, Vast.ai and Lambda through their real adapters against the stub clouds
 * (the refusal is the provider's documented answer, injected for this lease's create only).
 */
import { beforeAll, describe, expect, inject, it } from "vitest";
import { STUB_API_KEYS, STUB_PROVIDERS, stubCloudAdmin, type StubProvider } from "../support/stub-clouds-admin";
import { orgOnStubCloud } from "./helpers";
import { createLease, events, waitForState } from "./lease-helpers";

const stubs = inject("stubClouds");

/** Each provider's documented final refusal of a create, and the words it carries. */
const REFUSALS: Record<StubProvider, { status: number; body: unknown; words: string }> = {
  runpod: { status: 400, body: { title: "Bad Request", status: 400, detail: "request could not be processed" }, words: "request could not be processed" },
  vast: { status: 400, body: { success: false, error: "no_ssh_key_for_vm", msg: "error 400: a VM needs an SSH key on the account", ask_id: 1 }, words: "a VM needs an SSH key on the account" },
  lambda: { status: 400, body: { error: { code: "global/invalid-parameters", message: "Invalid launch parameters." } }, words: "Invalid launch parameters." },
};

describe.each(STUB_PROVIDERS)("on %s", (name) => {
  const served = stubs?.providers.includes(name) ?? false;
  const admin = () => stubCloudAdmin(stubs!.url, name);
  let key: string;

  beforeAll(async () => {
    if (served) ({ key } = await orgOnStubCloud(name));
  });

  it.skipIf(!served)("a create refused for good ends the lease at once with provider_refused and the provider's words; nothing is rented or retried", async () => {
    // Only this lease's create gets the refusal: its image is unique to it.
    const image = `ghcr.io/acme/refused-${name}-${crypto.randomUUID().slice(0, 8)}@sha256:${"0".repeat(64)}`;
    const { words, ...answer } = REFUSALS[name];
    await admin().injectCreate({ ...answer, match: image.split("@")[0]! });
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1", providers: [name] }, image, policy: { host_attempts: 3 } });
    const released = await waitForState(key, lease.id, "released", 20_000);
    expect(released.release_reason).toBe("provider_refused");
    const all = await events(key, lease.id);
    const requested = all.find((e) => e.type === "release_requested")!;
    expect(requested.reason).toBe("provider_refused");
    expect(requested.detail.error).toBe("refused");
    expect(String(requested.detail.message)).toContain(words);
    expect(String(requested.detail.message)).not.toContain(STUB_API_KEYS[name]);
    // One create, refused: no ambiguity, no second attempt, no machine.
    expect(all.filter((e) => e.type === "create_ambiguous")).toEqual([]);
    expect(all.filter((e) => e.type === "provisioning")).toHaveLength(1);
    expect((await admin().getLedger(`lessor-dev-${lease.id}-`)).machines).toEqual([]);
    expect((await admin().getViolations()).violations).toEqual([]);
  });
});
