/**
 * The Lambda Cloud adapter against a stub that holds every request to Lambda's own OpenAPI
 * document and answers only with bodies that document accepts (test/support/contract-stub.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { leasePrefix, machineLabel } from "../../src/lease/label";
import { MODEL_PORT } from "../../src/providers/contract";
import { LAMBDA_READ_WAIT_MS, LambdaProvider } from "../../src/providers/lambda/adapter";
import { ContractStub, loadContract, type StubAnswer, type StubCall } from "../support/contract-stub";
import type { InstanceType } from "../support/stub-clouds/lambda";

const contract = loadContract("lambda-cloud-openapi.json");
const API_KEY = "secret_lambda_test_key_0123456789";
const SSH_KEY = "lessor-ops";
const INSTALLATION = "test";
const LEASE = "ls_01jlambda";

/** An instance type as the Lambda stub cloud holds one (name, price, specs, regions with capacity). */
type FakeType = InstanceType;

const REGIONS: Record<string, string> = { "us-east-1": "Virginia, USA", "us-west-1": "California, USA", "europe-central-1": "Germany" };

const TYPES: FakeType[] = [
  { name: "gpu_1x_h100_sxm5", description: "1x H100 (80 GB SXM5)", gpu_description: "H100 (80 GB SXM5)", price_cents_per_hour: 329, specs: { vcpus: 26, memory_gib: 225, storage_gib: 2816, gpus: 1 }, regions: ["us-east-1", "us-west-1"] },
  { name: "gpu_8x_a100_80gb_sxm4", description: "8x A100 (80 GB SXM4)", gpu_description: "A100 (80 GB SXM4)", price_cents_per_hour: 1432, specs: { vcpus: 240, memory_gib: 1800, storage_gib: 20480, gpus: 8 }, regions: ["us-west-1"] },
  { name: "gpu_1x_a100", description: "1x A100 (40 GB PCIe)", gpu_description: "A100 (40 GB PCIe)", price_cents_per_hour: 129, specs: { vcpus: 30, memory_gib: 200, storage_gib: 512, gpus: 1 }, regions: ["europe-central-1"] },
  { name: "gpu_1x_gh200", description: "1x GH200 (96 GB)", gpu_description: "GH200 (96 GB)", price_cents_per_hour: 149, specs: { vcpus: 64, memory_gib: 432, storage_gib: 4096, gpus: 1 }, regions: [] },
  // Quadro RTX 6000 is not an RTX A6000: no class covers it, so it is left out and counted.
  { name: "gpu_1x_rtx6000", description: "1x RTX 6000 (24 GB)", gpu_description: "RTX 6000 (24 GB)", price_cents_per_hour: 50, specs: { vcpus: 14, memory_gib: 46, storage_gib: 512, gpus: 1 }, regions: ["us-east-1", "us-west-1"] },
  { name: "cpu_4x_general", description: "4x CPU", gpu_description: "None", price_cents_per_hour: 10, specs: { vcpus: 4, memory_gib: 16, storage_gib: 100, gpus: 0 }, regions: ["us-east-1"] },
];

interface FakeInstance {
  id: string;
  name: string;
  status: "booting" | "active" | "unhealthy" | "terminating" | "terminated" | "preempted";
  type: FakeType;
  region: string;
  user_data?: string;
}

/** Lambda as its document describes it, small: instance types with capacity, instances, terminate. */
class FakeLambda {
  readonly instances = new Map<string, FakeInstance>();
  #seq = 0;

  handle = (call: StubCall): StubAnswer => {
    switch (call.operationId) {
      case "listInstanceTypes":
        return { status: 200, body: { data: Object.fromEntries(TYPES.map((t) => [t.name, { instance_type: typeJson(t), regions_with_capacity_available: t.regions.map(regionJson) }])) } };
      case "launchInstance":
        return this.#launch(call.body as Record<string, any>);
      case "getInstance": {
        const i = this.instances.get(String(call.params.id));
        return i ? { status: 200, body: { data: instanceJson(i) } } : notFound();
      }
      case "listInstances":
        return { status: 200, body: { data: [...this.instances.values()].map(instanceJson) } };
      case "terminateInstance": {
        const ids = (call.body as { instance_ids: string[] }).instance_ids;
        const found = ids.map((id) => this.instances.get(id));
        if (found.some((i) => !i)) return notFound();
        for (const i of found) this.instances.delete(i!.id);
        return { status: 200, body: { data: { terminated_instances: found.map((i) => instanceJson({ ...i!, status: "terminating" })) } } };
      }
      default:
        throw new Error(`the fake Lambda does not serve ${call.operationId}`);
    }
  };

  #launch(body: Record<string, any>): StubAnswer {
    const type = TYPES.find((t) => t.name === body.instance_type_name);
    if (!type) return { status: 404, body: { error: { code: "global/object-does-not-exist", message: "Instance type not found.", suggestion: "List instance types and try again." } } };
    if (!type.regions.includes(body.region_name)) {
      return { status: 400, body: { error: { code: "instance-operations/launch/insufficient-capacity", message: "Not enough capacity to fulfill launch request." } } };
    }
    const id = (++this.#seq).toString(16).padStart(32, "0");
    this.instances.set(id, { id, name: body.name, status: "booting", type, region: body.region_name, user_data: body.user_data });
    return { status: 200, body: { data: { instance_ids: [id] } } };
  }
}

function typeJson(t: FakeType) {
  return { name: t.name, description: t.description, gpu_description: t.gpu_description, price_cents_per_hour: t.price_cents_per_hour, specs: t.specs };
}

function regionJson(name: string) {
  return { name, description: REGIONS[name]! };
}

function instanceJson(i: FakeInstance) {
  const up = { available: i.status === "active" };
  return {
    id: i.id,
    name: i.name,
    status: i.status,
    ssh_key_names: [SSH_KEY],
    file_system_names: [],
    region: regionJson(i.region),
    instance_type: typeJson(i.type),
    actions: { migrate: { available: false }, rebuild: up, restart: up, cold_reboot: up, terminate: { available: true } },
    tags: [],
    // An address once the VM is up.
    ...(i.status === "active" ? { ip: "198.51.100.2" } : {}),
  };
}

function notFound(): StubAnswer {
  return { status: 404, body: { error: { code: "global/object-does-not-exist", message: "Specified instance does not exist." } } };
}

/** Lambda documents no 429; its published limits still produce them. */
const TOO_MANY: StubAnswer = { status: 429, body: { error: { code: "global/too-many-requests", message: "Too many requests" } }, undocumented: "Lambda's rate limits are published outside the document" };

describe.skipIf(!contract)("Lambda adapter against lambda-cloud-openapi.json", () => {
  let fake: FakeLambda;
  let stub: ContractStub;
  let sleeps: number[];
  let provider: LambdaProvider;
  const label = (attempt: number) => machineLabel(INSTALLATION, LEASE, attempt);

  beforeEach(() => {
    fake = new FakeLambda();
    stub = new ContractStub(contract!, { apiKey: API_KEY, handler: fake.handle });
    sleeps = [];
    provider = new LambdaProvider({ apiKey: API_KEY, sshKeyName: SSH_KEY, fetch: stub.fetch, sleep: async (ms) => void sleeps.push(ms), random: () => 0.5 });
  });

  afterEach(() => {
    expect(stub.violations).toEqual([]);
  });

  it("has no stop and no start, and says so", async () => {
    expect(provider.capabilities).toMatchObject({ stop: false, start: false, list_by_label: true, stop_ends_billing: false });
    expect(await provider.stopMachine("x").catch((e) => e)).toMatchObject({ kind: "unavailable", message: expect.stringMatching(/no stop/) });
    expect(await provider.startMachine("x").catch((e) => e)).toMatchObject({ kind: "unavailable" });
    expect(stub.calls).toEqual([]);
  });

  it("offers an instance type in each region with capacity; none where there is none; unclassified counted", async () => {
    const { offers, unclassified } = await provider.listOffers();
    expect(offers.map((o) => [o.provider_offer_id, o.gpu, o.gpu_count, o.hourly_usd]).sort()).toEqual(
      [
        ["us-east-1:gpu_1x_h100_sxm5", "h100", 1, 3.29],
        ["us-west-1:gpu_1x_h100_sxm5", "h100", 1, 3.29],
        ["us-west-1:gpu_8x_a100_80gb_sxm4", "a100-80gb", 8, 14.32],
        ["europe-central-1:gpu_1x_a100", "a100-40gb", 1, 1.29],
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
    // RTX 6000 in two regions.
    expect(unclassified).toBe(2);
  });

  it("a launch names the SSH key, the region and the type, and carries image and cmd as cloud-init", async () => {
    const created = await provider.createMachine({ label: label(1), offer_id: "us-east-1:gpu_1x_h100_sxm5", image: "vllm/vllm-openai@sha256:abc", cmd: "vllm serve x; echo 'done'" });
    expect(created).toMatchObject({ label: label(1), status: "starting", region: "us-east-1", hourly_usd: 3.29, stopped_hourly_usd: 0, offer_id: "us-east-1:gpu_1x_h100_sxm5" });
    const sent = stub.callsOf("launchInstance")[0]!.body as Record<string, unknown>;
    expect(sent).toMatchObject({ region_name: "us-east-1", instance_type_name: "gpu_1x_h100_sxm5", ssh_key_names: [SSH_KEY], name: label(1) });
    expect(sent.user_data).toBe(`#cloud-config\nruncmd:\n  - ["docker","run","-d","--restart","unless-stopped","--gpus","all","--network","host","vllm/vllm-openai@sha256:abc","sh","-c","vllm serve x; echo 'done'"]\n`);
  });

  it("a port is reached at the instance's address once it is active (the container shares the VM's network); null before and once gone", async () => {
    const created = await provider.createMachine({ label: label(1), offer_id: "us-east-1:gpu_1x_h100_sxm5", image: "vllm/vllm-openai@sha256:abc", ports: [MODEL_PORT] });
    // The launch has no port field: its body is what it was without ports.
    expect(Object.keys(stub.callsOf("launchInstance")[0]!.body as object).sort()).toEqual(["instance_type_name", "name", "region_name", "ssh_key_names", "tags", "user_data"]);
    expect(await provider.endpoint(created, MODEL_PORT)).toBeNull();
    fake.instances.get(created.id)!.status = "active";
    expect((await provider.endpoint(created, MODEL_PORT))?.url).toBe("http://198.51.100.2:8000");
    fake.instances.get(created.id)!.status = "unhealthy";
    expect(await provider.endpoint(created, MODEL_PORT)).toBeNull();
    fake.instances.delete(created.id);
    expect(await provider.endpoint(created, MODEL_PORT)).toBeNull();
  });

  it("429 on a read waits about a second (Lambda's 1 request/s) and succeeds", async () => {
    stub.fault({ operationId: "listInstances", kind: "answer", answer: TOO_MANY });
    expect(await provider.listMachines("lessor-")).toEqual([]);
    expect(sleeps).toEqual([LAMBDA_READ_WAIT_MS]);
  });

  it("insufficient capacity is no_capacity; a type that does not exist is refused; an inactive account is insufficient_funds; a bad key is auth", async () => {
    expect(await provider.createMachine({ label: label(1), offer_id: "europe-central-1:gpu_1x_h100_sxm5" }).catch((e) => e)).toMatchObject({ kind: "no_capacity" });
    // global/object-does-not-exist: a final refusal (docs/design.md "Refusals"), never a capacity miss to retry elsewhere.
    expect(await provider.createMachine({ label: label(2), offer_id: "us-east-1:gpu_1x_b300" }).catch((e) => e)).toMatchObject({ kind: "refused" });
    stub.fault({
      operationId: "launchInstance",
      kind: "answer",
      answer: { status: 403, body: { error: { code: "global/account-inactive", message: "Your account is inactive.", suggestion: "Make sure you have verified your email address and have a valid payment method." } } },
    });
    expect(await provider.createMachine({ label: label(3), offer_id: "us-east-1:gpu_1x_h100_sxm5" }).catch((e) => e)).toMatchObject({ kind: "insufficient_funds" });
    stub.fault({
      operationId: "listInstances",
      kind: "answer",
      answer: { status: 401, body: { error: { code: "global/invalid-api-key", message: "API key was invalid, expired, or deleted.", suggestion: "Check your API key or create a new one, then try again." } } },
    });
    expect(await provider.listMachines("lessor-").catch((e) => e)).toMatchObject({ kind: "auth" });
    expect(fake.instances.size).toBe(0);
  });

  it("a preempted instance is gone", async () => {
    const b = await provider.createMachine({ label: label(2), offer_id: "us-west-1:gpu_1x_h100_sxm5" });
    fake.instances.get(b.id)!.status = "preempted";
    expect(await provider.getMachine(b.id)).toBeNull();
    expect(await provider.listMachines(leasePrefix(INSTALLATION, LEASE))).toEqual([]);
  });

  it("a launch with neither image nor cmd sends no cloud-init", async () => {
    await provider.createMachine({ label: label(1), offer_id: "us-east-1:gpu_1x_h100_sxm5" });
    const sent = stub.callsOf("launchInstance")[0]!.body as Record<string, unknown>;
    expect(sent).toMatchObject({ instance_type_name: "gpu_1x_h100_sxm5" });
    expect(sent).not.toHaveProperty("user_data");
  });
});
