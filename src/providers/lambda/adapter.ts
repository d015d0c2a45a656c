/**
 * Lambda Cloud, over its API 1.10.0 (../shared/provider-contracts/lambda-cloud-openapi.json).
 *
 * Server `https://cloud.lambda.ai`, paths `/api/v1/...`; answers are `{"data": ...}` or
 * `{"error": {code, message, suggestion?}}`. Lambda has no stop and no start: an instance runs
 * until terminated, so the capabilities say so and the core destroys where it would stop.
 * Every instance carries the lease's label in a tag (LAMBDA_LABEL_TAG) and, where it fits in the
 * 64 characters a name may have, as its `name` (lambdaInstanceName); the list has no filter.
 *
 * Rate limits (about 1 request/s, 1 launch per 12 s) are not in the document, which also
 * documents no 429: a 429 is still taken as a refusal to wait out, and 5xx as unknown.
 */
import { classifyGpu, vramOf } from "../../catalog/gpu-classes";
import type { Offer } from "../../catalog/offer";
import {
  declareCapabilities,
  normalizedStatus,
  ProviderError,
  type CreateMachineInput,
  type CreateVolumeInput,
  type Machine,
  type MachineEndpoint,
  type MachineStatus,
  type OfferListing,
  type Provider,
  type ProviderCapabilities,
  type Volume,
} from "../contract";
import { agentUserData, withSecretsRedacted } from "../agent-start";
import { isRecord, num, ProviderHttp, publicEndpoint, retryAfterMs, str, usd, type HttpAnswer, type HttpProviderOptions } from "../http";

export const LAMBDA_BASE_URL = "https://cloud.lambda.ai";
/** Lambda's published limits: a 429 without Retry-After waits this long (launch: one per 12 s). */
export const LAMBDA_READ_WAIT_MS = 1000;
export const LAMBDA_LAUNCH_WAIT_MS = 12_000;
/**
 * The least an instance bills for, ms (docs/design.md "The worst case": what replacing hosts may
 * add). The document has no billing records and states no granularity; Lambda's published billing
 * charges on-demand instances in one-minute increments, from when an instance passes its health
 * checks until it is terminated.
 */
export const LAMBDA_BILLING_INCREMENT_MS = 60_000;

const STATUS: Record<string, MachineStatus> = {
  booting: "starting",
  active: "running",
  unhealthy: "error",
  // Not gone yet: a terminate under way (or stalled) keeps the instance listed, and its lease
  // releasing, until Lambda says `terminated`. lessor has no state between, and a machine on
  // its way out will not run again: an error, which the lease replaces or releases.
  terminating: "error",
  terminated: "terminated",
  // A preempted instance is gone and does not come back.
  preempted: "terminated",
};

/** The tag that carries an instance's label (a RequestedTagEntry key: `^[a-z][a-z0-9-:]+$`). */
export const LAMBDA_LABEL_TAG = "lessor-label";
/** An instance name's most characters (the launch request's and the Instance's `name`). */
export const LAMBDA_NAME_MAX = 64;

/**
 * The instance's name for a label: the label itself when it fits in LAMBDA_NAME_MAX, else its
 * first 63 characters and `~`. A label can reach 65 characters (src/lease/label.ts: a 24-character
 * installation id and attempt 10), and a lease's prefix is at most 62, so the name still starts
 * with every prefix lessor lists by, while the `~` keeps a cut attempt number from ever reading as
 * another attempt. The label itself is read back from the tag (LAMBDA_LABEL_TAG).
 */
export function lambdaInstanceName(label: string): string {
  return label.length <= LAMBDA_NAME_MAX ? label : `${label.slice(0, LAMBDA_NAME_MAX - 1)}~`;
}

/** Statuses in which a terminate has nothing left to do. */
const GONE_OR_GOING: ReadonlySet<string> = new Set(["terminated", "terminating", "preempted"]);

export interface LambdaProviderOptions extends HttpProviderOptions {
  /**
   * The launch body requires `ssh_key_names` with exactly one key, already registered with
   * Lambda: this installation's key name (an operator setting, like the API key).
   */
  sshKeyName: string;
}

interface LambdaInstance {
  id: string;
  name?: string;
  status: string;
  region?: { name?: string };
  instance_type?: { name?: string; price_cents_per_hour?: number };
  tags?: Array<{ key?: string; value?: string }>;
  /** The public IPv4 address, once Lambda has given it one. */
  ip?: string;
}

/** `<region>:<instance type>`: Lambda sells an instance type in a region, on hosts it does not name. */
export function lambdaOfferId(region: string, instanceType: string): string {
  return `${region}:${instanceType}`;
}

/** What this provider can do (contract.ts); the same for every account. */
export const LAMBDA_CAPABILITIES = declareCapabilities(["list_by_label", "run_agent", "volumes"], {
  stop: "Lambda has no stop: an instance runs until terminated, and the core destroys where it would stop.",
  start: "Lambda has no start: a terminated instance does not come back.",
  billing_records: "The document has no billing or usage records.",
  webhooks: "The document's webhooks speak of support tickets, not of instances.",
  stop_ends_billing: "There is no stop.",
  spot: "The document sells no interruptible instances.",
});

export class LambdaProvider implements Provider {
  readonly name = "lambda";
  readonly capabilities: ProviderCapabilities = LAMBDA_CAPABILITIES;
  readonly #http: ProviderHttp;
  readonly #sshKeyName: string;

  constructor(options: LambdaProviderOptions) {
    this.#http = new ProviderHttp(this.name, LAMBDA_BASE_URL, options);
    if (!options.sshKeyName) throw new Error("lambda: an SSH key name is required (launch requires exactly one)");
    this.#sshKeyName = options.sshKeyName;
  }

  async listOffers(): Promise<OfferListing> {
    const body = await this.#read("GET", "/api/v1/instance-types");
    const types = isRecord(body) && isRecord(body.data) ? Object.values(body.data) : [];
    const offers: Offer[] = [];
    let unclassified = 0;
    for (const item of types) {
      if (!isRecord(item) || !isRecord(item.instance_type) || !Array.isArray(item.regions_with_capacity_available)) continue;
      const t = item.instance_type;
      const name = str(t.name);
      const cents = num(t.price_cents_per_hour);
      const specs = isRecord(t.specs) ? t.specs : {};
      const gpus = num(specs.gpus);
      if (name === null || cents === null || cents <= 0 || gpus === null) continue;
      const regions = item.regions_with_capacity_available.map((r) => (isRecord(r) ? str(r.name) : null)).filter((r): r is string => !!r);
      // "H100 (80 GB SXM5)": the memory is in the name, which settles an A100's size.
      const cls = gpus > 0 ? classifyGpu(str(t.gpu_description) ?? name) : null;
      if (gpus > 0 && !cls) {
        unclassified += regions.length;
        continue;
      }
      for (const region of regions) {
        const offerId = lambdaOfferId(region, name);
        offers.push({
          id: `${this.name}:${offerId}`,
          provider: this.name,
          provider_offer_id: offerId,
          gpu: cls ?? "cpu",
          gpu_count: cls ? gpus : 0,
          vram_gb: cls ? vramOf(cls) : 0,
          vcpu: num(specs.vcpus) ?? 0,
          // GiB, taken as lessor's GB (as every provider's binary units are).
          memory_gb: num(specs.memory_gib) ?? 0,
          disk_gb: num(specs.storage_gib) ?? 0,
          region: region.toLowerCase(),
          host_id: offerId,
          hourly_usd: usd(cents / 100),
          // Lambda says only "has capacity" or not, and that capacity is often gone by launch.
          availability: "medium",
          spot: false,
        });
      }
    }
    return { offers, unclassified };
  }

  createMachine(input: CreateMachineInput): Promise<Machine> {
    return withSecretsRedacted(input, () => this.#create(input));
  }

  async #create(input: CreateMachineInput): Promise<Machine> {
    const sep = input.offer_id.indexOf(":");
    if (sep <= 0 || sep === input.offer_id.length - 1) {
      throw new ProviderError(this.name, "no_capacity", `lambda: offer id "${input.offer_id}" is not one this adapter made`);
    }
    const region = input.offer_id.slice(0, sep);
    const instanceType = input.offer_id.slice(sep + 1);
    const body: Record<string, unknown> = {
      region_name: region,
      instance_type_name: instanceType,
      ssh_key_names: [this.#sshKeyName],
      name: lambdaInstanceName(input.label),
      tags: [{ key: LAMBDA_LABEL_TAG, value: input.label }],
    };
    // Lambda has no environment field: the environment and the start line travel in `user_data`.
    const userData = agentUserData(input, this.name);
    if (userData !== null) body.user_data = userData;
    // Each filesystem at its own path (RequestedFilesystemMountEntry: under /home, /lambda/nfs or
    // /data); Lambda refuses another path, or a filesystem of another region, and nothing launches.
    if (input.volumes && input.volumes.length > 0) body.file_system_mounts = input.volumes.map((v) => ({ file_system_id: v.id, mount_point: v.path }));
    const path = "/api/v1/instance-operations/launch";
    let answer: HttpAnswer;
    try {
      answer = await this.#http.send("POST", path, { body });
    } catch (e) {
      throw new ProviderError(this.name, "ambiguous", `lambda: launch ${input.label}: ${(e as Error).message}, outcome unknown`);
    }
    if (answer.status >= 500 || answer.status === 408) {
      throw new ProviderError(this.name, "ambiguous", `lambda: launch ${input.label}: ${answer.status}, outcome unknown`);
    }
    if (answer.status !== 200) throw this.#error(`POST ${path}`, answer, true);
    const ids = isRecord(answer.body) && isRecord(answer.body.data) && Array.isArray(answer.body.data.instance_ids) ? answer.body.data.instance_ids : [];
    const id = ids.find((x): x is string => typeof x === "string");
    if (!id) throw new ProviderError(this.name, "ambiguous", `lambda: launch ${input.label}: 200 without an instance id, outcome unknown`);
    // The answer is only the id: read the instance back; until Lambda shows it, it is booting.
    const seen = await this.getMachine(id).catch(() => null);
    return (
      seen ?? {
        id,
        label: input.label,
        status: "starting",
        offer_id: input.offer_id,
        host_id: input.offer_id,
        region,
        hourly_usd: 0,
        stopped_hourly_usd: 0,
        created_at: 0,
      }
    );
  }

  /**
   * An active instance's port at its public address. A launch has no port field: a VM's ports are
   * all on its address, and what reaches them is the account's firewall (inbound rules that lessor
   * does not manage: the document's rules call replaces every rule of the account). Null until
   * the instance is active with an address.
   */
  async endpoint(machine: Machine, port: number): Promise<MachineEndpoint | null> {
    const found = await this.#instance(machine.id);
    const ip = str(found?.ip)?.trim();
    return found?.status === "active" && ip ? publicEndpoint(`http://${ip}:${port}`) : null;
  }

  /** The instance as Lambda answers it; null when Lambda no longer knows it. */
  async #instance(id: string): Promise<LambdaInstance | null> {
    const path = `/api/v1/instances/${encodeURIComponent(id)}`;
    const answer = await this.#http.retrying(() => this.#sendRead("GET", path));
    if (answer.status === 404) return null;
    const data = isRecord(answer.body) ? answer.body.data : null;
    if (answer.status !== 200 || !isInstance(data)) throw this.#error(`GET ${path}`, answer);
    return data;
  }

  async getMachine(id: string): Promise<Machine | null> {
    const data = await this.#instance(id);
    if (data === null) return null;
    const machine = this.#machine(data);
    return machine.status === "terminated" ? null : machine;
  }

  /**
   * A filesystem (`POST /api/v1/filesystems`) in `region`, named after the label (a filesystem's
   * name allows no `_`: lambdaFilesystemName). Lambda's filesystems have no size and the document
   * states no price: `size_gb` is lessor's own figure, `usd_per_gb_month` null. Never retried.
   */
  async createVolume(input: CreateVolumeInput): Promise<Volume> {
    const path = "/api/v1/filesystems";
    let answer: HttpAnswer;
    try {
      answer = await this.#http.send("POST", path, { body: { name: lambdaFilesystemName(input.label), region: input.region } });
    } catch (e) {
      throw new ProviderError(this.name, "ambiguous", `lambda: create filesystem ${input.label}: ${(e as Error).message}, outcome unknown`);
    }
    const data = isRecord(answer.body) ? answer.body.data : null;
    if (answer.status === 200 && isFilesystem(data)) return lambdaVolume(data, input.size_gb);
    if (answer.status >= 500 || answer.status === 408 || answer.status === 200) {
      throw new ProviderError(this.name, "ambiguous", `lambda: create filesystem ${input.label}: ${answer.status}, outcome unknown`);
    }
    throw this.#error(`POST ${path}`, answer, true);
  }

  /** The document states neither a filesystem's size nor its price: null, never a guess. */
  volumePrice(_region: string): number | null {
    return null;
  }

  /** `GET /api/v1/file-systems` (the document's path for the list) has no filter: filtered by name here. */
  async listVolumes(prefix: string): Promise<Volume[]> {
    const body = await this.#read("GET", "/api/v1/file-systems");
    const all = isRecord(body) && Array.isArray(body.data) ? body.data : [];
    const wanted = lambdaFilesystemName(prefix);
    return all.filter(isFilesystem).filter((f) => f.name.startsWith(wanted)).map((f) => lambdaVolume(f, 0));
  }

  /** `DELETE /api/v1/filesystems/{id}`: refused while mounted (`filesystems/filesystem-in-use`); 404 is gone already. */
  async deleteVolume(id: string): Promise<void> {
    const path = `/api/v1/filesystems/${encodeURIComponent(id)}`;
    const answer = await this.#http.retrying(() => this.#sendRead("DELETE", path));
    if (answer.status === 200 || answer.status === 404) return;
    throw this.#error(`DELETE ${path}`, answer, answer.status === 400);
  }

  /** The account's SSH keys: proves the key works and that the launch's SSH key name exists. */
  async verify(): Promise<void> {
    const body = await this.#read("GET", "/api/v1/ssh-keys");
    const keys = isRecord(body) && Array.isArray(body.data) ? body.data : [];
    const names = keys.map((k) => (isRecord(k) ? str(k.name) : null));
    if (!names.includes(this.#sshKeyName)) {
      throw new ProviderError(this.name, "not_found", `the account has no SSH key named "${this.#sshKeyName}"; launches would be refused`);
    }
  }

  async listMachines(prefix: string): Promise<Machine[]> {
    const body = await this.#read("GET", "/api/v1/instances");
    const list = isRecord(body) && Array.isArray(body.data) ? body.data : [];
    return list
      .filter(isInstance)
      .map((i) => this.#machine(i))
      .filter((m) => m.label.startsWith(prefix))
      .filter((m) => m.status !== "terminated");
  }

  async stopMachine(id: string): Promise<void> {
    throw new ProviderError(this.name, "unavailable", `lambda: instance ${id} cannot be stopped: Lambda has no stop (capabilities.stop is false); destroy it instead`);
  }

  async startMachine(id: string): Promise<void> {
    throw new ProviderError(this.name, "unavailable", `lambda: instance ${id} cannot be started: Lambda has no start (capabilities.start is false)`);
  }

  async destroyMachine(id: string): Promise<void> {
    const path = "/api/v1/instance-operations/terminate";
    const answer = await this.#http.retrying(() => this.#sendRead("POST", path, { instance_ids: [id] }));
    if (answer.status === 200 || answer.status === 404) return;
    // A 400 for an instance that is already terminated: gone is gone, whatever the answer said.
    // One already `terminating` has its terminate: the lease's listing sees when it is gone.
    if (answer.status === 400 && GONE_OR_GOING.has(await this.#statusOf(id))) return;
    throw this.#error(`POST ${path}`, answer);
  }

  /** The instance's own status word; `terminated` when Lambda no longer knows it. */
  async #statusOf(id: string): Promise<string> {
    return (await this.#instance(id))?.status ?? "terminated";
  }

  #machine(i: LambdaInstance): Machine {
    const status = normalizedStatus(this.name, STATUS, i.status, `instance ${i.id}`);
    const region = i.region?.name ?? "";
    const type = i.instance_type?.name ?? "";
    const offerId = region && type ? lambdaOfferId(region, type) : "";
    const tagged = i.tags?.find((t) => t?.key === LAMBDA_LABEL_TAG)?.value;
    return {
      id: i.id,
      label: typeof tagged === "string" ? tagged : (i.name ?? ""),
      status,
      offer_id: offerId,
      host_id: offerId,
      region: region.toLowerCase(),
      hourly_usd: usd((num(i.instance_type?.price_cents_per_hour) ?? 0) / 100),
      // Nothing bills after a terminate, and there is no stopped state.
      stopped_hourly_usd: 0,
      // An Instance has no creation time in the document.
      created_at: 0,
    };
  }

  async #read(method: string, path: string): Promise<unknown> {
    const answer = await this.#http.retrying(() => this.#sendRead(method, path));
    if (answer.status < 200 || answer.status >= 300) throw this.#error(`${method} ${path}`, answer);
    return answer.body;
  }

  #sendRead(method: string, path: string, body?: unknown): Promise<HttpAnswer> {
    return this.#http.sendRepeatable(method, path, { body }, (call, answer) => this.#error(call, answer));
  }


  /** `{"error": {code, message}}`: the code decides, the message is for people. */
  #error(call: string, answer: HttpAnswer, launch = false): ProviderError {
    const err = isRecord(answer.body) && isRecord(answer.body.error) ? answer.body.error : {};
    const code = str(err.code) ?? "";
    const message = `lambda: ${call}: ${answer.status}${code ? ` ${code}` : ""}${str(err.message) ? `: ${str(err.message)}` : ""}`;
    if (answer.status === 429) {
      return new ProviderError(this.name, "rate_limited", message, retryAfterMs(answer.headers) ?? (launch ? LAMBDA_LAUNCH_WAIT_MS : LAMBDA_READ_WAIT_MS));
    }
    if (answer.status === 401 || code === "global/invalid-api-key") return new ProviderError(this.name, "auth", message);
    // The launch's documented 403s: an inactive account, and `global/invalid-address` (the
    // billing address, ApiErrorInvalidBillingAddress): refusals about the account's billing.
    if (code === "global/account-inactive" || code === "global/invalid-address") return new ProviderError(this.name, "insufficient_funds", message);
    if (answer.status === 403) return new ProviderError(this.name, "auth", message);
    if (launch) {
      // No capacity, or a quota reached: nothing was launched, and another offer may do.
      if (code === "instance-operations/launch/insufficient-capacity" || code === "global/quota-exceeded") {
        return new ProviderError(this.name, "no_capacity", message);
      }
      // The launch's other documented refusals (`global/invalid-parameters`,
      // `instance-operations/launch/file-system-in-wrong-region`, `global/object-does-not-exist`)
      // and any other 4xx: Lambda answered no, nothing was launched, and asking again cannot
      // change the answer.
      if (answer.status >= 400 && answer.status < 500) return new ProviderError(this.name, "refused", message);
    }
    if (answer.status === 404) return new ProviderError(this.name, "not_found", message);
    return new ProviderError(this.name, "unavailable", message);
  }
}

/** A Filesystem of the document, as far as lessor reads it. */
interface LambdaFilesystem {
  id: string;
  name: string;
  region: { name: string };
  created: string;
  bytes_used?: number;
}

function isFilesystem(x: unknown): x is LambdaFilesystem {
  return isRecord(x) && typeof x.id === "string" && typeof x.name === "string" && isRecord(x.region) && typeof x.region.name === "string";
}

/**
 * A label as a filesystem's name, which must match `^[a-zA-Z]+[0-9a-zA-Z-]*$`: the volume id's
 * `_` becomes `-` (`lessor-dev-vol-01...`), and back (lessor's labels have no other `_`, and
 * installation ids no `-`, so the volume part is always the last `-vol-`).
 */
export function lambdaFilesystemName(label: string): string {
  return label.replace(/_/g, "-");
}

function labelOfFilesystem(name: string): string {
  const at = name.lastIndexOf("-vol-");
  return at < 0 ? name : `${name.slice(0, at)}-vol_${name.slice(at + 5)}`;
}

function lambdaVolume(f: LambdaFilesystem, sizeGb: number): Volume {
  const created = Date.parse(f.created);
  return {
    id: f.id,
    label: labelOfFilesystem(f.name),
    region: f.region.name.toLowerCase(),
    size_gb: sizeGb || Math.ceil((num(f.bytes_used) ?? 0) / 1e9),
    usd_per_gb_month: null,
    created_at: Number.isNaN(created) ? null : created,
  };
}

function isInstance(x: unknown): x is LambdaInstance {
  return isRecord(x) && typeof x.id === "string" && typeof x.status === "string";
}
