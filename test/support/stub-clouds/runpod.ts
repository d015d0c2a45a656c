/**
 * RunPod REST v2 over the simulated cloud core, in the words of runpod-v2-openapi.yaml: the GPU
 * catalog (per cloud and count, availability per data center), pods and their actions, and the
 * hourly pod billing records. Errors are RFC 9457 problem+json; a 429 carries Retry-After.
 *
 * Status words are the sim's own (the sim speaks RunPod's): PROVISIONING, STARTING, RUNNING,
 * EXITED, ERROR; a TERMINATED pod is gone (404), as RunPod forgets terminated pods.
 */
import { billingCompleteThrough, HOUR_MS, type SimStatus } from "../../../src/providers/sim/machines";
import { runpodStoppedHourlyUsd, runpodOfferId } from "../../../src/providers/runpod/adapter";
import { usd } from "../../../src/providers/http";
import { rfc3339 } from "../../../src/time";
import type { Operation, StubAnswer, StubCall } from "../contract-stub";
import { StubCloudCore, type CoreMachine, type CoreOffer } from "./core";
import { ambiguous, refusal, type Dialect, type FaultWords, takeInjected, type InjectedCreate } from "./dialect";

type Level = "HIGH" | "MEDIUM" | "LOW" | "NONE";
type Cloud = "SECURE" | "COMMUNITY";

interface GpuType {
  id: string;
  name: string;
  pool: string | null;
  memory: number;
  manufacturer: "NVIDIA" | "AMD";
  price: { secure: number; community: number };
  maxCount: { secure: number; community: number };
  /** Availability per data center at a count of 1; each doubling of the count is one level lower. */
  dataCenters: Record<string, Partial<Record<Cloud, Level>>>;
}

/** A catalog row: id, name, pool, memory (GB), price per GPU-hour and most GPUs (each [SECURE, COMMUNITY]), availability. */
type GpuRow = [id: string, name: string, pool: string, memory: number, price: [number, number], maxCount: [number, number], dataCenters: GpuType["dataCenters"]];

function nvidia([id, name, pool, memory, [secure, community], [maxSecure, maxCommunity], dataCenters]: GpuRow): GpuType {
  return { id, name, pool, memory, manufacturer: "NVIDIA", price: { secure, community }, maxCount: { secure: maxSecure, community: maxCommunity }, dataCenters };
}

export const RUNPOD_DATA_CENTERS: Record<string, string> = {
  "US-KS-2": "US Kansas 2",
  "US-TX-3": "US Texas 3",
  "US-GA-1": "US Georgia 1",
  "CA-MTL-1": "CA Montreal 1",
  "EU-RO-1": "EU Romania 1",
  "EU-SE-1": "EU Sweden 1",
};

/**
 * The catalog. L40S and L4 sit in at least three data centers each at one GPU (three hosts for
 * the adapter, which takes a data center's pool of one GPU type for a host); the A4500 is a GPU
 * no lessor class covers, so the adapter leaves it out and counts it.
 */
export const RUNPOD_GPU_TYPES: readonly GpuType[] = (
  [
    ["NVIDIA L40S", "L40S", "ADA_48_PRO", 48, [0.86, 0.79], [8, 4], { "US-KS-2": { SECURE: "HIGH", COMMUNITY: "MEDIUM" }, "EU-RO-1": { SECURE: "HIGH", COMMUNITY: "LOW" }, "US-TX-3": { SECURE: "MEDIUM" }, "CA-MTL-1": { SECURE: "LOW" } }],
    ["NVIDIA L4", "L4", "ADA_24", 24, [0.43, 0.39], [8, 2], { "US-KS-2": { SECURE: "HIGH", COMMUNITY: "HIGH" }, "EU-SE-1": { SECURE: "HIGH", COMMUNITY: "MEDIUM" }, "US-GA-1": { SECURE: "MEDIUM" } }],
    ["NVIDIA GeForce RTX 4090", "RTX 4090", "ADA_24", 24, [0.69, 0.34], [8, 2], { "US-KS-2": { SECURE: "HIGH", COMMUNITY: "MEDIUM" }, "EU-RO-1": { SECURE: "LOW" } }],
    ["NVIDIA H100 80GB HBM3", "H100 SXM", "HOPPER_141", 80, [2.69, 0], [8, 0], { "US-TX-3": { SECURE: "HIGH" } }],
    ["NVIDIA A100 80GB PCIe", "A100 PCIe", "AMPERE_80", 80, [1.64, 1.19], [4, 1], { "EU-RO-1": { SECURE: "MEDIUM", COMMUNITY: "LOW" } }],
    ["NVIDIA RTX A4500", "RTX A4500", "AMPERE_20", 20, [0.34, 0], [1, 0], { "US-KS-2": { SECURE: "HIGH" } }],
  ] satisfies GpuRow[]
).map(nvidia);

const STEP_DOWN: Record<Level, Level> = { HIGH: "MEDIUM", MEDIUM: "LOW", LOW: "NONE", NONE: "NONE" };

/** What each status allows, as podAction's description lists it, narrowed to what the sim allows. */
const ACTIONS: Record<Exclude<SimStatus, "TERMINATED">, string[]> = {
  PROVISIONING: ["terminate"],
  STARTING: ["terminate"],
  RUNNING: ["stop", "restart", "terminate"],
  EXITED: ["start", "terminate"],
  // The document lets an ERROR pod start; the sim's machines only start from EXITED.
  ERROR: ["terminate"],
};

const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  404: "Not Found",
  409: "Conflict",
  429: "Too Many Requests",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** An RFC 9457 problem answer, as every RunPod error is. */
export function runpodProblem(status: number, detail: string, headers?: Record<string, string>): StubAnswer {
  return { status, body: { title: TITLES[status] ?? "Error", status, detail }, ...(headers ? { headers } : {}) };
}

/** RunPod's own words when a placement cannot be made (the adapter's NO_CAPACITY knows them). */
const NO_INSTANCES = "There are no longer any instances available with the requested specifications. Please refresh and try again.";

const WORDS: FaultWords = {
  unavailable: () => runpodProblem(503, "service temporarily unavailable"),
  rateLimited: (s) => runpodProblem(429, "rate limit exceeded for the minute window", { "retry-after": String(s) }),
  gateway: (status) => runpodProblem(status, "upstream timed out"),
};

interface PodExtra {
  cloud: Cloud;
  gpu: { id: string; count: number };
  dataCenterId: string;
  disk: number;
  args: string;
  env: Record<string, string>;
  ports: string[];
  mounts: { persistent?: { size: number; path: string }; network?: Array<{ volumeId: string; path: string }> };
}

/** A NetworkVolume as the document has it. */
interface NetworkVolume {
  id: string;
  name: string;
  size: number;
  dataCenter: string;
  type: "STANDARD" | "HIGH_PERFORMANCE";
}

export class RunPodDialect implements Dialect {
  readonly provider = "runpod" as const;
  readonly contractFile = "runpod-v2-openapi.yaml";
  readonly core: StubCloudCore<PodExtra>;
  /** Answers given to creates instead of creating (takeInjected). */
  readonly injected: InjectedCreate[] = [];
  /**
   * Data centers the next creates are placed in instead of the one asked for (the document's
   * `dataCenterIds` are "Preferred data centers for placement"): the next create, or the next whose
   * body contains `match`, lands in `dataCenterId` (POST /__admin/runpod/misplace-create).
   */
  readonly misplaced: Array<{ dataCenterId: string; match?: string }> = [];

  /**
   * Test hook: the records GET /v2/billing/pods answers instead of what the core billed, whatever
   * the range asked (as a RunPod that ignored it would), for shapes the core never bills: an
   * offset in a start time, a record without a pod id, a bucket still in progress. Null: the core's.
   */
  billingRecords: RunPodBillingRecord[] | null = null;
  /** Test hook: the records GET /v2/billing/networkvolumes answers instead of the volumes' own, whatever the range asked. */
  volumeBillingRecords: RunPodVolumeBillingRecord[] | null = null;

  /** The account's network volumes, by id (kept across the admin reset's machines, as storage outlives them). */
  readonly volumes = new Map<string, NetworkVolume>();
  /** Every network volume's life, deleted ones too, for GET /v2/billing/networkvolumes. */
  readonly volumeLives = new Map<string, { size: number; type: NetworkVolume["type"]; created_at: number; deleted_at: number | null }>();
  #volumeSeq = 0;

  constructor(options: { now?: () => number } = {}) {
    // RunPod's ids are short lowercase words ("7h9k2m4n6p"); a per-server tag keeps them unique across runs.
    const tag = Math.floor(Math.random() * 36 ** 3).toString(36).padStart(3, "0");
    this.core = new StubCloudCore<PodExtra>({ machineId: (seq) => `${tag}${seq.toString(36).padStart(7, "0")}`, ...options });
  }

  /** Forgets what tests set on this dialect beyond the core (the admin reset calls it). */
  clearTestHooks(): void {
    this.injected.length = 0;
    this.misplaced.length = 0;
    this.billingRecords = null;
    this.volumeBillingRecords = null;
  }

  refuse(_op: Operation): StubAnswer {
    // Every operation lessor calls lists 401 (UnauthorizedError).
    return runpodProblem(401, "invalid bearer token");
  }

  handle(call: StubCall): StubAnswer {
    const id = String(call.params.id ?? "");
    switch (call.operationId) {
      case "listGpuTypes":
        return { status: 200, body: { gpus: this.#catalog(call.query) } };
      case "createPod":
        return this.#create(call.body as Record<string, any>);
      case "listPods":
        return refusal(this.core.gate("list:"), WORDS) ?? { status: 200, body: { pods: this.core.list().map((m) => podJson(m, this.core.now())) } };
      case "getPod":
        return this.#onPod(id, (m) => ({ status: 200, body: podJson(m, this.core.now()) }));
      case "deletePod":
        return this.#onPod(id, (m) => {
          this.core.destroy(m.id);
          return { status: 204 };
        });
      case "podAction":
        return this.#onPod(id, (m) => this.#action(m, (call.body as { action: string }).action));
      case "listPodBilling":
        return this.#billing(call.query);
      case "listNetworkVolumeBilling":
        return this.#volumeBilling(call.query);
      case "listNetworkVolumes":
        return refusal(this.core.gate("volumes:"), WORDS) ?? { status: 200, body: { networkVolumes: [...this.volumes.values()] } };
      case "createNetworkVolume":
        return this.#createVolume(call.body as Record<string, any>);
      case "deleteNetworkVolume": {
        const gated = refusal(this.core.gate(`volume:${id}`), WORDS);
        if (gated) return gated;
        // The document: "Permanently deletes a network volume and releases its storage"; it names no refusal while mounted.
        if (!this.volumes.delete(id)) return runpodProblem(404, "network volume not found");
        this.volumeLives.get(id)!.deleted_at = this.core.now();
        return { status: 204 };
      }
      default:
        // The document has it; the stub does not serve it. Loud: the server records a violation.
        throw new Error(`the stub does not serve ${call.operationId}`);
    }
  }

  // --- catalog --------------------------------------------------------------------------------

  #catalog(query: Record<string, unknown>) {
    const cloud: Cloud = query.cloud === "COMMUNITY" ? "COMMUNITY" : "SECURE";
    const count = typeof query.count === "number" ? query.count : 1;
    const withAvailability = Array.isArray(query.include) && query.include.includes("AVAILABILITY");
    return RUNPOD_GPU_TYPES.map((g) => {
      const base = {
        id: g.id,
        name: g.name,
        pool: g.pool,
        manufacturer: g.manufacturer,
        memory: g.memory,
        secure: g.maxCount.secure > 0,
        community: g.maxCount.community > 0,
        price: g.price,
        maxCount: g.maxCount,
      };
      if (!withAvailability) return base;
      const dataCenters = Object.keys(g.dataCenters).map((dc) => ({ id: dc, name: RUNPOD_DATA_CENTERS[dc]!, availability: availability(g, cloud, count, dc) }));
      const best = dataCenters.some((d) => d.availability !== "NONE") ? "HIGH" : "NONE";
      return { ...base, availability: best, dataCenters };
    });
  }

  /** The offer a create names: one GPU type, count, cloud and data center with stock; else null. */
  #offer(body: Record<string, any>): { offer: CoreOffer; extra: PodExtra } | null {
    const gpu = RUNPOD_GPU_TYPES.find((g) => g.id === body.gpu?.id);
    if (!gpu) return null;
    const count: number = body.gpu.count ?? 1;
    const cloud: Cloud = body.cloud ?? "SECURE";
    // An empty list lets the scheduler choose: the first data center with stock.
    const wanted: string[] = body.dataCenterIds?.length ? body.dataCenterIds : Object.keys(gpu.dataCenters);
    const text = JSON.stringify(body);
    const n = this.misplaced.findIndex((x) => x.match === undefined || text.includes(x.match));
    const elsewhere = n < 0 ? undefined : this.misplaced.splice(n, 1)[0]!.dataCenterId;
    const network = body.mounts?.network as PodExtra["mounts"]["network"];
    // A NetworkMount names "an existing NetworkVolume in the same data center as the pod".
    const volumeDc = network?.length ? this.volumes.get(network[0]!.volumeId)?.dataCenter : undefined;
    const dc = elsewhere ?? wanted.find((d) => (volumeDc === undefined || d === volumeDc) && availability(gpu, cloud, count, d) !== "NONE");
    if (!dc) return null;
    const persistent = body.mounts?.persistent as PodExtra["mounts"]["persistent"];
    const offerId = runpodOfferId(cloud, dc, count, gpu.id);
    return {
      offer: {
        offer_id: offerId,
        host_id: `${dc}/${cloud}/${gpu.id}`.toLowerCase(),
        region: dc.toLowerCase(),
        gpu_name: gpu.id,
        num_gpus: count,
        price_per_hour: usd((cloud === "SECURE" ? gpu.price.secure : gpu.price.community) * count),
        // A stop keeps the pod's disk (the document's podAction): the container disk and any
        // persistent mount bill while EXITED, at RunPod's published $0.20/GB-month (the adapter's figure).
        disk_price_per_hour: runpodStoppedHourlyUsd(body.disk ?? 50, persistent?.size ?? 0),
      },
      extra: {
        cloud,
        gpu: { id: gpu.id, count },
        dataCenterId: dc,
        disk: body.disk ?? 50,
        args: body.args ?? "",
        env: body.env ?? {},
        ports: body.ports ?? [],
        mounts: { ...(persistent ? { persistent } : {}), ...(network?.length ? { network } : {}) },
      },
    };
  }

  // --- network volumes ------------------------------------------------------------------------

  #createVolume(body: Record<string, any>): StubAnswer {
    const gated = refusal(this.core.gate(`volume:${body.name}`), WORDS);
    if (gated) return gated;
    if (!Object.hasOwn(RUNPOD_DATA_CENTERS, body.dataCenter)) return runpodProblem(400, `unknown data center ${body.dataCenter}`);
    const id = `nv${(++this.#volumeSeq).toString(36).padStart(8, "0")}`;
    const volume: NetworkVolume = { id, name: body.name, size: body.size, dataCenter: body.dataCenter, type: body.type ?? "STANDARD" };
    this.volumes.set(id, volume);
    this.volumeLives.set(id, { size: volume.size, type: volume.type, created_at: this.core.now(), deleted_at: null });
    return { status: 201, body: volume };
  }

  // --- pods -----------------------------------------------------------------------------------

  #create(body: Record<string, any>): StubAnswer {
    const gated = refusal(this.core.gate(`create:${body.name}`), WORDS);
    if (gated) return gated;
    const injected = takeInjected(this.injected, body);
    if (injected) return injected;
    const network = (body.mounts?.network ?? []) as Array<{ volumeId: string }>;
    if (network.some((n) => !this.volumes.has(n.volumeId))) return runpodProblem(400, "network volume not found");
    const resolved = this.#offer(body);
    if (!resolved) return runpodProblem(400, NO_INSTANCES);
    const outcome = this.core.create({ label: body.name, offer: resolved.offer, image: body.image, cmd: body.args ?? null, extra: resolved.extra });
    if (outcome.kind === "no_capacity") return runpodProblem(400, NO_INSTANCES);
    if (outcome.kind === "ambiguous") return ambiguous(outcome.answer, WORDS);
    return { status: 201, body: podJson(outcome.machine, this.core.now()) };
  }

  /** Gate a call on one pod; a pod never made or already terminated is 404. */
  #onPod(id: string, act: (m: CoreMachine<PodExtra>) => StubAnswer): StubAnswer {
    const gated = refusal(this.core.gate(`machine:${id}`), WORDS);
    if (gated) return gated;
    const m = this.core.get(id);
    if (!m || m.clock.status === "TERMINATED") return runpodProblem(404, "pod not found");
    return act(m);
  }

  #action(m: CoreMachine<PodExtra>, action: string): StubAnswer {
    if (action === "terminate") {
      this.core.destroy(m.id);
      return { status: 204 };
    }
    const refused = () => runpodProblem(409, `cannot ${action} a pod that is ${m.clock.status}`);
    if (action === "stop" || action === "start") {
      const outcome = action === "stop" ? this.core.stop(m.id) : this.core.start(m.id);
      return outcome.kind === "done" ? { status: 200, body: podJson(outcome.machine, this.core.now()) } : refused();
    }
    // restart: a stop and a start at once, from RUNNING only.
    const stopped = this.core.stop(m.id);
    if (stopped.kind !== "done") return refused();
    this.core.start(m.id);
    return { status: 200, body: podJson(m, this.core.now()) };
  }

  // --- billing --------------------------------------------------------------------------------

  /**
   * GET /v2/billing/pods: the core's published records, summed into the asked bucket per pod.
   * An `hour` bucket is the core's billing window: an hour, unless a test shortened it
   * (billing_window_ms) to watch a day pass in seconds; then RunPod's hours shrink with it, one
   * record per window, as the sim's. The window snaps to bucket boundaries as the document says;
   * lastN ends with the current bucket. Amounts carry the core's billing_markup, as the sim's.
   */
  /** A billing query's resolved window, snapped to its buckets as the document says; or its refusal. */
  #billingWindow(query: Record<string, unknown>): { start: number; end: number; size: Bucket } | StubAnswer {
    const now = this.core.now();
    const size: Bucket = { size: (query.bucketSize as BucketSize | undefined) ?? "day", hour_ms: this.core.billingOptions.window_ms };
    if (query.lastN !== undefined && (query.startTime !== undefined || query.endTime !== undefined)) {
      return runpodProblem(400, "lastN is mutually exclusive with startTime/endTime");
    }
    let start: number;
    let end: number;
    if (typeof query.lastN === "number") {
      end = nextBucket(bucketStart(now, size), size);
      start = bucketStart(now, size);
      for (let n = 1; n < query.lastN; n++) start = bucketStart(start - 1, size);
    } else {
      start = bucketStart(query.startTime ? Date.parse(String(query.startTime)) : now - 30 * 24 * HOUR_MS, size);
      const rawEnd = query.endTime ? Date.parse(String(query.endTime)) : now;
      end = bucketStart(rawEnd, size) === rawEnd ? rawEnd : nextBucket(bucketStart(rawEnd, size), size);
    }
    return { start, end, size };
  }

  /**
   * GET /v2/billing/networkvolumes: each volume's storage per bucket it lived in ("records are
   * emitted per volume per bucket"), deleted ones up to their deletion, at the stub's own price
   * (STUB_RUNPOD_VOLUME_USD_PER_GB_MONTH: the document states none; this is the provider's side)
   * per real hour, with the core's billing_markup; a bucket appears once the core would publish it.
   */
  #volumeBilling(query: Record<string, unknown>): StubAnswer {
    const window = this.#billingWindow(query);
    if ("status" in window) return window;
    const { start, end, size } = window;
    const now = this.core.now();
    const { markup } = this.core.billingOptions;
    const published = billingCompleteThrough(now, this.core.billingOptions);
    const only = typeof query.networkVolumeId === "string" ? query.networkVolumeId : null;
    const records: RunPodVolumeBillingRecord[] = this.volumeBillingRecords ? [...this.volumeBillingRecords] : [];
    for (const [id, v] of this.volumeBillingRecords ? [] : this.volumeLives) {
      if (only !== null && id !== only) continue;
      const until = Math.min(v.deleted_at ?? now, now);
      for (let a = Math.max(v.created_at, start); a < Math.min(until, end); ) {
        const at = bucketStart(a, size);
        const next = nextBucket(at, size);
        const b = Math.min(until, next);
        if (next <= published && at >= start && next <= end) {
          const amount = round6(((v.size * STUB_RUNPOD_VOLUME_USD_PER_GB_MONTH * (b - a)) / (730 * HOUR_MS)) * (1 + markup));
          const standard = v.type === "STANDARD";
          records.push({ startTime: rfc3339(at), endTime: rfc3339(next), networkVolumeId: id, totalAmount: amount, standardAmount: standard ? amount : 0, highPerformanceAmount: standard ? 0 : amount });
        }
        a = b;
      }
    }
    records.sort((x, y) => Date.parse(x.startTime) - Date.parse(y.startTime) || (x.networkVolumeId < y.networkVolumeId ? -1 : 1));
    const sum = (k: "totalAmount" | "standardAmount" | "highPerformanceAmount") => round6(records.reduce((t, r) => t + r[k], 0));
    return {
      status: 200,
      body: {
        records,
        metadata: {
          query: { startTime: rfc3339(start), endTime: rfc3339(end), bucketSize: size.size, networkVolumeId: only },
          recordCount: records.length,
          uniqueNetworkVolumeCount: new Set(records.map((r) => r.networkVolumeId)).size,
          totals: { totalAmount: sum("totalAmount"), standardAmount: sum("standardAmount"), highPerformanceAmount: sum("highPerformanceAmount") },
        },
      },
    };
  }

  #billing(query: Record<string, unknown>): StubAnswer {
    const window = this.#billingWindow(query);
    if ("status" in window) return window;
    const { start, end, size } = window;
    const { markup } = this.core.billingOptions;
    const podId = typeof query.podId === "string" ? query.podId : null;
    const asked = { startTime: rfc3339(start), endTime: rfc3339(end), bucketSize: size.size, podId };
    if (this.billingRecords) return { status: 200, body: runpodBillingBody(this.billingRecords, asked) };
    const { records } = this.core.billing(start, end);
    const ledger = new Map(this.core.ledger("").machines.map((m) => [m.id, m]));
    const buckets = new Map<string, { startTime: number; podId: string; gpu: number; disk: number; total: number }>();
    for (const r of records) {
      if (podId !== null && r.machine_id !== podId) continue;
      if (r.window_start < start || r.window_end > end) continue;
      const m = ledger.get(r.machine_id)!;
      const at = bucketStart(r.window_start, size);
      const key = `${at}|${r.machine_id}`;
      const b = buckets.get(key) ?? { startTime: at, podId: r.machine_id, gpu: 0, disk: 0, total: 0 };
      b.gpu += ((r.running_seconds * m.price_per_hour) / 3600) * (1 + markup);
      b.disk += ((r.stopped_seconds * m.disk_price_per_hour) / 3600) * (1 + markup);
      b.total += r.amount_usd;
      buckets.set(key, b);
    }
    const rows = [...buckets.values()].sort((a, b) => a.startTime - b.startTime || (a.podId < b.podId ? -1 : 1));
    const out = rows.map((b): RunPodBillingRecord => ({
      startTime: rfc3339(b.startTime),
      endTime: rfc3339(nextBucket(b.startTime, size)),
      podId: b.podId,
      totalAmount: round6(b.total),
      gpuAmount: round6(b.gpu),
      cpuAmount: 0,
      diskAmount: round6(b.disk),
    }));
    return { status: 200, body: runpodBillingBody(out, asked) };
  }
}

/**
 * What the stub's network volumes bill a GB a month. RunPod's document states no price, so lessor
 * assumes none (its estimate is null); the stub, playing RunPod, bills at a price of its own.
 */
export const STUB_RUNPOD_VOLUME_USD_PER_GB_MONTH = 0.07;

/** One record of GET /v2/billing/networkvolumes (NetworkVolumeBillingRecord). */
export interface RunPodVolumeBillingRecord {
  startTime: string;
  endTime: string;
  networkVolumeId: string;
  totalAmount: number;
  standardAmount: number;
  highPerformanceAmount: number;
}

/** One record of GET /v2/billing/pods (PodBillingRecord): a pod's bucket, its parts adding up to the total. */
export interface RunPodBillingRecord {
  startTime: string;
  endTime: string;
  podId: string;
  totalAmount: number;
  gpuAmount: number;
  cpuAmount: number;
  diskAmount: number;
}

/** ListPodBillingResponse for `records`: metadata echoing the query, `recordCount` (its count unless a test says otherwise) and totals. */
export function runpodBillingBody(records: RunPodBillingRecord[], query: { startTime: string; endTime: string; bucketSize: string; podId: string | null }, recordCount = records.length) {
  const sum = (k: "totalAmount" | "gpuAmount" | "cpuAmount" | "diskAmount") => round6(records.reduce((s, r) => s + r[k], 0));
  return {
    records,
    metadata: {
      query,
      recordCount,
      uniquePodCount: new Set(records.map((r) => r.podId)).size,
      totals: { totalAmount: sum("totalAmount"), gpuAmount: sum("gpuAmount"), cpuAmount: sum("cpuAmount"), diskAmount: sum("diskAmount") },
    },
  };
}

/** A pod's hourly record for `billingRecords`, from `start` (written as `startTime` when given). */
export function runpodPodHour(podId: string, start: number, gpu: number, disk = 0, startTime = new Date(start).toISOString()): RunPodBillingRecord {
  return { startTime, endTime: new Date(start + HOUR_MS).toISOString(), podId, totalAmount: round6(gpu + disk), gpuAmount: gpu, cpuAmount: 0, diskAmount: disk };
}

function availability(g: GpuType, cloud: Cloud, count: number, dc: string): Level {
  const max = cloud === "SECURE" ? g.maxCount.secure : g.maxCount.community;
  let level: Level = count > max ? "NONE" : (g.dataCenters[dc]?.[cloud] ?? "NONE");
  for (let c = count; c > 1; c /= 2) level = STEP_DOWN[level];
  return level;
}

/** A pod as the document's Pod schema has it. */
export function podJson(m: CoreMachine<PodExtra>, now: number) {
  const x = m.extra;
  const status = m.clock.status;
  const running = m.intervals.find((i) => i.status === "RUNNING");
  // `cost` is what the pod bills now: 0.0 when EXITED or TERMINATED (the document); an ERROR pod
  // holds no GPU either.
  const billsGpu = status === "PROVISIONING" || status === "STARTING" || status === "RUNNING";
  return {
    id: m.id,
    name: m.label,
    image: m.image ?? "",
    args: x.args,
    disk: x.disk,
    ports: x.ports,
    env: x.env,
    registry: null,
    status,
    actions: status === "TERMINATED" ? [] : ACTIONS[status],
    mounts: x.mounts,
    gpu: x.gpu,
    cloud: x.cloud,
    dataCenterId: x.dataCenterId,
    template: null,
    cost: billsGpu ? m.offer.price_per_hour : 0,
    locked: false,
    globalNetworking: { enabled: false },
    runtime: status === "RUNNING" ? { uptime: Math.max(0, Math.floor((now - m.clock.since) / 1000)) } : null,
    createdAt: rfc3339(m.created_at),
    startedAt: running ? rfc3339(running.from) : null,
  };
}

type BucketSize = "hour" | "day" | "week" | "month" | "year";
/** A bucket size, and how long its `hour` is (the core's billing window). */
interface Bucket {
  size: BucketSize;
  hour_ms: number;
}

/** The start of the UTC bucket holding `ms` (weeks start on Monday). */
function bucketStart(ms: number, { size, hour_ms }: Bucket): number {
  const d = new Date(ms);
  switch (size) {
    case "hour":
      return Math.floor(ms / hour_ms) * hour_ms;
    case "day":
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    case "week": {
      const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
      return day - ((d.getUTCDay() + 6) % 7) * 24 * HOUR_MS;
    }
    case "month":
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    case "year":
      return Date.UTC(d.getUTCFullYear(), 0, 1);
  }
}

function nextBucket(start: number, { size, hour_ms }: Bucket): number {
  const d = new Date(start);
  switch (size) {
    case "hour":
      return start + hour_ms;
    case "day":
      return start + 24 * HOUR_MS;
    case "week":
      return start + 7 * 24 * HOUR_MS;
    case "month":
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    case "year":
      return Date.UTC(d.getUTCFullYear() + 1, 0, 1);
  }
}

const round6 = (x: number) => Math.round(x * 1_000_000) / 1_000_000;
