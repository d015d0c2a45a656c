/**
 * What only the Lambda Cloud adapter does, against the Lambda stub cloud
 * (test/support/stub-clouds/lambda.ts, the one fake of Lambda) over real HTTP through the harness:
 * every request and answer is held to Lambda's own OpenAPI document, and no test may leave a
 * violation behind. What every adapter does is in providers-adapters.test.ts.
 */
import { describe, expect, it } from "vitest";
import { leasePrefix, machineLabel } from "../../src/lease/label";
import { MODEL_PORT } from "../../src/providers/contract";
import { LAMBDA_READ_WAIT_MS, type LambdaProvider } from "../../src/providers/lambda/adapter";
import type { StubAnswer } from "../support/contract-stub";
import { STUB_LAMBDA_SSH_KEY_NAME as SSH_KEY } from "../support/stub-clouds-admin";
import { BOOT_MS, PROVISION_MS, STUB_INSTALLATION as INSTALLATION, useProviderRig, useStubClouds } from "../support/stub-clouds/harness";
import { LAMBDA_INSTANCE_TYPES, lambdaInstanceTypesBody, type LambdaDialect } from "../support/stub-clouds/lambda";

const h = useStubClouds({ recordCalls: true });
const LEASE = "ls_01jlambda";

/** Lambda documents no 429; its published limits still produce them. */
const TOO_MANY: StubAnswer = { status: 429, body: { error: { code: "global/too-many-requests", message: "Too many requests" } }, undocumented: "Lambda's rate limits are published outside the document" };

describe("Lambda adapter against the Lambda stub cloud", () => {
  const rig = useProviderRig<LambdaProvider, LambdaDialect>(h, "lambda");
  const label = (attempt: number) => machineLabel(INSTALLATION, LEASE, attempt);

  it("has no stop and no start, and says so", async () => {
    expect(rig.provider.capabilities).toMatchObject({ stop: false, start: false, list_by_label: true, stop_ends_billing: false });
    expect(await rig.provider.stopMachine("x").catch((e) => e)).toMatchObject({ kind: "unavailable", message: expect.stringMatching(/no stop/) });
    expect(await rig.provider.startMachine("x").catch((e) => e)).toMatchObject({ kind: "unavailable" });
    expect(rig.stub.calls).toEqual([]);
  });

  it("offers an instance type in each region with capacity; none where there is none; unclassified counted", async () => {
    const { offers, unclassified } = await rig.provider.listOffers();
    // The GH200 has capacity nowhere: no offer.
    expect(offers.map((o) => [o.provider_offer_id, o.gpu, o.gpu_count, o.hourly_usd]).sort()).toEqual(
      [
        ["us-east-1:gpu_1x_l40s", "l40s", 1, 0.89],
        ["us-west-1:gpu_1x_l40s", "l40s", 1, 0.89],
        ["us-south-1:gpu_1x_l40s", "l40s", 1, 0.89],
        ["us-east-1:gpu_1x_l4", "l4", 1, 0.45],
        ["us-west-2:gpu_1x_l4", "l4", 1, 0.45],
        ["europe-central-1:gpu_1x_l4", "l4", 1, 0.45],
        ["us-east-1:gpu_1x_h100_sxm5", "h100", 1, 3.29],
        ["us-west-1:gpu_1x_h100_sxm5", "h100", 1, 3.29],
        ["us-west-1:gpu_8x_a100_80gb_sxm4", "a100-80gb", 8, 14.32],
        ["us-east-1:cpu_4x_general", "cpu", 0, 0.1],
      ].sort(),
    );
    expect(offers.find((o) => o.provider_offer_id === "us-east-1:gpu_1x_h100_sxm5")).toMatchObject({
      id: "lambda:us-east-1:gpu_1x_h100_sxm5",
      region: "us-east-1",
      vcpu: 26,
      memory_gb: 225,
      disk_gb: 2816,
      vram_gb: 80,
      availability: "medium",
      spot: false,
    });
    // Quadro RTX 6000 is not an RTX A6000: no class covers it; in two regions, two left out and counted.
    expect(unclassified).toBe(2);
  });

  it("the memory in the GPU's description settles which A100", async () => {
    const a100 = { name: "gpu_1x_a100", description: "1x A100 (40 GB PCIe)", gpu_description: "A100 (40 GB PCIe)", price_cents_per_hour: 129, specs: { vcpus: 30, memory_gib: 200, storage_gib: 512, gpus: 1 }, regions: ["europe-central-1"] };
    rig.stub.fault({ operationId: "listInstanceTypes", kind: "answer", answer: { status: 200, body: lambdaInstanceTypesBody([...LAMBDA_INSTANCE_TYPES, a100]) } });
    const { offers } = await rig.provider.listOffers();
    expect(offers.filter((o) => o.gpu.startsWith("a100")).map((o) => [o.provider_offer_id, o.gpu, o.gpu_count, o.hourly_usd]).sort()).toEqual(
      [
        ["europe-central-1:gpu_1x_a100", "a100-40gb", 1, 1.29],
        ["us-west-1:gpu_8x_a100_80gb_sxm4", "a100-80gb", 8, 14.32],
      ].sort(),
    );
  });

  it("a launch names the SSH key, the region and the type, and carries image and cmd as cloud-init", async () => {
    const created = await rig.provider.createMachine({ label: label(1), offer_id: "us-east-1:gpu_1x_h100_sxm5", image: "vllm/vllm-openai@sha256:abc", cmd: "vllm serve x; echo 'done'" });
    expect(created).toMatchObject({ label: label(1), status: "starting", region: "us-east-1", hourly_usd: 3.29, stopped_hourly_usd: 0, offer_id: "us-east-1:gpu_1x_h100_sxm5" });
    const sent = rig.stub.callsOf("launchInstance")[0]!.body as Record<string, unknown>;
    expect(sent).toMatchObject({ region_name: "us-east-1", instance_type_name: "gpu_1x_h100_sxm5", ssh_key_names: [SSH_KEY], name: label(1) });
    expect(sent.user_data).toBe(`#cloud-config\nruncmd:\n  - ["docker","run","-d","--restart","unless-stopped","--gpus","all","--network","host","vllm/vllm-openai@sha256:abc","sh","-c","vllm serve x; echo 'done'"]\n`);
  });

  it("a port is reached at the instance's address once it is active (the container shares the VM's network); null before and once gone", async () => {
    const created = await rig.provider.createMachine({ label: label(1), offer_id: "us-east-1:gpu_1x_h100_sxm5", image: "vllm/vllm-openai@sha256:abc", ports: [MODEL_PORT] });
    // The launch has no port field: its body is what it was without ports.
    expect(Object.keys(rig.stub.callsOf("launchInstance")[0]!.body as object).sort()).toEqual(["instance_type_name", "name", "region_name", "ssh_key_names", "tags", "user_data"]);
    expect(await rig.provider.endpoint(created, MODEL_PORT)).toBeNull();
    h.clock += PROVISION_MS + BOOT_MS;
    expect((await rig.provider.endpoint(created, MODEL_PORT))?.url).toBe("http://198.51.100.2:8000");
    rig.dialect.statusOverride.set(created.id, "unhealthy");
    expect(await rig.provider.endpoint(created, MODEL_PORT)).toBeNull();
    rig.dialect.statusOverride.delete(created.id);
    await rig.provider.destroyMachine(created.id);
    expect(await rig.provider.endpoint(created, MODEL_PORT)).toBeNull();
  });

  it("429 on a read waits about a second (Lambda's 1 request/s) and succeeds", async () => {
    rig.stub.fault({ operationId: "listInstances", kind: "answer", answer: TOO_MANY });
    expect(await rig.provider.listMachines("lessor-")).toEqual([]);
    expect(rig.sleeps).toEqual([LAMBDA_READ_WAIT_MS]);
  });

  it("insufficient capacity is no_capacity; a type that does not exist is refused; an inactive account is insufficient_funds; a bad key is auth", async () => {
    expect(await rig.provider.createMachine({ label: label(1), offer_id: "europe-central-1:gpu_1x_h100_sxm5" }).catch((e) => e)).toMatchObject({ kind: "no_capacity" });
    // global/object-does-not-exist: a final refusal (docs/design.md "Refusals"), never a capacity miss to retry elsewhere.
    expect(await rig.provider.createMachine({ label: label(2), offer_id: "us-east-1:gpu_1x_b300" }).catch((e) => e)).toMatchObject({ kind: "refused" });
    rig.stub.fault({
      operationId: "launchInstance",
      kind: "answer",
      answer: { status: 403, body: { error: { code: "global/account-inactive", message: "Your account is inactive.", suggestion: "Make sure you have verified your email address and have a valid payment method." } } },
    });
    expect(await rig.provider.createMachine({ label: label(3), offer_id: "us-east-1:gpu_1x_h100_sxm5" }).catch((e) => e)).toMatchObject({ kind: "insufficient_funds" });
    rig.stub.fault({
      operationId: "listInstances",
      kind: "answer",
      answer: { status: 401, body: { error: { code: "global/invalid-api-key", message: "API key was invalid, expired, or deleted.", suggestion: "Check your API key or create a new one, then try again." } } },
    });
    expect(await rig.provider.listMachines("lessor-").catch((e) => e)).toMatchObject({ kind: "auth" });
    expect((await h.admin("lambda").getLedger("")).machines).toHaveLength(0);
  });

  it("a preempted instance is gone", async () => {
    const b = await rig.provider.createMachine({ label: label(2), offer_id: "us-west-1:gpu_1x_h100_sxm5" });
    rig.dialect.statusOverride.set(b.id, "preempted");
    expect(await rig.provider.getMachine(b.id)).toBeNull();
    expect(await rig.provider.listMachines(leasePrefix(INSTALLATION, LEASE))).toEqual([]);
  });

  it("a launch with neither image nor cmd sends no cloud-init", async () => {
    await rig.provider.createMachine({ label: label(1), offer_id: "us-east-1:gpu_1x_h100_sxm5" });
    const sent = rig.stub.callsOf("launchInstance")[0]!.body as Record<string, unknown>;
    expect(sent).toMatchObject({ instance_type_name: "gpu_1x_h100_sxm5" });
    expect(sent).not.toHaveProperty("user_data");
  });
});
