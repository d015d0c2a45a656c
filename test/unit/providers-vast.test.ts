/**
 * What only the Vast.ai adapter does, against the Vast stub cloud (test/support/stub-clouds/vast.ts,
 * the one fake of Vast) over real HTTP through the harness: every request and answer is held to
 * Vast's own OpenAPI document, and no test may leave a violation behind. What every adapter does is
 * in providers-adapters.test.ts.
 */
import { describe, expect, it } from "vitest";
import { installationPrefix, leasePrefix, machineLabel } from "../../src/lease/label";
import { MODEL_PORT } from "../../src/providers/contract";
import { VAST_BILLING_LAG_MS, VAST_LABEL_ATTEMPTS, VAST_RATE_LIMIT_WAIT_MS, type VastProvider, vastBillingCompleteThrough, vastEndpointUrl, vastRegion, vastStatus, vastTakenBack } from "../../src/providers/vast/adapter";
import { BOOT_MS, PROVISION_MS, STUB_INSTALLATION as INSTALLATION, useProviderRig, useStubClouds } from "../support/stub-clouds/harness";
import { VAST_ASKS, vastChargeRow as chargeRow, vastOfferJson, type VastDialect } from "../support/stub-clouds/vast";

const h = useStubClouds({ recordCalls: true });
const LEASE = "ls_01jvast";

/** The ask of this id in the stub's market. */
const ask = (id: number) => VAST_ASKS.find((a) => a.id === id)!;

describe("Vast adapter against the Vast stub cloud", () => {
  const rig = useProviderRig<VastProvider, VastDialect>(h, "vast");
  const label = (attempt: number) => machineLabel(INSTALLATION, LEASE, attempt);

  it("searches on-demand, verified, rentable offers with the disk every instance gets, and normalizes them", async () => {
    const { offers, unclassified } = await rig.provider.listOffers();
    expect(rig.stub.callsOf("searchOffers")[0]!.body).toMatchObject({ type: "ondemand", verified: { eq: true }, rentable: { eq: true }, rented: { eq: false }, allocated_storage: 50 });
    // 3061 has too little disk for the 50 GB every instance gets: left out, not counted.
    // The on-demand offers (each ask is listed by bid too: the spot test below).
    expect(offers.filter((o) => !o.spot).map((o) => [o.provider_offer_id, o.gpu, o.gpu_count]).sort()).toEqual(
      [
        ["3001", "l40s", 1],
        ["3002", "l40s", 1],
        ["3003", "l40s", 1],
        ["3004", "l40s", 4],
        ["3011", "l4", 1],
        ["3012", "l4", 1],
        ["3013", "l4", 1],
        ["3021", "rtx4090", 1],
        ["3031", "h100", 8],
        ["3041", "a100-80gb", 1],
      ].sort(),
    );
    // The RTX 2080 Ti: no class covers it, left out and counted.
    expect(unclassified).toBe(1);
    const o = offers.find((x) => x.provider_offer_id === "3021")!;
    // dph_total with 50 GB at $0.10/GB/month: 0.42 + 0.0068.
    expect(o).toMatchObject({ id: "vast:3021", provider: "vast", region: "us", host_id: "621", hourly_usd: 0.4268, availability: "high", vcpu: 16, memory_gb: 64, disk_gb: 50, vram_gb: 24, spot: false });
    expect(offers.find((x) => x.provider_offer_id === "3041")!).toMatchObject({ region: "cz", availability: "low" });
  });

  it("the memory (MB) settles which A100; a GPU no class covers is counted", async () => {
    const a100 = ask(3041);
    const offers = [vastOfferJson(a100, 50), vastOfferJson({ ...a100, id: 3042, gpu_name: "A100 SXM4", num_gpus: 2, gpu_ram: 40960 }, 50), vastOfferJson({ ...ask(3051), id: 3052, gpu_name: "Titan Xp", num_gpus: 2, gpu_ram: 12288 }, 50)];
    rig.stub.fault({ operationId: "searchOffers", kind: "answer", answer: { status: 200, body: { offers } } });
    const listing = await rig.provider.listOffers();
    expect(listing.offers.filter((x) => !x.spot).map((x) => [x.provider_offer_id, x.gpu, x.gpu_count])).toEqual([
      ["3041", "a100-80gb", 1],
      ["3042", "a100-40gb", 2],
    ]);
    expect(listing.unclassified).toBe(1);
  });

  it("maps each port to itself at create, and publishes it at the address and host port once the container runs", async () => {
    const created = await rig.provider.createMachine({ label: label(1), offer_id: "3021", cmd: "serve", env: { MODE: "fast" }, ports: [MODEL_PORT] });
    expect(rig.stub.callsOf("createInstance")[0]!.body).toMatchObject({ env: "-e MODE=fast -p 8000:8000" });
    expect(await rig.provider.endpoint(created, MODEL_PORT)).toBeNull();
    h.clock += PROVISION_MS + BOOT_MS;
    // The stub's host ports: SSH's first, then each mapped port, from 20000 + (id % 1000) * 10.
    expect((await rig.provider.endpoint(created, MODEL_PORT))?.url).toBe(`http://203.0.113.42:${20000 + (Number(created.id) % 1000) * 10 + 1}`);
    // A port the create did not map has no endpoint, nor has an instance that is gone.
    expect(await rig.provider.endpoint(created, 9000)).toBeNull();
    expect(await rig.provider.endpoint({ ...created, id: "999999" }, MODEL_PORT)).toBeNull();
  });

  it("sends no port mapping when none is asked for", async () => {
    await rig.provider.createMachine({ label: label(1), offer_id: "3021", cmd: "serve" });
    expect(rig.stub.callsOf("createInstance")[0]!.body).not.toHaveProperty("env");
  });

  it("a create sends the label, disk and cmd as sh -c args; a stop and a start are read back as Vast carries them out", async () => {
    const created = await rig.provider.createMachine({ label: label(1), offer_id: "3021", image: "vllm/vllm-openai@sha256:abc", cmd: "vllm serve --model x" });
    // Stopped, the instance bills its disk: 50 GB at $0.10/GB/month, per hour.
    expect(created).toMatchObject({ label: label(1), status: "provisioning", host_id: "621", region: "us", hourly_usd: 0.4268, stopped_hourly_usd: 0.0068 });
    expect(rig.stub.callsOf("createInstance")[0]!.body).toMatchObject({ image: "vllm/vllm-openai@sha256:abc", label: label(1), disk: 50, runtype: "args", args_str: "sh -c 'vllm serve --model x'", cancel_unavail: true });

    h.clock += PROVISION_MS;
    expect((await rig.provider.getMachine(created.id))?.status).toBe("starting");
    h.clock += BOOT_MS;
    expect((await rig.provider.getMachine(created.id))?.status).toBe("running");

    await rig.provider.stopMachine(created.id);
    // Accepted, not yet carried out: the container still runs, and that is what is reported.
    rig.dialect.instanceOverride.set(created.id, { actual_status: "running", intended_status: "stopped", cur_state: "stopped" });
    expect((await rig.provider.getMachine(created.id))?.status).toBe("running");
    rig.dialect.instanceOverride.delete(created.id);
    expect((await rig.provider.getMachine(created.id))?.status).toBe("stopped");

    await rig.provider.startMachine(created.id);
    // The document: a container `exited` while meant to run never reaches `running` (docs/design.md "Refusals").
    // Shown so right after a start, it reads as `error`: if Vast really shows that after a start,
    // a restarted lease replaces its host.
    rig.dialect.instanceOverride.set(created.id, { actual_status: "exited", intended_status: "running", cur_state: "running", status_msg: null });
    expect((await rig.provider.getMachine(created.id))?.status).toBe("error");
    rig.dialect.instanceOverride.delete(created.id);
    h.clock += BOOT_MS;
    expect((await rig.provider.getMachine(created.id))?.status).toBe("running");
  });

  it("spot: lists each ask by bid too, at its minimum bid with its on-demand price beside it; rents it with a price; an outbid instance reads preempted", async () => {
    const { offers } = await rig.provider.listOffers();
    expect(rig.stub.callsOf("searchOffers").map((c) => (c.body as { type: string }).type)).toEqual(["ondemand", "bid"]);
    const onDemand = offers.find((o) => o.provider_offer_id === "3021")!;
    const bid = offers.find((o) => o.provider_offer_id === "bid-3021")!;
    const json = vastOfferJson(ask(3021), 50);
    expect(onDemand).toMatchObject({ id: "vast:3021", spot: false, hourly_usd: json.dph_total });
    expect(onDemand.on_demand_hourly_usd).toBeUndefined();
    expect(bid).toMatchObject({ id: "vast:bid-3021", spot: true, hourly_usd: Math.round((json.min_bid + json.storage_total_cost) * 1e4) / 1e4, on_demand_hourly_usd: json.dph_total, host_id: onDemand.host_id });

    // A bid offer without a bid is refused before anything is sent.
    await expect(rig.provider.createMachine({ label: label(1), offer_id: "bid-3021" })).rejects.toMatchObject({ kind: "refused" });
    expect(rig.stub.callsOf("createInstance")).toHaveLength(0);
    const created = await rig.provider.createMachine({ label: label(1), offer_id: "bid-3021", cmd: "train", bid_usd: bid.hourly_usd });
    const call = rig.stub.callsOf("createInstance")[0]!;
    expect(String(call.params.id)).toBe("3021");
    expect(call.body).toMatchObject({ price: Math.round(bid.hourly_usd * 1000) / 1000, label: label(1) });
    h.clock += PROVISION_MS + BOOT_MS;
    expect(await rig.provider.getMachine(created.id)).toMatchObject({ status: "running" });
    expect((await rig.provider.getMachine(created.id))!.preempted).toBeUndefined();

    // Outbid: the market stops the contract while the instance is meant to run: the contract's `preempted`.
    expect(rig.dialect.outbid(created.id)).toBe(true);
    const taken = await rig.provider.getMachine(created.id);
    expect(taken).toMatchObject({ status: "stopped", preempted: true });
    expect((await rig.provider.listMachines(leasePrefix(INSTALLATION, LEASE)))[0]).toMatchObject({ id: created.id, preempted: true });
    // It is destroyed like any other.
    await rig.provider.destroyMachine(created.id);
    expect(await rig.provider.getMachine(created.id)).toBeNull();
  });

  it("reads only a bid instance meant to run that no longer does as taken back", () => {
    expect(vastTakenBack({ is_bid: true, actual_status: "exited", intended_status: "running", cur_state: "stopped" })).toBe(true);
    expect(vastTakenBack({ is_bid: true, actual_status: "offline", intended_status: "running", cur_state: "running" })).toBe(true);
    expect(vastTakenBack({ is_bid: true, actual_status: "running", intended_status: "running", cur_state: "running" })).toBe(false);
    // Stopped by lessor (its stop asks for `stopped`), or an on-demand instance: not a preemption.
    expect(vastTakenBack({ is_bid: true, actual_status: "exited", intended_status: "stopped", cur_state: "stopped" })).toBe(false);
    expect(vastTakenBack({ is_bid: false, actual_status: "exited", intended_status: "running", cur_state: "stopped" })).toBe(false);
  });

  it("429 without Retry-After on a read waits the adapter's own backoff, then succeeds", async () => {
    const created = await rig.provider.createMachine({ label: label(1), offer_id: "3021" });
    rig.sleeps.length = 0;
    rig.stub.fault({ operationId: "showInstances", kind: "answer", answer: { status: 429, body: { detail: "API requests too frequent endpoint threshold=2.0" } } });
    expect((await rig.provider.getMachine(created.id))?.id).toBe(created.id);
    expect(rig.sleeps).toEqual([VAST_RATE_LIMIT_WAIT_MS]);
  });

  it("no_such_ask is no_capacity (404 gone, 410 no longer available)", async () => {
    // Every create meets an ask that cannot start now: 410.
    await h.admin("vast").setFaults({ no_capacity_rate: 1 });
    expect(await rig.provider.createMachine({ label: label(1), offer_id: "3004" }).catch((e) => e)).toMatchObject({ kind: "no_capacity" });
    await h.admin("vast").setFaults({ no_capacity_rate: 0 });
    // An ask the market never had: 404.
    expect(await rig.provider.createMachine({ label: label(2), offer_id: "3999" }).catch((e) => e)).toMatchObject({ kind: "no_capacity" });
    expect(await rig.provider.createMachine({ label: label(3), offer_id: "vast:3021" }).catch((e) => e)).toMatchObject({ kind: "no_capacity" });
    expect(rig.stub.callsOf("createInstance")).toHaveLength(2);
    expect((await h.admin("vast").getLedger("")).machines).toHaveLength(0);
  });

  it("lists by an installation's prefix across pages, never another's or an unlabelled instance", async () => {
    const ids: string[] = [];
    for (let n = 1; n <= 30; n++) ids.push((await rig.provider.createMachine({ label: machineLabel(INSTALLATION, `${LEASE}${n}`, 1), offer_id: "3021" })).id);
    await rig.provider.createMachine({ label: machineLabel("other", LEASE, 1), offer_id: "3021" });
    rig.dialect.instanceOverride.set(ids[4]!, { label: null });
    const before = rig.stub.callsOf("showInstances").length;
    const found = await rig.provider.listMachines(installationPrefix(INSTALLATION));
    expect(found).toHaveLength(29);
    expect(rig.stub.callsOf("showInstances").length - before).toBeGreaterThanOrEqual(2);
    expect(found.every((m) => m.label.startsWith(installationPrefix(INSTALLATION)))).toBe(true);
  });

  it("lists a lease's machines by their exact labels, filtered on the server: one request", async () => {
    for (let n = 1; n <= 30; n++) await rig.provider.createMachine({ label: machineLabel(INSTALLATION, `${LEASE}${n}`, 1), offer_id: "3021" });
    await rig.provider.createMachine({ label: label(1), offer_id: "3021" });
    await rig.provider.createMachine({ label: label(3), offer_id: "3021" });
    const before = rig.stub.callsOf("showInstances").length;
    const found = await rig.provider.listMachines(leasePrefix(INSTALLATION, LEASE));
    expect(found.map((m) => m.label)).toEqual([label(1), label(3)]);
    const calls = rig.stub.callsOf("showInstances").slice(before);
    expect(calls).toHaveLength(1);
    expect(JSON.parse(String(calls[0]!.query.select_filters))).toEqual({ label: { in: Array.from({ length: VAST_LABEL_ATTEMPTS }, (_, n) => label(n + 1)) } });
  });

  it("maps Vast's statuses, including the document's poll trap", () => {
    expect(vastStatus({ actual_status: null, intended_status: "running" })).toBe("provisioning");
    expect(vastStatus({ actual_status: "loading", intended_status: "running" })).toBe("starting");
    expect(vastStatus({ actual_status: "running", intended_status: "stopped" })).toBe("running");
    expect(vastStatus({ actual_status: "exited", intended_status: "stopped" })).toBe("stopped");
    expect(vastStatus({ actual_status: "offline", intended_status: "running" })).toBe("error");
    expect(vastStatus({ actual_status: "unknown", intended_status: "running" })).toBe("error");
    expect(vastStatus({ actual_status: "exited", intended_status: "running", status_msg: "Error response from daemon: OCI runtime create failed" })).toBe("error");
    // The poll trap needs no error message; a contract stopped behind lessor's back is stopped.
    expect(vastStatus({ actual_status: "exited", intended_status: "running", cur_state: "running", status_msg: null })).toBe("error");
    expect(vastStatus({ actual_status: "exited", intended_status: "running", cur_state: "stopped" })).toBe("stopped");
    expect(vastRegion("Washington, US")).toBe("us");
    expect(vastRegion("Atlantis, AT")).toBe("at");
    expect(vastRegion(null)).toBe("unknown");
  });
  describe("billing records (GET /api/v0/charges)", () => {
    const H = 3_600_000;
    const DAY = 24 * H;
    const JUNE1 = Date.UTC(2026, 5, 1);
    const JUNE2 = JUNE1 + DAY;
    const secs = (ms: number) => ms / 1000;

    it("asks day by day (the document's inclusive day range, instances only) through every page; one record per instance per day, the difference of Vast's own dollars", async () => {
      rig.dialect.chargesPage = 2;
      rig.dialect.chargeRows.set(secs(JUNE1), [chargeRow(7_000_001, { gpu: 1.234, disk: 0.05 }), chargeRow(7_000_002, { gpu: 0.4 }), chargeRow(55, { disk: 0.2 }, "volume"), chargeRow(7_000_003, { gpu: 2, bwd: 0.001, bwu: 0.002 })]);
      rig.dialect.chargeRows.set(secs(JUNE2), [chargeRow(7_000_001, { gpu: 0.5 })]);
      const listing = await rig.provider.listBillingRecords({ from: JUNE1 + 5 * H, to: JUNE2 + DAY + 2.5 * H });
      expect(listing.complete_through).toBe(JUNE2 + DAY);
      const calls = rig.stub.callsOf("showCharges");
      // Each day D is the difference of two charges from the day before: through D, through D - 1.
      const MAY31 = JUNE1 - DAY;
      const range = (from: number, days: number) => ({ day: { gte: secs(from), lte: secs(from) + days * 86_400 - 1 }, type: { in: ["instance"] } });
      expect(calls.map((c) => [JSON.parse(String(c.query.select_filters)), c.query.limit, c.query.after_token !== undefined])).toEqual([
        [range(MAY31, 2), 500, false],
        [range(MAY31, 2), 500, true],
        [range(MAY31, 1), 500, false],
        [range(JUNE1, 2), 500, false],
        [range(JUNE1, 2), 500, true],
        [range(JUNE1, 1), 500, false],
        [range(JUNE1, 1), 500, true],
      ]);
      expect(listing.records).toEqual([
        { record_id: "instance-7000001:2026-06-01", machine_id: "7000001", window_start: JUNE1, window_end: JUNE2, amount_usd: 1.284, components: { gpu_usd: 1.234, disk_usd: 0.05 } },
        { record_id: "instance-7000002:2026-06-01", machine_id: "7000002", window_start: JUNE1, window_end: JUNE2, amount_usd: 0.4, components: { gpu_usd: 0.4 } },
        // The volume is no machine lessor rents: left out.
        { record_id: "instance-7000003:2026-06-01", machine_id: "7000003", window_start: JUNE1, window_end: JUNE2, amount_usd: 2.003, components: { gpu_usd: 2, bwd_usd: 0.001, bwu_usd: 0.002 } },
        { record_id: "instance-7000001:2026-06-02", machine_id: "7000001", window_start: JUNE2, window_end: JUNE2 + DAY, amount_usd: 0.5, components: { gpu_usd: 0.5, disk_usd: 0 } },
      ]);
      // Asked again over an overlapping range: the same records.
      const again = await rig.provider.listBillingRecords({ from: JUNE2 - 2 * H, to: JUNE2 + DAY + 3 * H });
      expect(again.records).toEqual(listing.records);
    });

    it("a day is asked for only once it has closed and the lag has passed", async () => {
      rig.dialect.chargeRows.set(secs(JUNE1), [chargeRow(7_000_001, { gpu: 1 })]);
      expect(await rig.provider.listBillingRecords({ from: JUNE1 + 12 * H, to: JUNE2 + VAST_BILLING_LAG_MS - 1 })).toEqual({ records: [], complete_through: JUNE1 });
      expect(rig.stub.callsOf("showCharges")).toHaveLength(0);
      const listing = await rig.provider.listBillingRecords({ from: JUNE1 + 12 * H, to: JUNE2 + VAST_BILLING_LAG_MS });
      expect(listing.complete_through).toBe(JUNE2);
      expect(listing.records.map((r) => r.record_id)).toEqual(["instance-7000001:2026-06-01"]);
      expect(vastBillingCompleteThrough(JUNE2 + VAST_BILLING_LAG_MS)).toBe(JUNE2);
      expect(VAST_BILLING_LAG_MS).toBe(2 * H);
    });

    it("an instance with no charge that day has no record; one Vast answers without an id is passed on unreadable", async () => {
      rig.dialect.chargeRows.set(secs(JUNE1), [{ ...chargeRow(7_000_001, { gpu: 1 }), source: "instance-" }]);
      const { records } = await rig.provider.listBillingRecords({ from: JUNE1, to: JUNE2 + DAY });
      expect(records).toEqual([{ record_id: "", machine_id: "", window_start: JUNE1, window_end: JUNE2, amount_usd: 1, components: { gpu_usd: 1 } }]);
    });

    it("a day whose rows do not add up to its total, or that names an instance twice, is unavailable: never half a day", async () => {
      rig.dialect.chargeRows.set(secs(JUNE1), [chargeRow(7_000_001, { gpu: 1 })]);
      rig.stub.fault({ operationId: "showCharges", kind: "answer", answer: { status: 200, body: { success: true, count: 1, total: 2, next_token: null, results: [chargeRow(7_000_001, { gpu: 1 })] } } });
      expect(await rig.provider.listBillingRecords({ from: JUNE1, to: JUNE2 + DAY }).catch((e) => e)).toMatchObject({ kind: "unavailable" });
      rig.dialect.chargeRows.set(secs(JUNE1), [chargeRow(7_000_001, { gpu: 1 }), chargeRow(7_000_001, { gpu: 1 })]);
      expect(await rig.provider.listBillingRecords({ from: JUNE1, to: JUNE2 + DAY }).catch((e) => e)).toMatchObject({ kind: "unavailable" });
    });

    it("is a read: a 429 without Retry-After waits the adapter's own wait; a key that matches no user (404) is auth", async () => {
      rig.dialect.chargeRows.set(secs(JUNE1), [chargeRow(7_000_001, { gpu: 1 })]);
      rig.stub.fault({ operationId: "showCharges", kind: "answer", answer: { status: 429, body: { detail: "API requests too frequent endpoint threshold=1.0" } } });
      expect((await rig.provider.listBillingRecords({ from: JUNE1, to: JUNE2 + DAY })).records).toHaveLength(1);
      expect(rig.sleeps).toEqual([VAST_RATE_LIMIT_WAIT_MS]);
      rig.stub.fault({ operationId: "showCharges", kind: "answer", answer: { status: 404, body: { success: false, error: "auth_error", msg: "Invalid user key" } } });
      expect(await rig.provider.listBillingRecords({ from: JUNE1, to: JUNE2 + DAY }).catch((e) => e)).toMatchObject({ kind: "auth" });
    });
  });
});

describe("vastEndpointUrl", () => {
  const ports = { "8000/tcp": [{ HostIp: "0.0.0.0", HostPort: "41234" }] };
  it("is the public address and the host port the container port is mapped to", () => {
    expect(vastEndpointUrl({ public_ipaddr: "198.51.100.7", ports }, 8000)).toBe("http://198.51.100.7:41234");
    expect(vastEndpointUrl({ public_ipaddr: " 198.51.100.7\n", ports }, 8000)).toBe("http://198.51.100.7:41234");
  });
  it("is null until Vast reports both", () => {
    expect(vastEndpointUrl({ ports }, 8000)).toBeNull();
    expect(vastEndpointUrl({ public_ipaddr: "", ports }, 8000)).toBeNull();
    expect(vastEndpointUrl({ public_ipaddr: "198.51.100.7", ports: null }, 8000)).toBeNull();
    expect(vastEndpointUrl({ public_ipaddr: "198.51.100.7", ports }, 8001)).toBeNull();
    expect(vastEndpointUrl({ public_ipaddr: "198.51.100.7", ports: { "8000/tcp": [] } }, 8000)).toBeNull();
    expect(vastEndpointUrl({ public_ipaddr: "198.51.100.7", ports: { "8000/tcp": [{ HostIp: "0.0.0.0" }] } }, 8000)).toBeNull();
  });
});
