/**
 * The Vast.ai adapter against a stub that holds every request to Vast's own OpenAPI document
 * and answers only with bodies that document accepts (test/support/contract-stub.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { installationPrefix, leasePrefix, machineLabel } from "../../src/lease/label";
import { MODEL_PORT } from "../../src/providers/contract";
import { VAST_BILLING_LAG_MS, VAST_LABEL_ATTEMPTS, VAST_RATE_LIMIT_WAIT_MS, VastProvider, vastBillingCompleteThrough, vastEndpointUrl, vastRegion, vastStatus } from "../../src/providers/vast/adapter";
import { ContractStub, loadContract, type StubAnswer, type StubCall } from "../support/contract-stub";

const contract = loadContract("vast-openapi.yaml");
const API_KEY = "vast_test_key_0123456789";
const INSTALLATION = "test";
const LEASE = "ls_01jvast";

interface FakeAsk {
  id: number;
  gpu_name: string;
  num_gpus: number;
  gpu_ram: number;
  dph_total: number;
  disk_space: number;
  geolocation: string;
  machine_id: number;
  reliability2: number;
  /** Rented out from under us: a create is refused with 410 no_such_ask. */
  gone?: boolean;
}

const ASKS: FakeAsk[] = [
  { id: 1001, gpu_name: "RTX 4090", num_gpus: 1, gpu_ram: 24564, dph_total: 0.42, disk_space: 500, geolocation: "Washington, US", machine_id: 501, reliability2: 0.995 },
  { id: 1002, gpu_name: "RTX 4090", num_gpus: 4, gpu_ram: 24564, dph_total: 1.6, disk_space: 900, geolocation: "Quebec, CA", machine_id: 501, reliability2: 0.97 },
  { id: 1003, gpu_name: "H100 SXM", num_gpus: 8, gpu_ram: 81559, dph_total: 17.9, disk_space: 2000, geolocation: "Finland, FI", machine_id: 502, reliability2: 0.999 },
  // The memory (MB) settles which A100.
  { id: 1004, gpu_name: "A100 PCIE", num_gpus: 1, gpu_ram: 81920, dph_total: 0.9, disk_space: 300, geolocation: "CZ", machine_id: 503, reliability2: 0.93 },
  { id: 1005, gpu_name: "A100 SXM4", num_gpus: 2, gpu_ram: 40960, dph_total: 1.5, disk_space: 300, geolocation: "Texas, US", machine_id: 504, reliability2: 0.99 },
  // No class covers these: left out and counted.
  { id: 1006, gpu_name: "RTX 2080 Ti", num_gpus: 1, gpu_ram: 11264, dph_total: 0.12, disk_space: 100, geolocation: "Poland, PL", machine_id: 505, reliability2: 0.98 },
  { id: 1007, gpu_name: "Titan Xp", num_gpus: 2, gpu_ram: 12288, dph_total: 0.15, disk_space: 100, geolocation: "Poland, PL", machine_id: 505, reliability2: 0.98 },
  // Too little disk for the 50 GB every instance gets: left out, not counted.
  { id: 1008, gpu_name: "RTX 4090", num_gpus: 1, gpu_ram: 24564, dph_total: 0.3, disk_space: 20, geolocation: "Oregon, US", machine_id: 506, reliability2: 0.99 },
];

interface FakeInstance {
  id: number;
  label: string | null;
  actual_status: string | null;
  intended_status: "running" | "stopped";
  cur_state: "running" | "stopped";
  status_msg: string | null;
  image_uuid: string;
  ask: FakeAsk;
  start_date: number;
  /** The container ports the create's `env` mapped (`-p host:container`). */
  mapped: number[];
}

/** Vast as its document describes it, small: asks (offers), instances and their state. */
class FakeVast {
  readonly instances = new Map<number, FakeInstance>();
  readonly asks = new Map(ASKS.map((a) => [a.id, { ...a }]));
  /** Charge rows per UTC day (its midnight in unix seconds), whatever `type` is asked (so a volume row can slip in). */
  readonly charges = new Map<number, ChargeRow[]>();
  /** Rows per page of charges, whatever `limit` asks (the document's 500 is a maximum). */
  chargesPage = 500;
  #seq = 7_000_000;

  handle = (call: StubCall): StubAnswer => {
    switch (call.operationId) {
      case "searchOffers":
        return { status: 200, body: { offers: [...this.asks.values()].filter((a) => !a.gone).map(offerJson) } };
      case "createInstance":
        return this.#create(call.params.id as number, call.body as Record<string, any>);
      case "showInstances":
        return this.#list(call.query);
      case "manageInstance": {
        const i = this.instances.get(call.params.id as number);
        if (!i) return { status: 404, body: { success: false, error: "no_such_instance", msg: "Instance not found" } };
        const { state } = call.body as { state?: "running" | "stopped" };
        if (state) {
          i.intended_status = state;
          i.cur_state = state;
          // A start leaves the container `exited` until it is up again.
          if (state === "running" && i.actual_status !== "running") i.actual_status = "exited";
        }
        return { status: 200, body: { success: true } };
      }
      case "destroyInstance": {
        if (!this.instances.delete(call.params.id as number)) return { status: 404, body: { success: false, error: "not_found", msg: "Instance not found" } };
        return { status: 200, body: { success: true } };
      }
      case "showCharges":
        return this.#charges(call.query);
      default:
        throw new Error(`the fake Vast does not serve ${call.operationId}`);
    }
  };

  /** Every container moves one step toward what is intended. */
  advance(): void {
    for (const i of this.instances.values()) {
      if (i.intended_status === "stopped") i.actual_status = "exited";
      else if (i.actual_status === null) i.actual_status = "loading";
      else i.actual_status = "running";
    }
  }

  #create(askId: number, body: Record<string, any>): StubAnswer {
    const ask = this.asks.get(askId);
    if (!ask) return { status: 404, body: { success: false, error: "invalid_args", msg: `error 404/3603: no_such_ask Instance type by id ${askId} is not available.`, ask_id: askId } };
    if (ask.gone) return { status: 410, body: { success: false, error: "no_such_ask", msg: `error 410/3907: no_such_ask Instance type ${askId} is no longer available.`, ask_id: askId } };
    const id = ++this.#seq;
    this.instances.set(id, {
      id,
      label: body.label ?? null,
      actual_status: null,
      intended_status: body.target_state ?? "running",
      cur_state: body.target_state ?? "running",
      status_msg: null,
      image_uuid: body.image,
      ask,
      start_date: 1_780_000_000 + id - 7_000_000,
      mapped: [...String(body.env ?? "").matchAll(/-p [0-9]+:([0-9]+)/g)].map((m) => Number(m[1])),
    });
    return { status: 200, body: { success: true, new_contract: id } };
  }

  /**
   * The rows of a range of whole UTC days, `chargesPage` at a time, the token an offset: one row per
   * instance, its days' amounts and items added up (the rows of one day are served as they are).
   */
  #charges(query: Record<string, unknown>): StubAnswer {
    const { day } = JSON.parse(String(query.select_filters)) as { day: { gte: number; lte: number } };
    if ((day.lte + 1 - day.gte) % 86_400 !== 0 || day.gte % 86_400 !== 0) throw new Error(`the fake Vast answers whole UTC days, not ${JSON.stringify(day)}`);
    const rows: ChargeRow[] = [];
    for (let d = day.gte; d < day.lte; d += 86_400) {
      const seen = new Set<ChargeRow>();
      for (const row of this.charges.get(d) ?? []) {
        const earlier = rows.find((r) => r.source === row.source && !seen.has(r));
        if (!earlier || !row.source.match(/-[0-9]+$/)) {
          const copy = { ...row, items: row.items.map((i) => ({ ...i })) };
          rows.push(copy);
          seen.add(copy);
          continue;
        }
        earlier.amount = Math.round((earlier.amount + row.amount) * 1000) / 1000;
        for (const item of row.items) {
          const same = earlier.items.find((i) => i.type === item.type);
          if (same) same.amount = Math.round((same.amount + item.amount) * 1000) / 1000;
          else earlier.items.push({ ...item });
        }
      }
    }
    const offset = query.after_token ? Number(Buffer.from(String(query.after_token), "base64").toString()) : 0;
    const limit = Math.min(this.chargesPage, Number(query.limit ?? 100));
    const page = rows.slice(offset, offset + limit);
    const next = offset + limit < rows.length ? Buffer.from(String(offset + limit)).toString("base64") : null;
    return { status: 200, body: { success: true, count: page.length, total: rows.length, next_token: next, results: page } };
  }

  #list(query: Record<string, unknown>): StubAnswer {
    const filters = JSON.parse((query.select_filters as string | undefined) ?? "{}") as Record<string, { eq?: unknown }>;
    let rows = [...this.instances.values()].sort((a, b) => a.id - b.id);
    if (filters.id?.eq !== undefined) rows = rows.filter((i) => i.id === filters.id!.eq);
    if (filters.label?.eq !== undefined) rows = rows.filter((i) => i.label === filters.label!.eq);
    const labels = (filters.label as { in?: unknown[] } | undefined)?.in;
    if (labels !== undefined) rows = rows.filter((i) => labels.includes(i.label));
    const total = rows.length;
    const after = query.after_token ? Number(Buffer.from(String(query.after_token), "base64").toString()) : 0;
    rows = rows.filter((i) => i.id > after);
    const limit = Math.min(25, Math.max(1, Number(query.limit ?? 25)));
    const page = rows.slice(0, limit);
    const more = rows.length > limit;
    return {
      status: 200,
      body: {
        success: true,
        instances_found: page.length,
        total_instances: total,
        next_token: more ? Buffer.from(String(page[page.length - 1]!.id)).toString("base64") : null,
        instances: page.map(instanceJson),
      },
    };
  }
}

interface ChargeRow {
  start: number;
  end: number;
  type: string;
  source: string;
  description: string;
  amount: number;
  metadata: Record<string, unknown>;
  items: Array<{ start: number; end: number; type: "gpu" | "disk" | "bwd" | "bwu"; source: null; description: string; amount: number; metadata: Record<string, never>; items: never[] }>;
}

/** One contract's charges for a day, as the charges answer has them: its items add up to its amount (to 3 decimals). */
function chargeRow(id: number, parts: Partial<Record<"gpu" | "disk" | "bwd" | "bwu", number>>, type = "instance"): ChargeRow {
  const items = Object.entries(parts).map(([t, amount]) => ({ start: 1_780_000_000, end: 1_780_003_600, type: t as "gpu", source: null, description: `${t}`, amount: amount!, metadata: {}, items: [] }));
  const amount = Math.round(items.reduce((s, i) => s + i.amount, 0) * 1000) / 1000;
  return { start: 1_780_000_000, end: 1_780_003_600, type, source: `${type}-${id}`, description: `Instance ${id} Charges`, amount, metadata: { label: "x" }, items };
}

function offerJson(a: FakeAsk) {
  return {
    id: a.id,
    ask_contract_id: a.id,
    bundle_id: a.id + 90_000,
    num_gpus: a.num_gpus,
    gpu_name: a.gpu_name,
    gpu_ram: a.gpu_ram,
    gpu_frac: 1,
    cpu_cores_effective: 16 * a.num_gpus,
    cpu_ram: 65536 * a.num_gpus,
    disk_space: a.disk_space,
    dph_total: a.dph_total,
    geolocation: a.geolocation,
    machine_id: a.machine_id,
    host_id: 9000 + a.machine_id,
    reliability2: a.reliability2,
    rentable: true,
    rented: false,
    verification: "verified",
    is_bid: false,
  };
}

function instanceJson(i: FakeInstance) {
  return {
    id: i.id,
    actual_status: i.actual_status,
    intended_status: i.intended_status,
    cur_state: i.cur_state,
    next_state: i.cur_state,
    label: i.label,
    status_msg: i.status_msg,
    image_uuid: i.image_uuid,
    machine_id: i.ask.machine_id,
    geolocation: i.ask.geolocation,
    gpu_name: i.ask.gpu_name,
    num_gpus: i.ask.num_gpus,
    dph_total: i.ask.dph_total,
    storage_total_cost: 0.0069,
    start_date: i.start_date,
    // A running instance's mappings: each container port to a host port Vast picked.
    ports:
      i.actual_status === "running"
        ? Object.fromEntries([["22/tcp", [{ HostIp: "0.0.0.0", HostPort: "20000" }]], ...i.mapped.map((p, n) => [`${p}/tcp`, [{ HostIp: "0.0.0.0", HostPort: String(20001 + n) }]])])
        : null,
    public_ipaddr: "203.0.113.42",
  };
}

describe.skipIf(!contract)("Vast adapter against vast-openapi.yaml", () => {
  let fake: FakeVast;
  let stub: ContractStub;
  let sleeps: number[];
  let provider: VastProvider;
  const label = (attempt: number) => machineLabel(INSTALLATION, LEASE, attempt);

  beforeEach(() => {
    fake = new FakeVast();
    stub = new ContractStub(contract!, { apiKey: API_KEY, handler: fake.handle });
    sleeps = [];
    provider = new VastProvider({ apiKey: API_KEY, fetch: stub.fetch, sleep: async (ms) => void sleeps.push(ms), random: () => 0.5 });
  });

  afterEach(() => {
    expect(stub.violations).toEqual([]);
  });

  it("searches on-demand, verified, rentable offers with the disk every instance gets, and normalizes them", async () => {
    const { offers, unclassified } = await provider.listOffers();
    expect(stub.callsOf("searchOffers")[0]!.body).toMatchObject({ type: "ondemand", verified: { eq: true }, rentable: { eq: true }, rented: { eq: false }, allocated_storage: 50 });
    expect(offers.map((o) => [o.provider_offer_id, o.gpu, o.gpu_count]).sort()).toEqual(
      [
        ["1001", "rtx4090", 1],
        ["1002", "rtx4090", 4],
        ["1003", "h100", 8],
        ["1004", "a100-80gb", 1],
        ["1005", "a100-40gb", 2],
      ].sort(),
    );
    expect(unclassified).toBe(2);
    const o = offers.find((x) => x.provider_offer_id === "1001")!;
    expect(o).toMatchObject({ id: "vast:1001", provider: "vast", region: "us", host_id: "501", hourly_usd: 0.42, availability: "high", vcpu: 16, memory_gb: 64, disk_gb: 50, vram_gb: 24, spot: false });
    expect(offers.find((x) => x.provider_offer_id === "1004")!).toMatchObject({ region: "cz", availability: "low" });
  });

  it("maps each port to itself at create, and publishes it at the address and host port once the container runs", async () => {
    const created = await provider.createMachine({ label: label(1), offer_id: "1001", cmd: "serve", env: { MODE: "fast" }, ports: [MODEL_PORT] });
    expect(stub.callsOf("createInstance")[0]!.body).toMatchObject({ env: "-e MODE=fast -p 8000:8000" });
    expect(await provider.endpoint(created, MODEL_PORT)).toBeNull();
    fake.advance();
    fake.advance();
    expect((await provider.endpoint(created, MODEL_PORT))?.url).toBe("http://203.0.113.42:20001");
    // A port the create did not map has no endpoint, nor has an instance that is gone.
    expect(await provider.endpoint(created, 9000)).toBeNull();
    expect(await provider.endpoint({ ...created, id: "999999" }, MODEL_PORT)).toBeNull();
  });

  it("sends no port mapping when none is asked for", async () => {
    await provider.createMachine({ label: label(1), offer_id: "1001", cmd: "serve" });
    expect(stub.callsOf("createInstance")[0]!.body).not.toHaveProperty("env");
  });

  it("a create sends the label, disk and cmd as sh -c args; a stop and a start are read back as Vast carries them out", async () => {
    const created = await provider.createMachine({ label: label(1), offer_id: "1001", image: "vllm/vllm-openai@sha256:abc", cmd: "vllm serve --model x" });
    expect(created).toMatchObject({ label: label(1), status: "provisioning", host_id: "501", region: "us", hourly_usd: 0.42, stopped_hourly_usd: 0.0069 });
    expect(stub.callsOf("createInstance")[0]!.body).toMatchObject({ image: "vllm/vllm-openai@sha256:abc", label: label(1), disk: 50, runtype: "args", args_str: "sh -c 'vllm serve --model x'", cancel_unavail: true });

    fake.advance();
    expect((await provider.getMachine(created.id))?.status).toBe("starting");
    fake.advance();
    expect((await provider.getMachine(created.id))?.status).toBe("running");

    await provider.stopMachine(created.id);
    // Accepted, not yet carried out: the container still runs, and that is what is reported.
    expect((await provider.getMachine(created.id))?.status).toBe("running");
    fake.advance();
    expect((await provider.getMachine(created.id))?.status).toBe("stopped");

    await provider.startMachine(created.id);
    // The document: a container `exited` while meant to run never reaches `running` (docs/design.md "Refusals").
    // This fake leaves a started container `exited` until it loads, which then reads as `error`:
    // if Vast really shows that after a start, a restarted lease replaces its host.
    expect((await provider.getMachine(created.id))?.status).toBe("error");
    fake.advance();
    expect((await provider.getMachine(created.id))?.status).toBe("running");
  });

  it("429 without Retry-After on a read waits the adapter's own backoff, then succeeds", async () => {
    const created = await provider.createMachine({ label: label(1), offer_id: "1001" });
    sleeps.length = 0;
    stub.fault({ operationId: "showInstances", kind: "answer", answer: { status: 429, body: { detail: "API requests too frequent endpoint threshold=2.0" } } });
    expect((await provider.getMachine(created.id))?.id).toBe(created.id);
    expect(sleeps).toEqual([VAST_RATE_LIMIT_WAIT_MS]);
  });

  it("no_such_ask is no_capacity (404 gone, 410 no longer available)", async () => {
    fake.asks.get(1002)!.gone = true;
    expect(await provider.createMachine({ label: label(1), offer_id: "1002" }).catch((e) => e)).toMatchObject({ kind: "no_capacity" });
    fake.asks.delete(1003);
    expect(await provider.createMachine({ label: label(2), offer_id: "1003" }).catch((e) => e)).toMatchObject({ kind: "no_capacity" });
    expect(await provider.createMachine({ label: label(3), offer_id: "vast:1001" }).catch((e) => e)).toMatchObject({ kind: "no_capacity" });
    expect(fake.instances.size).toBe(0);
  });

  it("lists by an installation's prefix across pages, never another's or an unlabelled instance", async () => {
    for (let n = 1; n <= 30; n++) await provider.createMachine({ label: machineLabel(INSTALLATION, `${LEASE}${n}`, 1), offer_id: "1001" });
    await provider.createMachine({ label: machineLabel("other", LEASE, 1), offer_id: "1001" });
    fake.instances.get(7_000_005)!.label = null;
    const found = await provider.listMachines(installationPrefix(INSTALLATION));
    expect(found).toHaveLength(29);
    expect(stub.callsOf("showInstances").length).toBeGreaterThanOrEqual(2);
    expect(found.every((m) => m.label.startsWith(installationPrefix(INSTALLATION)))).toBe(true);
  });

  it("lists a lease's machines by their exact labels, filtered on the server: one request", async () => {
    for (let n = 1; n <= 30; n++) await provider.createMachine({ label: machineLabel(INSTALLATION, `${LEASE}${n}`, 1), offer_id: "1001" });
    await provider.createMachine({ label: label(1), offer_id: "1001" });
    await provider.createMachine({ label: label(3), offer_id: "1001" });
    const before = stub.callsOf("showInstances").length;
    const found = await provider.listMachines(leasePrefix(INSTALLATION, LEASE));
    expect(found.map((m) => m.label)).toEqual([label(1), label(3)]);
    const calls = stub.callsOf("showInstances").slice(before);
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
      fake.chargesPage = 2;
      fake.charges.set(secs(JUNE1), [chargeRow(7_000_001, { gpu: 1.234, disk: 0.05 }), chargeRow(7_000_002, { gpu: 0.4 }), chargeRow(55, { disk: 0.2 }, "volume"), chargeRow(7_000_003, { gpu: 2, bwd: 0.001, bwu: 0.002 })]);
      fake.charges.set(secs(JUNE2), [chargeRow(7_000_001, { gpu: 0.5 })]);
      const listing = await provider.listBillingRecords({ from: JUNE1 + 5 * H, to: JUNE2 + DAY + 2.5 * H });
      expect(listing.complete_through).toBe(JUNE2 + DAY);
      const calls = stub.callsOf("showCharges");
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
      const again = await provider.listBillingRecords({ from: JUNE2 - 2 * H, to: JUNE2 + DAY + 3 * H });
      expect(again.records).toEqual(listing.records);
    });

    it("a day is asked for only once it has closed and the lag has passed", async () => {
      fake.charges.set(secs(JUNE1), [chargeRow(7_000_001, { gpu: 1 })]);
      expect(await provider.listBillingRecords({ from: JUNE1 + 12 * H, to: JUNE2 + VAST_BILLING_LAG_MS - 1 })).toEqual({ records: [], complete_through: JUNE1 });
      expect(stub.callsOf("showCharges")).toHaveLength(0);
      const listing = await provider.listBillingRecords({ from: JUNE1 + 12 * H, to: JUNE2 + VAST_BILLING_LAG_MS });
      expect(listing.complete_through).toBe(JUNE2);
      expect(listing.records.map((r) => r.record_id)).toEqual(["instance-7000001:2026-06-01"]);
      expect(vastBillingCompleteThrough(JUNE2 + VAST_BILLING_LAG_MS)).toBe(JUNE2);
      expect(VAST_BILLING_LAG_MS).toBe(2 * H);
    });

    it("an instance with no charge that day has no record; one Vast answers without an id is passed on unreadable", async () => {
      fake.charges.set(secs(JUNE1), [{ ...chargeRow(7_000_001, { gpu: 1 }), source: "instance-" }]);
      const { records } = await provider.listBillingRecords({ from: JUNE1, to: JUNE2 + DAY });
      expect(records).toEqual([{ record_id: "", machine_id: "", window_start: JUNE1, window_end: JUNE2, amount_usd: 1, components: { gpu_usd: 1 } }]);
    });

    it("a day whose rows do not add up to its total, or that names an instance twice, is unavailable: never half a day", async () => {
      fake.charges.set(secs(JUNE1), [chargeRow(7_000_001, { gpu: 1 })]);
      stub.fault({ operationId: "showCharges", kind: "answer", answer: { status: 200, body: { success: true, count: 1, total: 2, next_token: null, results: [chargeRow(7_000_001, { gpu: 1 })] } } });
      expect(await provider.listBillingRecords({ from: JUNE1, to: JUNE2 + DAY }).catch((e) => e)).toMatchObject({ kind: "unavailable" });
      fake.charges.set(secs(JUNE1), [chargeRow(7_000_001, { gpu: 1 }), chargeRow(7_000_001, { gpu: 1 })]);
      expect(await provider.listBillingRecords({ from: JUNE1, to: JUNE2 + DAY }).catch((e) => e)).toMatchObject({ kind: "unavailable" });
    });

    it("is a read: a 429 without Retry-After waits the adapter's own wait; a key that matches no user (404) is auth", async () => {
      fake.charges.set(secs(JUNE1), [chargeRow(7_000_001, { gpu: 1 })]);
      stub.fault({ operationId: "showCharges", kind: "answer", answer: { status: 429, body: { detail: "API requests too frequent endpoint threshold=1.0" } } });
      expect((await provider.listBillingRecords({ from: JUNE1, to: JUNE2 + DAY })).records).toHaveLength(1);
      expect(sleeps).toEqual([VAST_RATE_LIMIT_WAIT_MS]);
      stub.fault({ operationId: "showCharges", kind: "answer", answer: { status: 404, body: { success: false, error: "auth_error", msg: "Invalid user key" } } });
      expect(await provider.listBillingRecords({ from: JUNE1, to: JUNE2 + DAY }).catch((e) => e)).toMatchObject({ kind: "auth" });
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
