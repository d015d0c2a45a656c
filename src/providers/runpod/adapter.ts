/**
 * RunPod, over its REST API v2 (../shared/provider-contracts/runpod-v2-openapi.yaml, OpenAPI 3.1).
 *
 * The document's server is `https://api.runpod.io` and its paths start with `/v2`, so requests
 * go to `https://api.runpod.io/v2/...`. Errors are RFC 9457 problem+json `{title, status, detail}`.
 * Every pod carries the lease's label as its `name` (the document has no tags and no idempotency
 * key), and `GET /v2/pods` has no name filter, so listing by label filters client-side.
 */
import { classifyGpu, vramOf } from "../../catalog/gpu-classes";
import type { Availability, Offer } from "../../catalog/offer";
import {
  declareCapabilities,
  normalizedStatus,
  readBackAction,
  ProviderError,
  type BillingListing,
  type BillingRecord,
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
import { agentEnv, shellArgs, startScript, withSecretsRedacted } from "../agent-start";
import { isRecord, num, ProviderHttp, publicEndpoint, retryAfterMs, str, usd, type HttpAnswer, type HttpProviderOptions } from "../http";
import { rfc3339 } from "../../time";

export const RUNPOD_BASE_URL = "https://api.runpod.io";

/**
 * Offers are made for these GPU counts, each no larger than the type's `maxCount` in its cloud.
 * The catalog's availability (per data center) and price are computed for one `count` and one
 * `cloud` per request (the `count` and `cloud` query parameters, defaults 1 and SECURE), so one
 * request is made per (cloud, count): 2 x 4 = 8 reads a refresh. Powers of two because that is
 * how multi-GPU pods are sold and how lessor's specs ask (`h100:8`).
 */
export const RUNPOD_GPU_COUNTS = [1, 2, 4, 8] as const;
const CLOUDS = ["SECURE", "COMMUNITY"] as const;
type Cloud = (typeof CLOUDS)[number];

/** Container disk given to every pod, and so the disk of every offer (the catalog names none). */
export const RUNPOD_CONTAINER_DISK_GB = 50;
/**
 * `image` is required by CreatePodRequest; used when a lease names none. RunPod's base image (sh,
 * curl and Python for lessor's agent; no PyTorch), pinned by digest so that every lease without an
 * image runs the same bits (docs/design.md "The configuration check and digest pins").
 */
export const RUNPOD_DEFAULT_IMAGE = "runpod/base:1.4.0-cuda1281-ubuntu2404@sha256:e6eb5a38bd3b321f41e7c584334c9ebc15e1e529574c7f2c866d148990cfb817";
/** The CUDA version RUNPOD_DEFAULT_IMAGE is built on (its tag: `cuda1281`), so needs. */
export const RUNPOD_DEFAULT_IMAGE_MIN_CUDA = 12.8;
/**
 * The market is read with `minCudaVersion` ("Minimum CUDA version for availability and lowest-price
 * calculations"): a data center is listed only where it has this GPU on hosts that run CUDA this
 * new, and each offer says so (`cuda_max`). CreatePodRequest has no CUDA field, so the catalog
 * is the one place RunPod lets lessor ask for it; the default image's need is asked, so a lease
 * without an image of its own always lands where its image runs.
 */
export const RUNPOD_MIN_CUDA = RUNPOD_DEFAULT_IMAGE_MIN_CUDA;
/**
 * What a stopped pod's kept disk costs. The document's `stop` action releases "GPU/CPU compute
 * while keeping its disk" (podAction), so an EXITED pod keeps its container disk (`disk`, which
 * lessor always sets) and any `mounts.persistent`, and they bill while it is stopped; its `cost`
 * (compute, "0.0 when EXITED") says nothing of them. The document gives no disk price, so this is
 * RunPod's published price for a stopped pod's disk, $0.20/GB-month, over 730 hours.
 */
export const RUNPOD_STOPPED_USD_PER_GB_HOUR = 0.2 / 730;

/**
 * The least a pod bills for, ms (docs/design.md "The worst case": what replacing hosts may add).
 * The document's billing records only sum a pod's cost into hourly buckets and state no
 * granularity; RunPod's published billing charges compute and storage by the second.
 */
export const RUNPOD_BILLING_INCREMENT_MS = 1_000;

/**
 * RunPod's billing buckets for `bucketSize=hour` are clock hours (UTC): the document snaps a
 * query's `startTime` "down to the start of its bucketSize bucket" and its `endTime` "up to the
 * end of the bucketSize bucket it lands in", so hour boundaries are the grid of every record.
 */
const BILLING_BUCKET_MS = 3_600_000;

/**
 * How long after an hourly bucket closes its pod records are taken as final. RunPod gives no
 * completeness marker: the document says a bucket is returned while it is "the current
 * (in-progress) bucket" (`lastN`, and `endTime` "Defaults to now"), so a bucket's amount grows
 * while it runs, and it says nothing of when a closed bucket stops changing (usage metered a
 * little late, a correction). lessor stores a record once and a receipt never changes, so taking
 * a bucket too early loses money without a trace, while waiting only makes a receipt later: one
 * more hour, a full bucket, is far beyond a metering flush and delays a receipt to at most two
 * hours after its lease's release.
 */
export const RUNPOD_BILLING_LAG_MS = 60 * 60_000;

/**
 * The end of the last hourly bucket that closed at least RUNPOD_BILLING_LAG_MS before `now`:
 * every pod record of every bucket ending at or before it is final (contract.ts
 * `complete_through`). Always on an hour boundary, so a lease released by then has every bucket
 * it touched closed.
 */
export function runpodBillingCompleteThrough(now: number): number {
  return Math.floor((now - RUNPOD_BILLING_LAG_MS) / BILLING_BUCKET_MS) * BILLING_BUCKET_MS;
}

const STATUS: Record<string, MachineStatus> = {
  PROVISIONING: "provisioning",
  STARTING: "starting",
  RUNNING: "running",
  EXITED: "stopped",
  ERROR: "error",
  TERMINATED: "terminated",
};

const AVAILABILITY: Record<string, Availability | null> = { HIGH: "high", MEDIUM: "medium", LOW: "low", NONE: null };

/**
 * A create refused for want of machines. The document gives a create's refusals no codes, only
 * statuses (400 "malformed or conflicts with request rules", 422) with a free-text `detail`, so
 * capacity is recognized by RunPod's own wording only ("There are no longer any instances
 * available with the requested specifications"), never by a lone word such as "unavailable":
 * any other 400/409/422 on a create is a final refusal (`refused`), not a capacity miss.
 */
const NO_CAPACITY = /no longer any instances|no (gpus?|instances?|machines?|capacity) (are )?available|not enough (capacity|gpus?)|insufficient capacity|out of (stock|capacity)/i;
const NO_FUNDS = /insufficient (funds|balance|credit)|balance (is )?too low|not enough (funds|balance|credit)/i;

export interface RunPodProviderOptions extends HttpProviderOptions {
  /** GPU counts to make offers for (default RUNPOD_GPU_COUNTS). */
  gpuCounts?: readonly number[];
  containerDiskGb?: number;
  defaultImage?: string;
}

interface PodJson {
  id: string;
  name: string;
  status: string;
  cost?: number;
  cloud?: string;
  dataCenterId?: string | null;
  gpu?: { id: string; count?: number };
  mounts?: { persistent?: { size?: number } };
  disk?: number;
  /** The ports the pod exposes, `port/protocol` (ContainerConfig). */
  ports?: string[];
  createdAt?: string;
}

/** `<cloud>:<data center>:<count>:<gpu type id>`; the GPU type id goes last because it has spaces. */
export function runpodOfferId(cloud: Cloud, dataCenterId: string, count: number, gpuTypeId: string): string {
  return `${cloud}:${dataCenterId}:${count}:${gpuTypeId}`;
}

export function parseRunpodOfferId(id: string): { cloud: Cloud; dataCenterId: string; count: number; gpuTypeId: string } | null {
  const m = /^(SECURE|COMMUNITY):([^:]+):([1-9][0-9]*):(.+)$/.exec(id);
  return m ? { cloud: m[1] as Cloud, dataCenterId: m[2]!, count: Number(m[3]), gpuTypeId: m[4]! } : null;
}

/** What this provider can do (contract.ts); the same for every account. */
export const RUNPOD_CAPABILITIES = declareCapabilities(["stop", "start", "list_by_label", "billing_records", "run_agent", "volumes"], {
  webhooks: "The document describes no signed webhooks for pods: ingress takes RunPod's only as an unsigned hint (docs/ingress.md).",
  stop_ends_billing: "A stop keeps the pod's disk (podAction), and the kept disk bills (RUNPOD_STOPPED_USD_PER_GB_HOUR).",
  spot: "CreatePodRequest has no interruptible/bid field in REST v2.",
});

export class RunPodProvider implements Provider {
  readonly name = "runpod";
  readonly capabilities: ProviderCapabilities = RUNPOD_CAPABILITIES;
  readonly #http: ProviderHttp;
  readonly #gpuCounts: readonly number[];
  readonly #diskGb: number;
  readonly #defaultImage: string;

  constructor(options: RunPodProviderOptions) {
    this.#http = new ProviderHttp(this.name, RUNPOD_BASE_URL, options);
    this.#gpuCounts = options.gpuCounts ?? RUNPOD_GPU_COUNTS;
    this.#diskGb = options.containerDiskGb ?? RUNPOD_CONTAINER_DISK_GB;
    this.#defaultImage = options.defaultImage ?? RUNPOD_DEFAULT_IMAGE;
  }

  async listOffers(): Promise<OfferListing> {
    const offers: Offer[] = [];
    let unclassified = 0;
    // One at a time: RunPod's quota is per user and per minute, and the refresh is not urgent.
    for (const cloud of CLOUDS) {
      for (const count of this.#gpuCounts) {
        const query = { include: "AVAILABILITY", cloud, count, minCudaVersion: String(RUNPOD_MIN_CUDA) };
        const body = await this.#read("GET", "/v2/catalog/gpus", query);
        const gpus = isRecord(body) && Array.isArray(body.gpus) ? body.gpus : [];
        for (const gpu of gpus) {
          const made = this.#offers(gpu, cloud, count);
          offers.push(...made.offers);
          unclassified += made.unclassified;
        }
      }
    }
    return { offers, unclassified };
  }

  /** The offers of one GPU type in one cloud at one count: one a data center that has it. */
  #offers(gpu: unknown, cloud: Cloud, count: number): OfferListing {
    const none = { offers: [], unclassified: 0 };
    if (!isRecord(gpu)) return none;
    const id = str(gpu.id);
    const key = cloud === "SECURE" ? "secure" : "community";
    const price = isRecord(gpu.price) ? num(gpu.price[key]) : null;
    const maxCount = isRecord(gpu.maxCount) ? num(gpu.maxCount[key]) : null;
    if (id === null || gpu[key] !== true || price === null || price <= 0 || maxCount === null || count > maxCount) return none;
    const places = (Array.isArray(gpu.dataCenters) ? gpu.dataCenters : []).filter(
      (dc): dc is { id: string; availability: string } => isRecord(dc) && typeof dc.id === "string" && AVAILABILITY[String(dc.availability)] != null,
    );
    if (places.length === 0) return none;
    // `id` is the full name ("NVIDIA A100 80GB PCIe"); `name` drops the maker and sometimes the memory.
    const cls = classifyGpu(id, num(gpu.memory));
    if (!cls) return { offers: [], unclassified: places.length };
    const offers = places.map((dc): Offer => {
      const offerId = runpodOfferId(cloud, dc.id, count, id);
      return {
        id: `${this.name}:${offerId}`,
        provider: this.name,
        provider_offer_id: offerId,
        gpu: cls,
        gpu_count: count,
        vram_gb: vramOf(cls),
        // The catalog states no vCPU or RAM for a GPU pod: 0 is "not promised", so a spec's
        // min_cpu / min_memory_gb never selects a RunPod offer on a guess.
        vcpu: 0,
        memory_gb: 0,
        disk_gb: this.#diskGb,
        region: dc.id.toLowerCase(),
        host_id: runpodHostId(dc.id, cloud, id),
        hourly_usd: usd(price * count),
        // An EXITED pod keeps its container disk, billed (runpodStoppedHourlyUsd).
        stopped_hourly_usd: runpodStoppedHourlyUsd(this.#diskGb, 0),
        availability: AVAILABILITY[dc.availability]!,
        spot: false,
        cuda_max: RUNPOD_MIN_CUDA,
      };
    });
    return { offers, unclassified: 0 };
  }

  createMachine(input: CreateMachineInput): Promise<Machine> {
    return withSecretsRedacted(input, () => this.#create(input));
  }

  async #create(input: CreateMachineInput): Promise<Machine> {
    const offer = parseRunpodOfferId(input.offer_id);
    if (!offer) throw new ProviderError(this.name, "no_capacity", `runpod: offer id "${input.offer_id}" is not one this adapter made`);
    const body: Record<string, unknown> = {
      name: input.label,
      image: input.image ?? this.#defaultImage,
      gpu: { id: offer.gpuTypeId, count: offer.count },
      cloud: offer.cloud,
      dataCenterIds: [offer.dataCenterId],
      disk: this.#diskGb,
    };
    // `env` is a map of strings (ContainerConfig), so any value travels as written. `args` goes to
    // the image's entrypoint; through `sh -c`, as on every provider (shellArgs): `args` alone is
    // no shell. With the agent, the agent runs `cmd` (agent-start.ts).
    const env = agentEnv(this.name, input);
    if (Object.keys(env).length > 0) body.env = env;
    // Each port as `port/http`: RunPod's proxy publishes it at runpodProxyUrl (HTTPS, no address to wait for).
    if (input.ports && input.ports.length > 0) body.ports = input.ports.map(runpodHttpPort);
    const script = startScript(input);
    if (script) body.args = shellArgs(script);
    if (input.volumes && input.volumes.length > 0) {
      // PodMounts.network holds at most one NetworkMount ("maxItems is 1 today"); the volume must be in the pod's data center.
      if (input.volumes.length > 1) throw new ProviderError(this.name, "refused", `runpod: a pod mounts at most one network volume, not ${input.volumes.length}`);
      body.mounts = { network: input.volumes.map((v) => ({ volumeId: v.id, path: v.path })) };
    }
    let answer: HttpAnswer;
    try {
      answer = await this.#http.send("POST", "/v2/pods", { body });
    } catch (e) {
      // The request may have reached RunPod: only listing by label can tell (guarantee 2).
      throw new ProviderError(this.name, "ambiguous", `runpod: create ${input.label}: ${(e as Error).message}, outcome unknown`);
    }
    if (answer.status === 200 || answer.status === 201) {
      if (!isPod(answer.body)) throw new ProviderError(this.name, "ambiguous", `runpod: create ${input.label}: unreadable answer`);
      return this.#machine(answer.body);
    }
    if (answer.status >= 500 || answer.status === 408) {
      throw new ProviderError(this.name, "ambiguous", `runpod: create ${input.label}: ${answer.status}, outcome unknown`);
    }
    throw this.#error("POST /v2/pods", answer, true);
  }

  /**
   * A network volume (`POST /v2/network-volumes`) named by its label ("not required to be unique",
   * so the label is lessor's to keep unique) in the data center `region` names (RunPod's ids are
   * upper case, lessor's regions lower case). Never retried: a 5xx, a 408 or a dropped connection
   * leaves the outcome unknown. The document states no price: `usd_per_gb_month` is null, and what
   * the volume cost comes from GET /v2/billing/networkvolumes.
   */
  async createVolume(input: CreateVolumeInput): Promise<Volume> {
    const body = { name: input.label, size: input.size_gb, dataCenter: input.region.toUpperCase() };
    let answer: HttpAnswer;
    try {
      answer = await this.#http.send("POST", VOLUMES_PATH, { body });
    } catch (e) {
      throw new ProviderError(this.name, "ambiguous", `runpod: create volume ${input.label}: ${(e as Error).message}, outcome unknown`);
    }
    if ((answer.status === 200 || answer.status === 201) && isNetworkVolume(answer.body)) return runpodVolume(answer.body);
    if (answer.status >= 500 || answer.status === 408 || answer.status === 200 || answer.status === 201) {
      throw new ProviderError(this.name, "ambiguous", `runpod: create volume ${input.label}: ${answer.status}, outcome unknown`);
    }
    throw this.#error(`POST ${VOLUMES_PATH}`, answer, true);
  }

  /** `GET /v2/network-volumes` has no name filter: the account's volumes, filtered by label here. */
  async listVolumes(prefix: string): Promise<Volume[]> {
    const body = await this.#read("GET", VOLUMES_PATH);
    const volumes = isRecord(body) && Array.isArray(body.networkVolumes) ? body.networkVolumes : [];
    return volumes.filter(isNetworkVolume).filter((v) => v.name.startsWith(prefix)).map(runpodVolume);
  }

  /** `DELETE /v2/network-volumes/{id}` ("permanently deletes ... and releases its storage"); 404 is gone already. */
  async deleteVolume(id: string): Promise<void> {
    const path = `${VOLUMES_PATH}/${encodeURIComponent(id)}`;
    const answer = await this.#http.retrying(() => this.#sendRead("DELETE", path));
    if (answer.status === 204 || answer.status === 200 || answer.status === 404) return;
    throw this.#error(`DELETE ${path}`, answer, answer.status === 400 || answer.status === 409);
  }

  /**
   * A RUNNING pod that exposes `port` over HTTP is reached through RunPod's proxy; null before it
   * runs, for a port it does not expose, and for a pod that is gone.
   */
  async endpoint(machine: Machine, port: number): Promise<MachineEndpoint | null> {
    const path = podPath(machine.id);
    const answer = await this.#http.retrying(() => this.#sendRead("GET", path));
    if (answer.status === 404) return null;
    if (answer.status !== 200 || !isPod(answer.body)) throw this.#error(`GET ${path}`, answer);
    const pod = answer.body;
    if (pod.status !== "RUNNING" || !(pod.ports ?? []).includes(runpodHttpPort(port))) return null;
    return publicEndpoint(runpodProxyUrl(pod.id, port));
  }

  async getMachine(id: string): Promise<Machine | null> {
    const path = podPath(id);
    const answer = await this.#http.retrying(() => this.#sendRead("GET", path));
    if (answer.status === 404) return null;
    if (answer.status !== 200 || !isPod(answer.body)) throw this.#error(`GET ${path}`, answer);
    const machine = this.#machine(answer.body);
    return machine.status === "terminated" ? null : machine;
  }

  /** The pod list: one read that every key allowed to rent can make. */
  async verify(): Promise<void> {
    await this.#read("GET", "/v2/pods");
  }

  async listMachines(prefix: string): Promise<Machine[]> {
    const body = await this.#read("GET", "/v2/pods");
    const pods = isRecord(body) && Array.isArray(body.pods) ? body.pods : [];
    return pods
      .filter(isPod)
      .filter((p) => p.name.startsWith(prefix))
      .map((p) => this.#machine(p))
      .filter((m) => m.status !== "terminated");
  }

  async stopMachine(id: string): Promise<void> {
    await this.#act(id, "stop", ["stopped"]);
  }

  async startMachine(id: string): Promise<void> {
    // A pod already on its way up is what a start asks for.
    await this.#act(id, "start", ["provisioning", "starting", "running"]);
  }

  async destroyMachine(id: string): Promise<void> {
    // DELETE /v2/pods/{id} is documented as the same as the `terminate` action; 404 is gone already.
    const path = podPath(id);
    const answer = await this.#http.retrying(() => this.#sendRead("DELETE", path));
    if (answer.status === 204 || answer.status === 200 || answer.status === 404) return;
    throw this.#error(`DELETE ${path}`, answer);
  }

  /**
   * The account's pod billing records (`GET /v2/billing/pods?bucketSize=hour`, no `podId`: "records
   * are emitted per pod per bucket") for the hourly buckets from the one holding `from` up to
   * `complete_through`, which is measured back from `to`: the caller's clock (the reconciler
   * passes its `now`), so nothing here reads one. Only final buckets are asked for and returned:
   * a record is stored once and never updated, so a bucket still growing must never be reported.
   *
   * A record is one pod in one bucket ("one record is emitted per pod per bucket") and RunPod
   * gives it no id of its own, so its identity is the pod's id and the bucket's start, the same on
   * every fetch. Amounts are RunPod's own, in dollars ("Total pod cost in USD for the bucket"),
   * never recomputed; a record the adapter cannot read is passed on unreadable, so that the
   * reconciler counts it instead of it vanishing. The account's network volumes' records
   * (`GET /v2/billing/networkvolumes`, the same buckets) come with them, as `resource: volume`.
   */
  async listBillingRecords(window: { from: number; to: number }): Promise<BillingListing> {
    const complete_through = runpodBillingCompleteThrough(window.to);
    const start = Math.floor(Math.max(0, window.from) / BILLING_BUCKET_MS) * BILLING_BUCKET_MS;
    if (start >= complete_through) return { records: [], complete_through };
    const pods = (await this.#billingList("/v2/billing/pods", start, complete_through)).map(podBillingRecord);
    // Network volumes bill by the same buckets, final by the same lag (docs/billing.md "Volumes").
    const volumes = (await this.#billingList(VOLUME_BILLING_PATH, start, complete_through)).map(networkVolumeBillingRecord);
    // A bucket past complete_through (an in-progress one, were endTime ignored) is not final yet.
    return { records: [...pods, ...volumes].filter((r) => !(r.window_end > complete_through)), complete_through };
  }

  /**
   * One billing listing's records (`bucketSize=hour` from `start` to `end`), checked against its
   * `metadata.recordCount`: a listing cut short would settle on part of a bill.
   */
  async #billingList(path: string, start: number, end: number): Promise<unknown[]> {
    const body = await this.#read("GET", path, { bucketSize: "hour", startTime: rfc3339(start), endTime: rfc3339(end) });
    const raw = isRecord(body) && Array.isArray(body.records) ? body.records : null;
    if (raw === null) throw new ProviderError(this.name, "unavailable", `runpod: GET ${path}: the answer has no records`);
    const count = isRecord(body) && isRecord(body.metadata) ? num(body.metadata.recordCount) : null;
    if (count !== null && count !== raw.length) {
      throw new ProviderError(this.name, "unavailable", `runpod: GET ${path}: metadata.recordCount is ${count} but ${raw.length} records came`);
    }
    return raw;
  }

  /** The document states no price for a network volume: null, and its cost comes from its billing records. */
  volumePrice(_region: string): number | null {
    return null;
  }

  /** stop or start. 409 is "not valid in the current status": the pod is read back, never assumed. */
  async #act(id: string, action: "stop" | "start", wanted: readonly MachineStatus[]): Promise<void> {
    const path = `${podPath(id)}/action`;
    const answer = await this.#http.retrying(() => this.#sendRead("POST", path, undefined, { action }));
    if (answer.status === 200) return;
    if (answer.status === 404) throw new ProviderError(this.name, "not_found", `runpod: cannot ${action} ${id}: pod not found`);
    if (answer.status !== 409) throw this.#error(`POST ${path}`, answer);
    await readBackAction(this, id, `${action} ${id}`, "pod", wanted);
  }

  #machine(p: PodJson): Machine {
    const status = normalizedStatus(this.name, STATUS, p.status, `pod ${p.id}`);
    const cloud: Cloud = p.cloud === "COMMUNITY" ? "COMMUNITY" : "SECURE";
    const dc = p.dataCenterId ?? "";
    const created = p.createdAt ? Date.parse(p.createdAt) : NaN;
    return {
      id: p.id,
      label: p.name,
      status,
      offer_id: p.gpu ? runpodOfferId(cloud, dc, p.gpu.count ?? 1, p.gpu.id) : "",
      host_id: p.gpu ? runpodHostId(dc, cloud, p.gpu.id) : "",
      region: dc.toLowerCase(),
      // `cost` is what the pod bills now: 0.0 once EXITED.
      hourly_usd: num(p.cost) ?? 0,
      // A stop keeps the pod's disk (podAction): the container disk and any persistent mount bill.
      stopped_hourly_usd: runpodStoppedHourlyUsd(num(p.disk) ?? 0, num(p.mounts?.persistent?.size) ?? 0),
      created_at: Number.isNaN(created) ? 0 : created,
    };
  }

  /** A read whose every non-2xx answer is an error. */
  async #read(method: string, path: string, query?: Record<string, string | number>): Promise<unknown> {
    const answer = await this.#http.retrying(() => this.#sendRead(method, path, query));
    if (answer.status < 200 || answer.status >= 300) throw this.#error(`${method} ${path}`, answer);
    return answer.body;
  }

  /** A call safe to repeat: a transport failure or 5xx is `unavailable`, 429 is `rate_limited`. */
  #sendRead(method: string, path: string, query?: Record<string, string | number>, body?: unknown): Promise<HttpAnswer> {
    return this.#http.sendRepeatable(method, path, { query, body }, (call, answer) => this.#error(call, answer));
  }


  /** The normalized error of a non-success answer (problem+json `detail` carries RunPod's words). */
  #error(call: string, answer: HttpAnswer, create = false): ProviderError {
    const detail = isRecord(answer.body) ? (str(answer.body.detail) ?? str(answer.body.title) ?? "") : "";
    const message = `runpod: ${call}: ${answer.status}${detail ? ` ${detail}` : ""}`;
    if (answer.status === 429) return new ProviderError(this.name, "rate_limited", message, retryAfterMs(answer.headers) ?? 1000);
    if (answer.status === 401 || answer.status === 403) return new ProviderError(this.name, "auth", message);
    if (answer.status === 402 || NO_FUNDS.test(detail)) return new ProviderError(this.name, "insufficient_funds", message);
    if (answer.status === 404) return new ProviderError(this.name, "not_found", message);
    if (create && (answer.status === 400 || answer.status === 409 || answer.status === 422)) {
      return new ProviderError(this.name, NO_CAPACITY.test(detail) ? "no_capacity" : "refused", message);
    }
    return new ProviderError(this.name, "unavailable", message);
  }
}

/** What a stopped pod bills per hour: its kept container disk and persistent mount, in GB. */
export function runpodStoppedHourlyUsd(containerDiskGb: number, persistentGb: number): number {
  return usd((containerDiskGb + persistentGb) * RUNPOD_STOPPED_USD_PER_GB_HOUR);
}

/** RunPod never says which machine a pod lands on: a data center's pool of one GPU type stands for the host. */
function runpodHostId(dataCenterId: string, cloud: Cloud, gpuTypeId: string): string {
  return `${dataCenterId}/${cloud}/${gpuTypeId}`.toLowerCase();
}

/**
 * One PodBillingRecord as lessor's record: `<podId>:<bucket start>` (the start normalized to ISO
 * 8601, whatever offset RunPod writes it with), the bucket as its window, `totalAmount` as the
 * amount and the document's parts beside it. Fields it cannot read are left unreadable (an empty
 * id, NaN), for the reconciler to count and leave out.
 */
function podBillingRecord(r: unknown): BillingRecord {
  const x = isRecord(r) ? r : {};
  const podId = str(x.podId) ?? "";
  const start = typeof x.startTime === "string" ? Date.parse(x.startTime) : NaN;
  const end = typeof x.endTime === "string" ? Date.parse(x.endTime) : NaN;
  const components: Record<string, number> = {};
  for (const [key, part] of [
    ["gpuAmount", "gpu_usd"],
    ["cpuAmount", "cpu_usd"],
    ["diskAmount", "disk_usd"],
  ] as const) {
    const v = num(x[key]);
    if (v !== null) components[part] = v;
  }
  return {
    record_id: podId !== "" && Number.isFinite(start) ? `${podId}:${new Date(start).toISOString()}` : "",
    machine_id: podId,
    window_start: start,
    window_end: end,
    amount_usd: num(x.totalAmount) ?? NaN,
    components,
  };
}

/**
 * GET /v2/billing/networkvolumes: a network volume's storage by bucket ("records are emitted per
 * volume per bucket"), with no podId: billed whether or not a pod mounts it.
 */
const VOLUME_BILLING_PATH = "/v2/billing/networkvolumes";

/**
 * One NetworkVolumeBillingRecord as lessor's record (`resource: volume`): `volume:<networkVolumeId>:
 * <bucket start>`, `totalAmount` as the amount, the standard and high-performance parts beside it.
 * Unreadable fields are left unreadable, for the reconciler to count.
 */
function networkVolumeBillingRecord(r: unknown): BillingRecord {
  const x = isRecord(r) ? r : {};
  const volumeId = str(x.networkVolumeId) ?? "";
  const start = typeof x.startTime === "string" ? Date.parse(x.startTime) : NaN;
  const end = typeof x.endTime === "string" ? Date.parse(x.endTime) : NaN;
  const components: Record<string, number> = {};
  for (const [key, part] of [
    ["standardAmount", "standard_usd"],
    ["highPerformanceAmount", "high_performance_usd"],
  ] as const) {
    const v = num(x[key]);
    if (v !== null) components[part] = v;
  }
  return {
    record_id: volumeId !== "" && Number.isFinite(start) ? `volume:${volumeId}:${new Date(start).toISOString()}` : "",
    machine_id: volumeId,
    window_start: start,
    window_end: end,
    amount_usd: num(x.totalAmount) ?? NaN,
    components,
    resource: "volume",
  };
}

/** How a pod's HTTP port is named in ContainerConfig's `ports`. */
function runpodHttpPort(port: number): string {
  return `${port}/http`;
}

/** Where RunPod's HTTP proxy publishes a pod's port. */
export function runpodProxyUrl(podId: string, port: number): string {
  return `https://${podId}-${port}.proxy.runpod.net`;
}

const VOLUMES_PATH = "/v2/network-volumes";

/** A NetworkVolume of the document: id, name, size (GB) and dataCenter are required. */
interface NetworkVolumeJson {
  id: string;
  name: string;
  size: number;
  dataCenter: string;
}

function isNetworkVolume(x: unknown): x is NetworkVolumeJson {
  return isRecord(x) && typeof x.id === "string" && typeof x.name === "string" && typeof x.size === "number" && typeof x.dataCenter === "string";
}

function runpodVolume(v: NetworkVolumeJson): Volume {
  return { id: v.id, label: v.name, region: v.dataCenter.toLowerCase(), size_gb: v.size, usd_per_gb_month: null, created_at: null };
}

function podPath(id: string): string {
  return `/v2/pods/${encodeURIComponent(id)}`;
}

function isPod(x: unknown): x is PodJson {
  return isRecord(x) && typeof x.id === "string" && typeof x.name === "string" && typeof x.status === "string";
}
