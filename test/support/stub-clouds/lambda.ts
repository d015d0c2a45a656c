/**
 * Lambda Cloud over the simulated cloud core, in the words of lambda-cloud-openapi.json: instance
 * types with the regions that have capacity, launch, the instance list and one instance,
 * terminate, and the account's SSH keys (one: STUB_LAMBDA_SSH_KEY_NAME). Lambda has no stop and no start, and no billing records.
 *
 * The document lists no 429 and no 5xx on any operation: such answers are sent marked
 * `undocumented` (notes, not violations). Lambda's 429 is not documented to carry Retry-After,
 * so none is sent; the core's promise still holds after retry_after_s.
 */
import type { SimStatus } from "../../../src/providers/sim/machines";
import type { Operation, StubAnswer, StubCall } from "../contract-stub";
import { STUB_LAMBDA_SSH_KEY_NAME } from "../stub-clouds-admin";
import { StubCloudCore, type CoreMachine, type CoreOffer } from "./core";
import { ambiguous, gatewayPage, refusal, type Dialect, type FaultWords, takeInjected, type InjectedCreate } from "./dialect";

export interface InstanceType {
  name: string;
  description: string;
  gpu_description: string;
  price_cents_per_hour: number;
  specs: { vcpus: number; memory_gib: number; storage_gib: number; gpus: number };
  /** Regions with capacity: the adapter makes one offer (and one host) per region. */
  regions: string[];
}

export const LAMBDA_REGIONS: Record<string, string> = {
  "us-east-1": "Virginia, USA",
  "us-west-1": "California, USA",
  "us-west-2": "Arizona, USA",
  "us-south-1": "Texas, USA",
  "europe-central-1": "Germany",
};

/**
 * The instance types. L40S and L4 have capacity in three regions each at one GPU; the RTX 6000
 * (a Quadro, not an RTX A6000) is a GPU no lessor class covers; the GH200 has no capacity anywhere.
 */
export const LAMBDA_INSTANCE_TYPES: readonly InstanceType[] = [
  { name: "gpu_1x_l40s", description: "1x L40S (48 GB PCIe)", gpu_description: "L40S (48 GB PCIe)", price_cents_per_hour: 89, specs: { vcpus: 16, memory_gib: 100, storage_gib: 512, gpus: 1 }, regions: ["us-east-1", "us-west-1", "us-south-1"] },
  { name: "gpu_1x_l4", description: "1x L4 (24 GB PCIe)", gpu_description: "L4 (24 GB PCIe)", price_cents_per_hour: 45, specs: { vcpus: 8, memory_gib: 32, storage_gib: 256, gpus: 1 }, regions: ["us-east-1", "us-west-2", "europe-central-1"] },
  { name: "gpu_1x_h100_sxm5", description: "1x H100 (80 GB SXM5)", gpu_description: "H100 (80 GB SXM5)", price_cents_per_hour: 329, specs: { vcpus: 26, memory_gib: 225, storage_gib: 2816, gpus: 1 }, regions: ["us-east-1", "us-west-1"] },
  { name: "gpu_8x_a100_80gb_sxm4", description: "8x A100 (80 GB SXM4)", gpu_description: "A100 (80 GB SXM4)", price_cents_per_hour: 1432, specs: { vcpus: 240, memory_gib: 1800, storage_gib: 20480, gpus: 8 }, regions: ["us-west-1"] },
  { name: "gpu_1x_gh200", description: "1x GH200 (96 GB)", gpu_description: "GH200 (96 GB)", price_cents_per_hour: 149, specs: { vcpus: 64, memory_gib: 432, storage_gib: 4096, gpus: 1 }, regions: [] },
  { name: "gpu_1x_rtx6000", description: "1x RTX 6000 (24 GB)", gpu_description: "RTX 6000 (24 GB)", price_cents_per_hour: 50, specs: { vcpus: 14, memory_gib: 46, storage_gib: 512, gpus: 1 }, regions: ["us-east-1", "us-west-1"] },
  { name: "cpu_4x_general", description: "4x CPU", gpu_description: "None", price_cents_per_hour: 10, specs: { vcpus: 4, memory_gib: 16, storage_gib: 100, gpus: 0 }, regions: ["us-east-1"] },
];

const WORDS: FaultWords = {
  unavailable: () => gatewayPage(503),
  rateLimited: () => ({
    status: 429,
    body: { error: { code: "global/too-many-requests", message: "Too many requests" } },
    undocumented: "Lambda's rate limits are published outside the document",
  }),
  gateway: (status) => gatewayPage(status),
};

const NOT_FOUND: StubAnswer = { status: 404, body: { error: { code: "global/object-does-not-exist", message: "Specified instance does not exist." } } };

interface InstanceExtra {
  type: InstanceType;
  region: string;
  ssh_key_names: string[];
  tags: Array<{ key: string; value: string }>;
  mounts: Array<{ file_system_id: string; mount_point: string }>;
}

/** A Filesystem as the document has it. */
interface Filesystem {
  id: string;
  name: string;
  mount_point: string;
  created: string;
  created_by: { id: string; email: string; status: "active" };
  is_in_use: boolean;
  region: { name: string; description: string };
  bytes_used: number;
}

/** The launch's `user_data` limit as the document states it ("cannot exceed 1MB"), read as 2^20 bytes. */
export const LAMBDA_USER_DATA_MAX_BYTES = 1 << 20;
/** The first line of each cloud-init user-data format (cloud-init's "User data formats"). */
const CLOUD_INIT_HEADERS = [/^#cloud-config\s*$/, /^#!/, /^#include(-once)?\s*$/, /^#cloud-boothook\s*$/, /^#part-handler\s*$/, /^#cloud-config-archive\s*$/, /^## template: jinja\s*$/, /^Content-Type: multipart\//i];

/**
 * Why a launch's `user_data` is refused, or null: the document asks for a string "in a valid
 * cloud-init user-data format", "plain text", of at most 1MB. The schema says only `string`, so
 * the rest is checked here, as Lambda refuses a parameter it cannot use (400 invalid-parameters).
 */
export function userDataProblem(userData: string): string | null {
  if (new TextEncoder().encode(userData).length > LAMBDA_USER_DATA_MAX_BYTES) return "user_data exceeds 1MB";
  if (userData.includes("\0")) return "user_data must be plain text";
  const first = userData.split("\n", 1)[0]!;
  if (!CLOUD_INIT_HEADERS.some((h) => h.test(first))) return "user_data is not in a cloud-init user-data format";
  return null;
}

export class LambdaDialect implements Dialect {
  readonly provider = "lambda" as const;
  readonly contractFile = "lambda-cloud-openapi.json";
  readonly core: StubCloudCore<InstanceExtra>;
  /** Answers given to the next launches instead of launching (a test's documented refusals), first in first out. */
  readonly injected: InjectedCreate[] = [];
  /** A status word shown instead of the instance's own (a test's `terminating` that stalls, an `unhealthy` or `preempted` VM). */
  readonly statusOverride = new Map<string, string>();
  /** The account's filesystems, by id (kept across the admin reset, as storage outlives machines). */
  readonly filesystems = new Map<string, Filesystem>();

  /** Forgets what tests set on this dialect beyond the core (the admin reset calls it). */
  clearTestHooks(): void {
    this.injected.length = 0;
    this.statusOverride.clear();
  }

  constructor(options: { now?: () => number } = {}) {
    // Lambda's ids are 32 hex digits; a per-server tag keeps them unique across runs.
    const tag = Math.floor(Math.random() * 0xffffffff).toString(16).padStart(8, "0");
    this.core = new StubCloudCore<InstanceExtra>({ machineId: (seq) => `${tag}${seq.toString(16).padStart(24, "0")}`, ...options });
  }

  refuse(_op: Operation): StubAnswer {
    // Every operation lessor calls lists 401 with ApiErrorUnauthorized.
    return {
      status: 401,
      body: { error: { code: "global/invalid-api-key", message: "API key was invalid, expired, or deleted.", suggestion: "Check your API key or create a new one, then try again." } },
    };
  }

  handle(call: StubCall): StubAnswer {
    switch (call.operationId) {
      case "listInstanceTypes":
        return { status: 200, body: lambdaInstanceTypesBody(LAMBDA_INSTANCE_TYPES) };
      case "launchInstance":
        return this.#launch(call.body as Record<string, any>);
      case "listInstances":
        return refusal(this.core.gate("list:"), WORDS) ?? { status: 200, body: { data: this.core.list().map((m) => this.#json(m)) } };
      case "getInstance": {
        const id = String(call.params.id);
        const gated = refusal(this.core.gate(`machine:${id}`), WORDS);
        if (gated) return gated;
        const m = this.core.get(id);
        return m && m.clock.status !== "TERMINATED" ? { status: 200, body: { data: this.#json(m) } } : NOT_FOUND;
      }
      case "terminateInstance":
        return this.#terminate((call.body as { instance_ids: string[] }).instance_ids);
      case "listFilesystems":
        return refusal(this.core.gate("volumes:"), WORDS) ?? { status: 200, body: { data: [...this.filesystems.values()].map((f) => this.#fs(f)) } };
      case "createFilesystem":
        return this.#createFilesystem(call.body as { name: string; region: string });
      case "filesystemDelete":
        return this.#deleteFilesystem(String(call.params.id));
      case "listSSHKeys":
        // The account's one registered key (the adapter's verify() looks for its configured name).
        return { status: 200, body: { data: [{ id: "5f1c0ffee5f1c0ffee5f1c0ffee5f1c0", name: STUB_LAMBDA_SSH_KEY_NAME, public_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIStubStubStubStubStubStubStubStubStubStubStub lessor-stub" }] } };
      default:
        // The document has it; the stub does not serve it. Loud: the server records a violation.
        throw new Error(`the stub does not serve ${call.operationId}`);
    }
  }

  #json(m: CoreMachine<InstanceExtra>) {
    const json = instanceJson(m);
    const status = this.statusOverride.get(m.id);
    return status ? { ...json, status } : json;
  }

  /** A filesystem with `is_in_use` as it is now: mounted by an instance not terminated. */
  #fs(f: Filesystem): Filesystem {
    return { ...f, is_in_use: this.core.list().some((m) => m.extra.mounts.some((x) => x.file_system_id === f.id)) };
  }

  #createFilesystem(body: { name: string; region: string }): StubAnswer {
    const gated = refusal(this.core.gate(`volume:${body.name}`), WORDS);
    if (gated) return gated;
    if (!Object.hasOwn(LAMBDA_REGIONS, body.region)) return { status: 400, body: { error: { code: "global/invalid-parameters", message: `Region ${body.region} does not exist.` } } };
    if ([...this.filesystems.values()].some((f) => f.name === body.name)) return { status: 400, body: { error: { code: "global/duplicate", message: "A filesystem with this name already exists." } } };
    const id = crypto.randomUUID().replace(/-/g, "");
    const f: Filesystem = {
      id, name: body.name, mount_point: `/lambda/nfs/${body.name}`, created: new Date(this.core.now()).toISOString(),
      created_by: { id: "u0", email: "stub@lessor.invalid", status: "active" }, is_in_use: false, region: regionJson(body.region), bytes_used: 0,
    };
    this.filesystems.set(id, f);
    return { status: 200, body: { data: f } };
  }

  #deleteFilesystem(id: string): StubAnswer {
    const gated = refusal(this.core.gate(`volume:${id}`), WORDS);
    if (gated) return gated;
    const f = this.filesystems.get(id);
    if (!f) return { status: 404, body: { error: { code: "global/object-does-not-exist", message: "Filesystem was not found." } } };
    // "The filesystem must not be mounted to any running instances at the time of deletion."
    if (this.#fs(f).is_in_use) return { status: 400, body: { error: { code: "filesystems/filesystem-in-use", message: "Filesystem is in use." } } };
    this.filesystems.delete(id);
    return { status: 200, body: { data: { deleted_ids: [id] } } };
  }

  #launch(body: Record<string, any>): StubAnswer {
    const gated = refusal(this.core.gate(`create:${body.name ?? ""}`), WORDS);
    if (gated) return gated;
    const injected = takeInjected(this.injected, body);
    if (injected) return injected;
    const type = LAMBDA_INSTANCE_TYPES.find((t) => t.name === body.instance_type_name);
    if (!type) {
      return { status: 404, body: { error: { code: "global/object-does-not-exist", message: "Instance type not found.", suggestion: "List instance types and try again." } } };
    }
    const keys: string[] = body.ssh_key_names ?? [];
    if (!keys.every((k) => k === STUB_LAMBDA_SSH_KEY_NAME)) {
      return { status: 400, body: { error: { code: "global/invalid-parameters", message: `SSH key "${keys.find((k) => k !== STUB_LAMBDA_SSH_KEY_NAME)}" does not exist.` } } };
    }
    const badUserData = typeof body.user_data === "string" ? userDataProblem(body.user_data) : null;
    if (badUserData) return { status: 400, body: { error: { code: "global/invalid-parameters", message: badUserData } } };
    const mounts: InstanceExtra["mounts"] = body.file_system_mounts ?? [];
    for (const m of mounts) {
      const f = this.filesystems.get(m.file_system_id);
      if (!f) return { status: 404, body: { error: { code: "global/object-does-not-exist", message: "Filesystem was not found." } } };
      if (f.region.name !== body.region_name) {
        return { status: 400, body: { error: { code: "instance-operations/launch/file-system-in-wrong-region", message: `Filesystem ${f.name} is in ${f.region.name}.` } } };
      }
    }
    const capacity = { status: 400, body: { error: { code: "instance-operations/launch/insufficient-capacity", message: "Not enough capacity to fulfill launch request." } } };
    if (!type.regions.includes(body.region_name)) return capacity;
    const offerId = `${body.region_name}:${type.name}`;
    const offer: CoreOffer = {
      offer_id: offerId,
      host_id: offerId,
      region: body.region_name,
      gpu_name: type.gpu_description,
      num_gpus: type.specs.gpus,
      price_per_hour: type.price_cents_per_hour / 100,
      // Nothing bills after a terminate and there is no stopped state: no disk is kept.
      disk_price_per_hour: 0,
    };
    const outcome = this.core.create({ label: body.name ?? "", offer, cmd: body.user_data ?? null, extra: { type, region: body.region_name, ssh_key_names: keys, tags: body.tags ?? [], mounts } });
    if (outcome.kind === "no_capacity") return capacity;
    if (outcome.kind === "ambiguous") return ambiguous(outcome.answer, WORDS);
    return { status: 200, body: { data: { instance_ids: [outcome.machine.id] } } };
  }

  /** Terminates every named instance, or none when one is unknown (404), as one operation. */
  #terminate(ids: string[]): StubAnswer {
    // One call on several machines: each is a target, and the first refusal refuses the call.
    for (const id of ids) {
      const gated = refusal(this.core.gate(`machine:${id}`), WORDS);
      if (gated) return gated;
    }
    const found = ids.map((id) => this.core.get(id));
    if (found.some((m) => !m || m.clock.status === "TERMINATED")) return NOT_FOUND;
    const terminated = found.map((m) => {
      this.core.destroy(m!.id);
      return { ...this.#json(m!), status: "terminating" };
    });
    return { status: 200, body: { data: { terminated_instances: terminated } } };
  }
}

/** The instance types answer (GET /api/v1/instance-types) for `types`. */
export function lambdaInstanceTypesBody(types: readonly InstanceType[]) {
  return { data: Object.fromEntries(types.map((t) => [t.name, { instance_type: typeJson(t), regions_with_capacity_available: t.regions.map(regionJson) }])) };
}

function typeJson(t: InstanceType) {
  return { name: t.name, description: t.description, gpu_description: t.gpu_description, price_cents_per_hour: t.price_cents_per_hour, specs: t.specs };
}

function regionJson(name: string) {
  return { name, description: LAMBDA_REGIONS[name] ?? name };
}

/** Lambda's words for a sim status; it has no stopped state (EXITED never happens here). */
const STATUS: Record<SimStatus, string> = {
  PROVISIONING: "booting",
  STARTING: "booting",
  RUNNING: "active",
  EXITED: "unhealthy",
  ERROR: "unhealthy",
  TERMINATED: "terminated",
};

function instanceJson(m: CoreMachine<InstanceExtra>) {
  const x = m.extra;
  const up = { available: m.clock.status === "RUNNING" };
  return {
    id: m.id,
    name: m.label,
    status: STATUS[m.clock.status],
    ssh_key_names: x.ssh_key_names,
    file_system_names: x.mounts.map((f) => f.file_system_id),
    file_system_mounts: x.mounts,
    region: regionJson(x.region),
    instance_type: typeJson(x.type),
    actions: { migrate: { available: false }, rebuild: up, restart: up, cold_reboot: up, terminate: { available: true } },
    tags: x.tags,
    // An address once the VM is up.
    ...(m.clock.status === "RUNNING" ? { ip: "198.51.100.2" } : {}),
  };
}
