/**
 * The RunPod adapter against a stub that holds every request to RunPod's own OpenAPI document
 * and answers only with bodies that document accepts (test/support/contract-stub.ts).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { machineLabel } from "../../src/lease/label";
import { MODEL_PORT } from "../../src/providers/contract";
import { RUNPOD_BILLING_LAG_MS, RunPodProvider, runpodBillingCompleteThrough } from "../../src/providers/runpod/adapter";
import { ContractStub, loadContract, sha256, type StubAnswer, type StubCall } from "../support/contract-stub";

const contract = loadContract("runpod-v2-openapi.yaml");
const API_KEY = "rp_test_key_0123456789";
const INSTALLATION = "test";
const LEASE = "ls_01jrunpod";

type Level = "HIGH" | "MEDIUM" | "LOW" | "NONE";

interface FakeGpuType {
  id: string;
  name: string;
  memory: number;
  manufacturer: "NVIDIA" | "AMD" | "UNKNOWN";
  secure: boolean;
  community: boolean;
  price: { secure: number; community: number };
  maxCount: { secure: number; community: number };
  /** Availability per data center: SECURE and COMMUNITY, at a count of 1 (larger counts are one step lower). */
  dataCenters: Record<string, { SECURE: Level; COMMUNITY: Level }>;
}

const DC_NAMES: Record<string, string> = { "US-KS-2": "US Kansas 2", "EU-RO-1": "EU Romania 1", "US-TX-3": "US Texas 3" };

/** A catalog row: id, name, memory (GB), price per GPU-hour and most GPUs (each [SECURE, COMMUNITY]), availability. */
type GpuRow = [id: string, name: string, memory: number, price: [number, number], maxCount: [number, number], dataCenters: FakeGpuType["dataCenters"]];

/** An NVIDIA type, sold in each cloud where it may have any GPUs. */
function nvidia([id, name, memory, [secure, community], [maxSecure, maxCommunity], dataCenters]: GpuRow): FakeGpuType {
  return { id, name, memory, manufacturer: "NVIDIA", secure: maxSecure > 0, community: maxCommunity > 0, price: { secure, community }, maxCount: { secure: maxSecure, community: maxCommunity }, dataCenters };
}

const GPU_TYPES: FakeGpuType[] = (
  [
    ["NVIDIA GeForce RTX 4090", "RTX 4090", 24, [0.69, 0.34], [8, 2], { "US-KS-2": { SECURE: "HIGH", COMMUNITY: "MEDIUM" }, "EU-RO-1": { SECURE: "LOW", COMMUNITY: "NONE" } }],
    ["NVIDIA H100 80GB HBM3", "H100 SXM", 80, [2.69, 0], [8, 0], { "US-TX-3": { SECURE: "HIGH", COMMUNITY: "NONE" } }],
    // The memory settles the A100's size: "A100 PCIe" alone would not.
    ["NVIDIA A100 PCIe", "A100 PCIe", 80, [1.64, 1.19], [4, 1], { "EU-RO-1": { SECURE: "MEDIUM", COMMUNITY: "LOW" } }],
    // No class covers these: their offers are left out and counted.
    ["NVIDIA RTX A4500", "RTX A4500", 20, [0.34, 0], [1, 0], { "US-KS-2": { SECURE: "HIGH", COMMUNITY: "NONE" }, "US-TX-3": { SECURE: "LOW", COMMUNITY: "NONE" } }],
    ["Tesla V100-SXM2-16GB", "V100 SXM2", 16, [0, 0.19], [0, 2], { "EU-RO-1": { SECURE: "NONE", COMMUNITY: "HIGH" } }],
  ] satisfies GpuRow[]
).map(nvidia);

const STEP_DOWN: Record<Level, Level> = { HIGH: "MEDIUM", MEDIUM: "LOW", LOW: "NONE", NONE: "NONE" };

interface FakePod {
  id: string;
  name: string;
  image: string;
  args: string;
  disk: number;
  status: "PROVISIONING" | "STARTING" | "RUNNING" | "EXITED" | "ERROR" | "TERMINATED";
  cloud: "SECURE" | "COMMUNITY";
  dataCenterId: string;
  gpu: { id: string; count: number };
  cost: number;
  createdAt: string;
  startedAt: string | null;
  ports: string[];
}

/** RunPod as its document describes it, small: a catalog, pods, and their actions. */
class FakeRunPod {
  readonly pods = new Map<string, FakePod>();
  /** GPU types whose creates are refused for want of capacity. */
  readonly soldOut = new Set<string>();
  /** What GET /v2/billing/pods answers, whatever the range asked (as PodBillingRecord has them). */
  billing: PodBillingJson[] = [];
  #seq = 0;

  handle = (call: StubCall): StubAnswer => {
    switch (call.operationId) {
      case "listGpuTypes":
        return { status: 200, body: { gpus: this.#catalog(call) } };
      case "createPod":
        return this.#create(call.body as Record<string, any>);
      case "getPod": {
        const pod = this.pods.get(String(call.params.id));
        return pod ? { status: 200, body: this.#json(pod) } : problem(404, "pod not found");
      }
      case "listPods":
        return { status: 200, body: { pods: [...this.pods.values()].map((p) => this.#json(p)) } };
      case "podAction":
        return this.#action(String(call.params.id), (call.body as { action: string }).action);
      case "deletePod": {
        if (!this.pods.delete(String(call.params.id))) return problem(404, "pod not found");
        return { status: 204 };
      }
      case "listPodBilling":
        return { status: 200, body: podBillingBody(this.billing, call.query) };
      default:
        throw new Error(`the fake RunPod does not serve ${call.operationId}`);
    }
  };

  /** Every pod on its way up moves one step: PROVISIONING -> STARTING -> RUNNING. */
  advance(): void {
    for (const p of this.pods.values()) {
      if (p.status === "PROVISIONING") p.status = "STARTING";
      else if (p.status === "STARTING") {
        p.status = "RUNNING";
        p.startedAt = new Date(Date.UTC(2026, 5, 1, 12, 2)).toISOString();
      }
    }
  }

  #catalog(call: StubCall) {
    const cloud = (call.query.cloud as "SECURE" | "COMMUNITY" | undefined) ?? "SECURE";
    const count = (call.query.count as number | undefined) ?? 1;
    const withAvailability = Array.isArray(call.query.include) && call.query.include.includes("AVAILABILITY");
    return GPU_TYPES.map((g) => {
      const base = {
        id: g.id,
        name: g.name,
        pool: null,
        manufacturer: g.manufacturer,
        memory: g.memory,
        secure: g.secure,
        community: g.community,
        price: g.price,
        maxCount: g.maxCount,
      };
      if (!withAvailability) return base;
      const max = cloud === "SECURE" ? g.maxCount.secure : g.maxCount.community;
      const dataCenters = Object.entries(g.dataCenters).map(([id, levels]) => {
        let level: Level = count > max ? "NONE" : levels[cloud];
        for (let c = count; c > 1; c /= 2) level = STEP_DOWN[level];
        return { id, name: DC_NAMES[id]!, availability: level };
      });
      const best = dataCenters.some((d) => d.availability !== "NONE") ? "HIGH" : "NONE";
      return { ...base, availability: best, dataCenters };
    });
  }

  #create(body: Record<string, any>): StubAnswer {
    const gpu = GPU_TYPES.find((g) => g.id === body.gpu.id);
    const dc = body.dataCenterIds?.[0] as string | undefined;
    if (!gpu) return problem(400, `unknown GPU type ${body.gpu.id}`);
    if (this.soldOut.has(gpu.id) || !dc || !gpu.dataCenters[dc]) {
      return problem(400, "There are no longer any instances available with the requested specifications. Please refresh and try again.");
    }
    const cloud = body.cloud ?? "SECURE";
    const count = body.gpu.count ?? 1;
    const pod: FakePod = {
      id: `pod${(++this.#seq).toString(36).padStart(8, "0")}`,
      name: body.name,
      image: body.image,
      args: body.args ?? "",
      disk: body.disk ?? 20,
      status: "PROVISIONING",
      cloud,
      dataCenterId: dc,
      gpu: { id: gpu.id, count },
      cost: Math.round((cloud === "SECURE" ? gpu.price.secure : gpu.price.community) * count * 100) / 100,
      createdAt: new Date(Date.UTC(2026, 5, 1, 12, 0, this.#seq)).toISOString(),
      startedAt: null,
      ports: body.ports ?? [],
    };
    this.pods.set(pod.id, pod);
    return { status: 201, body: this.#json(pod) };
  }

  #action(id: string, action: string): StubAnswer {
    const pod = this.pods.get(id);
    if (!pod) return problem(404, "pod not found");
    const allowed = ACTIONS[pod.status];
    if (!allowed.includes(action)) return problem(409, `cannot ${action} a pod that is ${pod.status}`);
    if (action === "terminate") {
      this.pods.delete(id);
      return { status: 204 };
    }
    if (action === "stop") pod.status = "EXITED";
    if (action === "start") pod.status = "STARTING";
    return { status: 200, body: this.#json(pod) };
  }

  #json(p: FakePod) {
    return {
      id: p.id,
      name: p.name,
      image: p.image,
      args: p.args,
      disk: p.disk,
      ports: p.ports,
      env: {},
      registry: null,
      status: p.status,
      actions: ACTIONS[p.status],
      mounts: {},
      gpu: p.gpu,
      cloud: p.cloud,
      dataCenterId: p.dataCenterId,
      template: null,
      cost: p.status === "EXITED" || p.status === "TERMINATED" ? 0 : p.cost,
      locked: false,
      globalNetworking: { enabled: false },
      runtime: p.status === "RUNNING" ? { uptime: 60 } : null,
      createdAt: p.createdAt,
      startedAt: p.startedAt,
    };
  }
}

/** Valid actions per status, as the podAction operation's description lists them. */
const ACTIONS: Record<FakePod["status"], string[]> = {
  RUNNING: ["stop", "restart", "terminate"],
  EXITED: ["start", "terminate"],
  ERROR: ["start", "terminate"],
  PROVISIONING: ["stop", "terminate"],
  STARTING: ["stop", "terminate"],
  TERMINATED: [],
};

function problem(status: number, detail: string, title = TITLES[status] ?? "Error"): StubAnswer {
  return { status, body: { title, status, detail } };
}
const TITLES: Record<number, string> = { 400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 404: "Not Found", 409: "Conflict", 429: "Too Many Requests", 503: "Service Unavailable", 504: "Gateway Timeout" };

interface PodBillingJson {
  startTime: string;
  endTime: string;
  podId: string;
  totalAmount: number;
  gpuAmount: number;
  cpuAmount: number;
  diskAmount: number;
}

/** One pod's hourly record, its parts adding up to the total. */
function podHour(podId: string, start: number, gpu: number, disk = 0, startTime = new Date(start).toISOString()): PodBillingJson {
  return { startTime, endTime: new Date(start + 3_600_000).toISOString(), podId, totalAmount: Math.round((gpu + disk) * 1e6) / 1e6, gpuAmount: gpu, cpuAmount: 0, diskAmount: disk };
}

/** ListPodBillingResponse for `records`, its metadata echoing the query. */
function podBillingBody(records: PodBillingJson[], query: Record<string, unknown>, recordCount = records.length) {
  const total = (k: "totalAmount" | "gpuAmount" | "cpuAmount" | "diskAmount") => records.reduce((s, r) => s + r[k], 0);
  return {
    records,
    metadata: {
      query: { startTime: String(query.startTime), endTime: String(query.endTime), bucketSize: "hour", podId: null },
      recordCount,
      uniquePodCount: new Set(records.map((r) => r.podId)).size,
      totals: { totalAmount: total("totalAmount"), gpuAmount: total("gpuAmount"), cpuAmount: total("cpuAmount"), diskAmount: total("diskAmount") },
    },
  };
}

describe.skipIf(!contract)("RunPod adapter against runpod-v2-openapi.yaml", () => {
  let fake: FakeRunPod;
  let stub: ContractStub;
  let sleeps: number[];
  let provider: RunPodProvider;
  const label = (attempt: number) => machineLabel(INSTALLATION, LEASE, attempt);

  beforeEach(() => {
    fake = new FakeRunPod();
    stub = new ContractStub(contract!, { apiKey: API_KEY, handler: fake.handle });
    sleeps = [];
    provider = new RunPodProvider({
      apiKey: API_KEY,
      fetch: stub.fetch,
      sleep: async (ms) => void sleeps.push(ms),
      random: () => 0.5,
    });
  });

  afterEach(() => {
    // Every request the adapter sent, and every answer the fake gave, held to the document.
    expect(stub.violations).toEqual([]);
  });

  it("is the document that was pinned (sha256 in the lock file)", async () => {
    const { readFileSync } = await import("node:fs");
    const { CONTRACTS_DIR } = await import("../support/contract-stub");
    const lock = JSON.parse(readFileSync(`${CONTRACTS_DIR}/runpod-v2-openapi.lock.json`, "utf8"));
    expect(sha256(contract!.text)).toBe(lock.sha256);
  });

  it("normalizes the catalog: per-GPU price times count, counts up to maxCount, no NONE data centers, unclassified counted", async () => {
    const { offers, unclassified } = await provider.listOffers();
    // One catalog read per (cloud, count).
    expect(stub.callsOf("listGpuTypes")).toHaveLength(8);
    expect(offers.every((o) => o.provider === "runpod" && o.id === `runpod:${o.provider_offer_id}`)).toBe(true);

    const rtx = offers.filter((o) => o.gpu === "rtx4090");
    // SECURE: US-KS-2 at 1 (HIGH), 2 (MEDIUM), 4 (LOW); EU-RO-1 at 1 (LOW). COMMUNITY (max 2): US-KS-2 at 1, 2.
    expect(rtx.map((o) => [o.provider_offer_id, o.availability, o.hourly_usd]).sort()).toEqual(
      [
        ["COMMUNITY:US-KS-2:1:NVIDIA GeForce RTX 4090", "medium", 0.34],
        ["COMMUNITY:US-KS-2:2:NVIDIA GeForce RTX 4090", "low", 0.68],
        ["SECURE:EU-RO-1:1:NVIDIA GeForce RTX 4090", "low", 0.69],
        ["SECURE:US-KS-2:1:NVIDIA GeForce RTX 4090", "high", 0.69],
        ["SECURE:US-KS-2:2:NVIDIA GeForce RTX 4090", "medium", 1.38],
        ["SECURE:US-KS-2:4:NVIDIA GeForce RTX 4090", "low", 2.76],
      ].sort(),
    );
    const one = rtx.find((o) => o.provider_offer_id === "SECURE:US-KS-2:1:NVIDIA GeForce RTX 4090")!;
    expect(one).toMatchObject({ gpu_count: 1, vram_gb: 24, region: "us-ks-2", spot: false, disk_gb: 50, vcpu: 0, memory_gb: 0 });

    expect(offers.filter((o) => o.gpu === "h100").map((o) => o.gpu_count).sort()).toEqual([1, 2, 4]);
    expect(new Set(offers.filter((o) => o.gpu === "a100-80gb").map((o) => o.provider_offer_id.split(":")[0]))).toEqual(new Set(["SECURE", "COMMUNITY"]));
    expect(offers.some((o) => o.gpu !== "rtx4090" && o.gpu !== "h100" && o.gpu !== "a100-80gb")).toBe(false);

    // A4500: SECURE 1 GPU in US-KS-2 and US-TX-3 (2 offers); V100: COMMUNITY 1 and 2 in EU-RO-1 (2 offers).
    expect(unclassified).toBe(4);
  });

  it("a create asks for the offer's GPU, count, cloud and data center, and sends cmd as sh -c args", async () => {
    const { offers } = await provider.listOffers();
    const offer = offers.find((o) => o.gpu === "h100" && o.gpu_count === 1)!;
    const created = await provider.createMachine({ label: label(1), offer_id: offer.provider_offer_id, image: "ghcr.io/acme/server@sha256:abc", cmd: "serve --port 8000" });
    expect(created).toMatchObject({ label: label(1), status: "provisioning", region: "us-tx-3", hourly_usd: 2.69, offer_id: offer.provider_offer_id });
    const sent = stub.callsOf("createPod")[0]!.body as Record<string, unknown>;
    expect(sent).toMatchObject({ name: label(1), gpu: { id: "NVIDIA H100 80GB HBM3", count: 1 }, cloud: "SECURE", dataCenterIds: ["US-TX-3"], args: "sh -c 'serve --port 8000'" });
    // A second stop is refused with 409 by RunPod; read back, the pod is stopped: success.
    fake.advance();
    fake.advance();
    await provider.stopMachine(created.id);
    await provider.stopMachine(created.id);
    expect(stub.callsOf("podAction")).toHaveLength(2);
    expect((await provider.getMachine(created.id))?.status).toBe("stopped");
  });

  it("exposes each port as port/http, and publishes it through the proxy once the pod runs", async () => {
    const created = await provider.createMachine({ label: label(1), offer_id: "SECURE:US-KS-2:1:NVIDIA GeForce RTX 4090", ports: [MODEL_PORT] });
    expect((stub.callsOf("createPod")[0]!.body as Record<string, unknown>).ports).toEqual(["8000/http"]);
    // Not yet running: no way there yet.
    expect(await provider.endpoint(created, MODEL_PORT)).toBeNull();
    fake.advance();
    fake.advance();
    const endpoint = await provider.endpoint(created, MODEL_PORT);
    expect(endpoint?.url).toBe(`https://${created.id}-8000.proxy.runpod.net`);
    // Reached over the network with the global fetch, at the URL and the path.
    const sent: string[] = [];
    vi.stubGlobal("fetch", async (input: string) => (sent.push(input), new Response("ok")));
    try {
      expect(await (await endpoint!.fetch("/v1/models")).text()).toBe("ok");
    } finally {
      vi.unstubAllGlobals();
    }
    expect(sent).toEqual([`https://${created.id}-8000.proxy.runpod.net/v1/models`]);
    expect(await provider.endpoint(created, 9000)).toBeNull();
    await provider.stopMachine(created.id);
    expect(await provider.endpoint(created, MODEL_PORT)).toBeNull();
  });

  it("sends no ports when none are asked for, and a pod without them has no endpoint", async () => {
    const created = await provider.createMachine({ label: label(1), offer_id: "SECURE:US-KS-2:1:NVIDIA GeForce RTX 4090" });
    expect(stub.callsOf("createPod")[0]!.body).not.toHaveProperty("ports");
    fake.advance();
    fake.advance();
    expect(await provider.endpoint(created, MODEL_PORT)).toBeNull();
    expect(await provider.endpoint({ ...created, id: "podgone" }, MODEL_PORT)).toBeNull();
  });

  it("a read answered 429 waits out Retry-After and succeeds", async () => {
    const created = await provider.createMachine({ label: label(1), offer_id: "SECURE:US-KS-2:1:NVIDIA GeForce RTX 4090" });
    stub.fault({ operationId: "getPod", kind: "answer", answer: { ...problem(429, "rate limit exceeded for the minute window"), headers: { "retry-after": "1" } } });
    const m = await provider.getMachine(created.id);
    expect(m?.id).toBe(created.id);
    expect(stub.callsOf("getPod")).toHaveLength(2);
    expect(sleeps).toEqual([1000]);
  });

  it("no capacity is no_capacity; 402 is insufficient_funds; 401 is auth", async () => {
    fake.soldOut.add("NVIDIA GeForce RTX 4090");
    const err = await provider.createMachine({ label: label(1), offer_id: "SECURE:US-KS-2:1:NVIDIA GeForce RTX 4090" }).catch((e) => e);
    expect(err).toMatchObject({ kind: "no_capacity" });

    stub.fault({ operationId: "createPod", kind: "answer", answer: problem(402, "insufficient balance to rent this pod") });
    expect(await provider.createMachine({ label: label(2), offer_id: "SECURE:US-TX-3:1:NVIDIA H100 80GB HBM3" }).catch((e) => e)).toMatchObject({ kind: "insufficient_funds" });

    stub.fault({ operationId: "listPods", kind: "answer", answer: problem(401, "missing bearer token") });
    expect(await provider.listMachines("lessor-").catch((e) => e)).toMatchObject({ kind: "auth" });
    // An offer id the adapter never made is refused before anything is sent.
    expect(await provider.createMachine({ label: label(3), offer_id: "h100" }).catch((e) => e)).toMatchObject({ kind: "no_capacity" });
    expect(stub.callsOf("createPod")).toHaveLength(2);
  });

  it("a stop refused because the pod is in ERROR is read back and reported", async () => {
    const created = await provider.createMachine({ label: label(1), offer_id: "SECURE:US-KS-2:1:NVIDIA GeForce RTX 4090" });
    fake.pods.get(created.id)!.status = "ERROR";
    expect((await provider.getMachine(created.id))?.status).toBe("error");
    expect(await provider.stopMachine(created.id).catch((e) => e)).toMatchObject({ kind: "unavailable" });
  });
  describe("billing records (GET /v2/billing/pods)", () => {
    const H = 3_600_000;
    const T10 = Date.UTC(2026, 5, 1, 10);

    it("asks for every pod's hourly buckets from the hour holding `from` to complete_through, an hour's lag behind `to` and on the hour", async () => {
      fake.billing = [podHour("podaaaa", T10, 0.43), podHour("podbbbb", T10, 2.69, 0.000123), podHour("podaaaa", T10 + H, 0.43)];
      const listing = await provider.listBillingRecords({ from: T10 + 20 * 60_000, to: T10 + 3 * H + 10 * 60_000 });
      expect(listing.complete_through).toBe(T10 + 2 * H);
      const [sent] = stub.callsOf("listPodBilling");
      // No podId: "records are emitted per pod per bucket". Boundaries already on the hour, so nothing is widened.
      expect(sent!.query).toEqual({ bucketSize: "hour", startTime: "2026-06-01T10:00:00Z", endTime: "2026-06-01T12:00:00Z" });
      expect(listing.records).toEqual([
        { record_id: "podaaaa:2026-06-01T10:00:00.000Z", machine_id: "podaaaa", window_start: T10, window_end: T10 + H, amount_usd: 0.43, components: { gpu_usd: 0.43, cpu_usd: 0, disk_usd: 0 } },
        { record_id: "podbbbb:2026-06-01T10:00:00.000Z", machine_id: "podbbbb", window_start: T10, window_end: T10 + H, amount_usd: 2.690123, components: { gpu_usd: 2.69, cpu_usd: 0, disk_usd: 0.000123 } },
        { record_id: "podaaaa:2026-06-01T11:00:00.000Z", machine_id: "podaaaa", window_start: T10 + H, window_end: T10 + 2 * H, amount_usd: 0.43, components: { gpu_usd: 0.43, cpu_usd: 0, disk_usd: 0 } },
      ]);
      expect(runpodBillingCompleteThrough(T10 + 3 * H)).toBe(T10 + 2 * H);
      expect(RUNPOD_BILLING_LAG_MS).toBe(H);
    });

    it("the same bucket has the same id whatever offset RunPod writes its start with", async () => {
      fake.billing = [podHour("podaaaa", T10, 0.43, 0, "2026-06-01T12:00:00+02:00")];
      const { records } = await provider.listBillingRecords({ from: T10, to: T10 + 3 * H });
      expect(records.map((r) => [r.record_id, r.window_start])).toEqual([["podaaaa:2026-06-01T10:00:00.000Z", T10]]);
    });

    it("a bucket past complete_through (the in-progress one) is never reported, even when answered", async () => {
      // As if the range were ignored: the current bucket, still growing, and one closed but inside the lag.
      fake.billing = [podHour("podaaaa", T10, 0.43), podHour("podaaaa", T10 + H, 0.43), podHour("podaaaa", T10 + 2 * H, 0.2)];
      const listing = await provider.listBillingRecords({ from: T10, to: T10 + 2 * H + 30 * 60_000 });
      expect(listing.complete_through).toBe(T10 + H);
      expect(listing.records.map((r) => r.window_start)).toEqual([T10]);
    });

    it("asks nothing while no bucket from `from` on is final", async () => {
      const listing = await provider.listBillingRecords({ from: T10 + 30 * 60_000, to: T10 + 2 * H - 1 });
      expect(listing).toEqual({ records: [], complete_through: T10 });
      expect(stub.callsOf("listPodBilling")).toHaveLength(0);
    });

    it("a record it cannot read is passed on unreadable, for the reconciler to count, never dropped or guessed", async () => {
      fake.billing = [podHour("", T10, 0.43)];
      const { records } = await provider.listBillingRecords({ from: T10, to: T10 + 3 * H });
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ record_id: "", machine_id: "", amount_usd: 0.43 });
    });

    it("an answer whose recordCount disagrees with its records is unavailable: never a partial listing", async () => {
      fake.billing = [podHour("podaaaa", T10, 0.43)];
      stub.fault({ operationId: "listPodBilling", kind: "answer", answer: { status: 200, body: podBillingBody(fake.billing, { startTime: "2026-06-01T10:00:00Z", endTime: "2026-06-01T12:00:00Z" }, 2) } });
      expect(await provider.listBillingRecords({ from: T10, to: T10 + 3 * H }).catch((e) => e)).toMatchObject({ kind: "unavailable" });
    });

    it("is a read: a 429 waits out Retry-After and a 503 is retried; a refused key is auth", async () => {
      fake.billing = [podHour("podaaaa", T10, 0.43)];
      stub.fault({ operationId: "listPodBilling", kind: "answer", answer: { ...problem(429, "rate limit exceeded for the minute window"), headers: { "retry-after": "2" } } });
      stub.fault({ operationId: "listPodBilling", kind: "answer", answer: problem(503, "temporarily unavailable") });
      expect((await provider.listBillingRecords({ from: T10, to: T10 + 3 * H })).records).toHaveLength(1);
      expect(stub.callsOf("listPodBilling")).toHaveLength(3);
      expect(sleeps[0]).toBe(2000);
      stub.fault({ operationId: "listPodBilling", kind: "answer", answer: problem(401, "invalid bearer token") });
      expect(await provider.listBillingRecords({ from: T10, to: T10 + 3 * H }).catch((e) => e)).toMatchObject({ kind: "auth" });
    });
  });
});
