/**
 * What only the RunPod adapter does, against the RunPod stub cloud (test/support/stub-clouds/runpod.ts,
 * the one fake of RunPod) over real HTTP through the harness: every request and answer is held to
 * RunPod's own OpenAPI document, and no test may leave a violation behind. What every adapter does
 * is in providers-adapters.test.ts.
 */
import { describe, expect, it, vi } from "vitest";
import { machineLabel } from "../../src/lease/label";
import { MODEL_PORT } from "../../src/providers/contract";
import { RUNPOD_BILLING_LAG_MS, type RunPodProvider, runpodBillingCompleteThrough } from "../../src/providers/runpod/adapter";
import { CONTRACTS_DIR, sha256 } from "../support/contract-stub";
import { BOOT_MS, PROVISION_MS, STUB_INSTALLATION as INSTALLATION, useProviderRig, useStubClouds } from "../support/stub-clouds/harness";
import { type RunPodDialect, runpodBillingBody, runpodPodHour, runpodProblem } from "../support/stub-clouds/runpod";

const h = useStubClouds({ recordCalls: true });
const LEASE = "ls_01jrunpod";

describe("RunPod adapter against the RunPod stub cloud", () => {
  const rig = useProviderRig<RunPodProvider, RunPodDialect>(h, "runpod");
  const label = (attempt: number) => machineLabel(INSTALLATION, LEASE, attempt);

  it("is the document that was pinned (sha256 in the lock file)", async () => {
    const { readFileSync } = await import("node:fs");
    const lock = JSON.parse(readFileSync(`${CONTRACTS_DIR}/runpod-v2-openapi.lock.json`, "utf8"));
    expect(sha256(rig.stub.contract.text)).toBe(lock.sha256);
  });

  it("normalizes the catalog: per-GPU price times count, counts up to maxCount, no NONE data centers, unclassified counted", async () => {
    const { offers, unclassified } = await rig.provider.listOffers();
    // One catalog read per (cloud, count).
    expect(rig.stub.callsOf("listGpuTypes")).toHaveLength(8);
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
    expect(new Set(offers.map((o) => o.gpu))).toEqual(new Set(["l40s", "l4", "rtx4090", "h100", "a100-80gb"]));

    // The A4500: SECURE, 1 GPU, in US-KS-2 (one offer).
    expect(unclassified).toBe(1);
  });

  it("the memory settles the A100's size: a name without it would not", async () => {
    // Each of the adapter's eight catalog reads answered with the one type, named without its memory.
    for (const [memory, gpu] of [[80, "a100-80gb"], [40, "a100-40gb"]] as const) {
      const a100 = { id: "NVIDIA A100 PCIe", name: "A100 PCIe", pool: null, manufacturer: "NVIDIA", memory, secure: true, community: false, price: { secure: 1.64, community: 0 }, maxCount: { secure: 1, community: 0 } };
      const gpus = [{ ...a100, availability: "HIGH", dataCenters: [{ id: "EU-RO-1", name: "EU Romania 1", availability: "HIGH" }] }];
      for (let n = 0; n < 8; n++) rig.stub.fault({ operationId: "listGpuTypes", kind: "answer", answer: { status: 200, body: { gpus } } });
      const { offers } = await rig.provider.listOffers();
      expect(offers.map((o) => [o.provider_offer_id, o.gpu]), `${memory} GB`).toEqual([["SECURE:EU-RO-1:1:NVIDIA A100 PCIe", gpu]]);
    }
    expect(rig.stub.faults).toHaveLength(0);
  });

  it("a create asks for the offer's GPU, count, cloud and data center, and sends cmd as sh -c args", async () => {
    const { offers } = await rig.provider.listOffers();
    const offer = offers.find((o) => o.gpu === "h100" && o.gpu_count === 1)!;
    const created = await rig.provider.createMachine({ label: label(1), offer_id: offer.provider_offer_id, image: "ghcr.io/acme/server@sha256:abc", cmd: "serve --port 8000" });
    expect(created).toMatchObject({ label: label(1), status: "provisioning", region: "us-tx-3", hourly_usd: 2.69, offer_id: offer.provider_offer_id });
    const sent = rig.stub.callsOf("createPod")[0]!.body as Record<string, unknown>;
    expect(sent).toMatchObject({ name: label(1), gpu: { id: "NVIDIA H100 80GB HBM3", count: 1 }, cloud: "SECURE", dataCenterIds: ["US-TX-3"], args: "sh -c 'serve --port 8000'" });
    // A second stop is refused with 409 by RunPod; read back, the pod is stopped: success.
    h.clock += PROVISION_MS + BOOT_MS;
    await rig.provider.stopMachine(created.id);
    await rig.provider.stopMachine(created.id);
    expect(rig.stub.callsOf("podAction")).toHaveLength(2);
    expect((await rig.provider.getMachine(created.id))?.status).toBe("stopped");
  });

  it("exposes each port as port/http, and publishes it through the proxy once the pod runs", async () => {
    const created = await rig.provider.createMachine({ label: label(1), offer_id: "SECURE:US-KS-2:1:NVIDIA GeForce RTX 4090", ports: [MODEL_PORT] });
    expect((rig.stub.callsOf("createPod")[0]!.body as Record<string, unknown>).ports).toEqual(["8000/http"]);
    // Not yet running: no way there yet.
    expect(await rig.provider.endpoint(created, MODEL_PORT)).toBeNull();
    h.clock += PROVISION_MS + BOOT_MS;
    const endpoint = await rig.provider.endpoint(created, MODEL_PORT);
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
    expect(await rig.provider.endpoint(created, 9000)).toBeNull();
    await rig.provider.stopMachine(created.id);
    expect(await rig.provider.endpoint(created, MODEL_PORT)).toBeNull();
  });

  it("sends no ports when none are asked for, and a pod without them has no endpoint", async () => {
    const created = await rig.provider.createMachine({ label: label(1), offer_id: "SECURE:US-KS-2:1:NVIDIA GeForce RTX 4090" });
    expect(rig.stub.callsOf("createPod")[0]!.body).not.toHaveProperty("ports");
    h.clock += PROVISION_MS + BOOT_MS;
    expect(await rig.provider.endpoint(created, MODEL_PORT)).toBeNull();
    expect(await rig.provider.endpoint({ ...created, id: "podgone" }, MODEL_PORT)).toBeNull();
  });

  it("a read answered 429 waits out Retry-After and succeeds", async () => {
    const created = await rig.provider.createMachine({ label: label(1), offer_id: "SECURE:US-KS-2:1:NVIDIA GeForce RTX 4090" });
    rig.stub.fault({ operationId: "getPod", kind: "answer", answer: runpodProblem(429, "rate limit exceeded for the minute window", { "retry-after": "1" }) });
    const m = await rig.provider.getMachine(created.id);
    expect(m?.id).toBe(created.id);
    expect(rig.stub.callsOf("getPod")).toHaveLength(2);
    expect(rig.sleeps).toEqual([1000]);
  });

  it("no capacity is no_capacity; 402 is insufficient_funds; 401 is auth", async () => {
    await h.admin("runpod").setFaults({ no_capacity_rate: 1 });
    const err = await rig.provider.createMachine({ label: label(1), offer_id: "SECURE:US-KS-2:1:NVIDIA GeForce RTX 4090" }).catch((e) => e);
    expect(err).toMatchObject({ kind: "no_capacity" });
    await h.admin("runpod").setFaults({ no_capacity_rate: 0 });

    rig.stub.fault({ operationId: "createPod", kind: "answer", answer: runpodProblem(402, "insufficient balance to rent this pod") });
    expect(await rig.provider.createMachine({ label: label(2), offer_id: "SECURE:US-TX-3:1:NVIDIA H100 80GB HBM3" }).catch((e) => e)).toMatchObject({ kind: "insufficient_funds" });

    rig.stub.fault({ operationId: "listPods", kind: "answer", answer: runpodProblem(401, "missing bearer token") });
    expect(await rig.provider.listMachines("lessor-").catch((e) => e)).toMatchObject({ kind: "auth" });
    // An offer id the adapter never made is refused before anything is sent.
    expect(await rig.provider.createMachine({ label: label(3), offer_id: "h100" }).catch((e) => e)).toMatchObject({ kind: "no_capacity" });
    expect(rig.stub.callsOf("createPod")).toHaveLength(2);
  });

  it("a stop refused because the pod is in ERROR is read back and reported", async () => {
    // The pod's boot fails: it ends in ERROR.
    await h.admin("runpod").setFaults({ boot_failure_rate: 1 });
    const created = await rig.provider.createMachine({ label: label(1), offer_id: "SECURE:US-KS-2:1:NVIDIA GeForce RTX 4090" });
    h.clock += PROVISION_MS + BOOT_MS;
    expect((await rig.provider.getMachine(created.id))?.status).toBe("error");
    expect(await rig.provider.stopMachine(created.id).catch((e) => e)).toMatchObject({ kind: "unavailable" });
  });
  describe("billing records (GET /v2/billing/pods)", () => {
    const H = 3_600_000;
    const T10 = Date.UTC(2026, 5, 1, 10);

    it("asks for every pod's hourly buckets from the hour holding `from` to complete_through, an hour's lag behind `to` and on the hour", async () => {
      rig.dialect.billingRecords = [runpodPodHour("podaaaa", T10, 0.43), runpodPodHour("podbbbb", T10, 2.69, 0.000123), runpodPodHour("podaaaa", T10 + H, 0.43)];
      const listing = await rig.provider.listBillingRecords({ from: T10 + 20 * 60_000, to: T10 + 3 * H + 10 * 60_000 });
      expect(listing.complete_through).toBe(T10 + 2 * H);
      const [sent] = rig.stub.callsOf("listPodBilling");
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
      rig.dialect.billingRecords = [runpodPodHour("podaaaa", T10, 0.43, 0, "2026-06-01T12:00:00+02:00")];
      const { records } = await rig.provider.listBillingRecords({ from: T10, to: T10 + 3 * H });
      expect(records.map((r) => [r.record_id, r.window_start])).toEqual([["podaaaa:2026-06-01T10:00:00.000Z", T10]]);
    });

    it("a bucket past complete_through (the in-progress one) is never reported, even when answered", async () => {
      // As if the range were ignored: the current bucket, still growing, and one closed but inside the lag.
      rig.dialect.billingRecords = [runpodPodHour("podaaaa", T10, 0.43), runpodPodHour("podaaaa", T10 + H, 0.43), runpodPodHour("podaaaa", T10 + 2 * H, 0.2)];
      const listing = await rig.provider.listBillingRecords({ from: T10, to: T10 + 2 * H + 30 * 60_000 });
      expect(listing.complete_through).toBe(T10 + H);
      expect(listing.records.map((r) => r.window_start)).toEqual([T10]);
    });

    it("asks nothing while no bucket from `from` on is final", async () => {
      const listing = await rig.provider.listBillingRecords({ from: T10 + 30 * 60_000, to: T10 + 2 * H - 1 });
      expect(listing).toEqual({ records: [], complete_through: T10 });
      expect(rig.stub.callsOf("listPodBilling")).toHaveLength(0);
    });

    it("a record it cannot read is passed on unreadable, for the reconciler to count, never dropped or guessed", async () => {
      rig.dialect.billingRecords = [runpodPodHour("", T10, 0.43)];
      const { records } = await rig.provider.listBillingRecords({ from: T10, to: T10 + 3 * H });
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ record_id: "", machine_id: "", amount_usd: 0.43 });
    });

    it("an answer whose recordCount disagrees with its records is unavailable: never a partial listing", async () => {
      rig.dialect.billingRecords = [runpodPodHour("podaaaa", T10, 0.43)];
      rig.stub.fault({ operationId: "listPodBilling", kind: "answer", answer: { status: 200, body: runpodBillingBody(rig.dialect.billingRecords, { startTime: "2026-06-01T10:00:00Z", endTime: "2026-06-01T12:00:00Z", bucketSize: "hour", podId: null }, 2) } });
      expect(await rig.provider.listBillingRecords({ from: T10, to: T10 + 3 * H }).catch((e) => e)).toMatchObject({ kind: "unavailable" });
    });

    it("network volumes' records (GET /v2/billing/networkvolumes) come with the pods', by the same buckets and lag, as volume records", async () => {
      rig.dialect.billingRecords = [runpodPodHour("podaaaa", T10, 0.43)];
      const hour = (start: number, total: number) => ({
        startTime: new Date(start).toISOString(),
        endTime: new Date(start + H).toISOString(),
        networkVolumeId: "nv0000001",
        totalAmount: total,
        standardAmount: total,
        highPerformanceAmount: 0,
      });
      // The last one is inside the lag: not final, never reported.
      rig.dialect.volumeBillingRecords = [hour(T10, 0.009589), hour(T10 + H, 0.009589), hour(T10 + 2 * H, 0.004)];
      const listing = await rig.provider.listBillingRecords({ from: T10, to: T10 + 3 * H });
      const [sent] = rig.stub.callsOf("listNetworkVolumeBilling");
      expect(sent!.query).toEqual({ bucketSize: "hour", startTime: "2026-06-01T10:00:00Z", endTime: "2026-06-01T12:00:00Z" });
      expect(listing.records.filter((r) => r.resource === "volume")).toEqual([
        { record_id: "volume:nv0000001:2026-06-01T10:00:00.000Z", machine_id: "nv0000001", window_start: T10, window_end: T10 + H, amount_usd: 0.009589, components: { standard_usd: 0.009589, high_performance_usd: 0 }, resource: "volume" },
        { record_id: "volume:nv0000001:2026-06-01T11:00:00.000Z", machine_id: "nv0000001", window_start: T10 + H, window_end: T10 + 2 * H, amount_usd: 0.009589, components: { standard_usd: 0.009589, high_performance_usd: 0 }, resource: "volume" },
      ]);
      expect(listing.records.filter((r) => r.resource === undefined).map((r) => r.machine_id)).toEqual(["podaaaa"]);
      // A volume states no price in the document: none is assumed.
      expect(rig.provider.volumePrice("eu-ro-1")).toBeNull();
    });

    it("is a read: a 429 waits out Retry-After and a 503 is retried; a refused key is auth", async () => {
      rig.dialect.billingRecords = [runpodPodHour("podaaaa", T10, 0.43)];
      rig.stub.fault({ operationId: "listPodBilling", kind: "answer", answer: { ...runpodProblem(429, "rate limit exceeded for the minute window"), headers: { "retry-after": "2" } } });
      rig.stub.fault({ operationId: "listPodBilling", kind: "answer", answer: runpodProblem(503, "temporarily unavailable") });
      expect((await rig.provider.listBillingRecords({ from: T10, to: T10 + 3 * H })).records).toHaveLength(1);
      expect(rig.stub.callsOf("listPodBilling")).toHaveLength(3);
      expect(rig.sleeps[0]).toBe(2000);
      rig.stub.fault({ operationId: "listPodBilling", kind: "answer", answer: runpodProblem(401, "invalid bearer token") });
      expect(await rig.provider.listBillingRecords({ from: T10, to: T10 + 3 * H }).catch((e) => e)).toMatchObject({ kind: "auth" });
    });
  });
});
