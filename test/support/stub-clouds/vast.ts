/**
 * Vast.ai over the simulated cloud core, in the words of vast-openapi.yaml: the offer search
 * (asks), renting an ask, the v1 instance list (keyset pages of 25, column filters), state changes,
 * destroy, and per-instance charges by day range.
 *
 * Vast documents no 5xx anywhere and no 429 on the offer search: such answers are sent marked
 * `undocumented` (recorded as notes, not violations), as a proxy in front of Vast would send them.
 * A 429 carries no Retry-After (docs/providers.md, "Limits worth knowing"); the core's promise still holds after retry_after_s.
 */
import { usd } from "../../../src/providers/http";
import type { SimStatus } from "../../../src/providers/sim/machines";
import type { Operation, StubAnswer, StubCall } from "../contract-stub";
import { StubCloudCore, type CoreMachine, type CoreOffer } from "./core";
import { ambiguous, gatewayPage, refusal, type Dialect, type FaultWords, takeInjected, type InjectedCreate } from "./dialect";

export interface VastAsk {
  id: number;
  gpu_name: string;
  num_gpus: number;
  /** One GPU's memory in MB (the document's "Key Quirks"). */
  gpu_ram: number;
  /** $/hour for the machine's share without storage. */
  dph_base: number;
  /** $/GB/month for the disk; the instance's `storage_total_cost` is its disk at this rate, per hour. */
  storage_cost: number;
  disk_space: number;
  geolocation: string;
  machine_id: number;
  reliability2: number;
  /** How long the host stays on the market, seconds from the search (default VAST_ASK_DURATION_S). */
  duration?: number;
  /** The newest CUDA the host's driver runs (default 12.8). */
  cuda_max_good?: number;
  /** $/GB moved (default: not billed, 0). */
  inet_down_cost?: number;
  inet_up_cost?: number;
  /** Measured internet speeds, Mbps (default: not stated). */
  inet_down?: number;
  inet_up?: number;
}

/** Ninety days: every ask outlasts the policies tests use unless it says otherwise. */
export const VAST_ASK_DURATION_S = 90 * 86_400;

/**
 * The asks. The H100 machine leaves the market in a day and bills bandwidth. L40S and L4 are each sold at one GPU on three machines; one L40S machine also sells
 * four; the first two L40S hosts state their internet speeds, the others do not. The 2080 Ti is a GPU no lessor class covers; one 4090 has too little disk for the 50 GB
 * the adapter gives every instance.
 */
export const VAST_ASKS: readonly VastAsk[] = [
  { id: 3001, gpu_name: "L40S", num_gpus: 1, gpu_ram: 46068, dph_base: 0.62, storage_cost: 0.15, disk_space: 400, geolocation: "Washington, US", machine_id: 601, reliability2: 0.995, inet_down: 900, inet_up: 300 },
  { id: 3002, gpu_name: "L40S", num_gpus: 1, gpu_ram: 46068, dph_base: 0.66, storage_cost: 0.15, disk_space: 400, geolocation: "Quebec, CA", machine_id: 602, reliability2: 0.991, inet_down: 200, inet_up: 50 },
  { id: 3003, gpu_name: "L40S", num_gpus: 1, gpu_ram: 46068, dph_base: 0.7, storage_cost: 0.2, disk_space: 600, geolocation: "Finland, FI", machine_id: 603, reliability2: 0.97 },
  { id: 3004, gpu_name: "L40S", num_gpus: 4, gpu_ram: 46068, dph_base: 2.4, storage_cost: 0.15, disk_space: 1600, geolocation: "Washington, US", machine_id: 601, reliability2: 0.995 },
  { id: 3011, gpu_name: "L4", num_gpus: 1, gpu_ram: 23034, dph_base: 0.31, storage_cost: 0.1, disk_space: 200, geolocation: "Texas, US", machine_id: 611, reliability2: 0.993 },
  { id: 3012, gpu_name: "L4", num_gpus: 1, gpu_ram: 23034, dph_base: 0.33, storage_cost: 0.1, disk_space: 250, geolocation: "Oregon, US", machine_id: 612, reliability2: 0.96 },
  { id: 3013, gpu_name: "L4", num_gpus: 1, gpu_ram: 23034, dph_base: 0.35, storage_cost: 0.12, disk_space: 300, geolocation: "Germany, DE", machine_id: 613, reliability2: 0.992 },
  { id: 3021, gpu_name: "RTX 4090", num_gpus: 1, gpu_ram: 24564, dph_base: 0.42, storage_cost: 0.1, disk_space: 500, geolocation: "Washington, US", machine_id: 621, reliability2: 0.995 },
  { id: 3031, gpu_name: "H100 SXM", num_gpus: 8, gpu_ram: 81559, dph_base: 17.9, storage_cost: 0.25, disk_space: 2000, geolocation: "Finland, FI", machine_id: 631, reliability2: 0.999, duration: 86_400, inet_down_cost: 0.004, inet_up_cost: 0.02 },
  { id: 3041, gpu_name: "A100 PCIE", num_gpus: 1, gpu_ram: 81920, dph_base: 0.9, storage_cost: 0.15, disk_space: 300, geolocation: "CZ", machine_id: 641, reliability2: 0.93 },
  { id: 3051, gpu_name: "RTX 2080 Ti", num_gpus: 1, gpu_ram: 11264, dph_base: 0.12, storage_cost: 0.05, disk_space: 100, geolocation: "Poland, PL", machine_id: 651, reliability2: 0.98 },
  { id: 3061, gpu_name: "RTX 4090", num_gpus: 1, gpu_ram: 24564, dph_base: 0.3, storage_cost: 0.1, disk_space: 20, geolocation: "Oregon, US", machine_id: 661, reliability2: 0.99 },
];

/** The charges' page size at most (the document: "Server maximum 500"). */
const CHARGES_PAGE_MAX = 500;

/** One row of the charges answer (its `results`): a contract's charges over the range, and their items. */
export interface VastChargeRow {
  start: number;
  end: number;
  type: string;
  /** `<type>-<contract id>`. */
  source: string;
  description: string;
  amount: number;
  metadata: Record<string, unknown>;
  items: Array<{ start: number; end: number; type: "gpu" | "disk" | "bwd" | "bwu"; source: null; description: string; amount: number; metadata?: Record<string, never>; items?: never[] }>;
}

/**
 * A charge row for `chargeRows`: contract `id`'s charges of one day as the charges answer has them,
 * its items (GPU, disk, bandwidth down and up) adding up to its amount, to 3 decimals.
 */
export function vastChargeRow(id: number, parts: Partial<Record<"gpu" | "disk" | "bwd" | "bwu", number>>, type = "instance"): VastChargeRow {
  const [start, end] = [1_780_000_000, 1_780_003_600];
  const items = Object.entries(parts).map(([t, amount]) => ({ start, end, type: t as "gpu", source: null, description: t, amount: amount!, metadata: {}, items: [] }));
  return { start, end, type, source: `${type}-${id}`, description: `Instance ${id} Charges`, amount: round3(items.reduce((sum, i) => sum + i.amount, 0)), metadata: { label: "x" }, items };
}

/** The document's default disk when a search or a create names none. */
const DEFAULT_DISK_GB = 8;
const HOURS_PER_MONTH = 730;
/** The instance list's page size (the document: default 25, max 25; values <= 0 are 5). */
const PAGE_MAX = 25;

/** The disk of `gb` on this ask, per hour. */
function storageHourly(ask: VastAsk, gb: number): number {
  return usd((gb * ask.storage_cost) / HOURS_PER_MONTH);
}

const TOO_FREQUENT = "API requests too frequent endpoint threshold=2.0";

/** Vast's words for the injected faults; the 429's body differs by operation, as documented. */
function words(operationId: string): FaultWords {
  return {
    unavailable: () => gatewayPage(503),
    rateLimited: () =>
      operationId === "destroyInstance"
        ? { status: 429, body: { success: false, error: "rate_limit_exceeded", msg: TOO_FREQUENT } }
        : { status: 429, body: { detail: TOO_FREQUENT } },
    gateway: (status) => gatewayPage(status),
  };
}

function error(status: number, error: string, msg: string, extra: Record<string, unknown> = {}): StubAnswer {
  return { status, body: { success: false, error, msg, ...extra } };
}

interface InstanceExtra {
  ask: VastAsk;
  disk: number;
  runtype: string;
  /** The create's `env`, read as the document describes it: Docker's `-e NAME=value` flags. */
  env: Record<string, string>;
  /** The container ports the create's `env` mapped (`-p host:container`), in order. */
  mapped: number[];
  /** Rented by bidding (the create's `price`): interruptible, and outbid by `outbid`. */
  bid: boolean;
}

/**
 * A create's `env` as the document describes it ("Environment variables and port mappings in
 * Docker flag format"): whitespace-separated `-e NAME=value` and `-p host:container` flags. The
 * document defines no quoting, so a word with a quote or a backslash in it has no one meaning and
 * is refused, as is any other flag; a string of the wrong shape is refused as Vast refuses
 * arguments it cannot read (400 `invalid_args`). Returns the variables, or the refusal's words.
 */
export function readVastEnv(env: string): Record<string, string> | string {
  const words = env.split(/\s+/).filter(Boolean);
  const vars: Record<string, string> = {};
  for (let n = 0; n < words.length; n += 2) {
    const [flag, value] = [words[n]!, words[n + 1]];
    if (value === undefined) return `env: ${flag} has no value`;
    if (/['"\\]/.test(value)) return `env: ${flag} ${value}: quotes and backslashes have no defined meaning here`;
    if (flag === "-p") {
      if (!/^[0-9]{1,5}:[0-9]{1,5}(\/(tcp|udp))?$/.test(value)) return `env: -p ${value} is not a port mapping`;
    } else if (flag === "-e") {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(value);
      if (!m) return `env: -e ${value} is not NAME=value`;
      vars[m[1]!] = m[2]!;
    } else return `env: ${flag} is not a flag env takes (-e, -p)`;
  }
  return vars;
}

/** The columns the instance list can filter (stored on the contract, not computed). */
const FILTERABLE: Record<string, (m: CoreMachine<InstanceExtra>) => unknown> = {
  id: (m) => Number(m.id),
  label: (m) => m.label,
  actual_status: (m) => instanceStatus(m.clock.status).actual_status,
  gpu_name: (m) => m.extra.ask.gpu_name,
  machine_id: (m) => m.extra.ask.machine_id,
  verification: () => "verified",
};

export class VastDialect implements Dialect {
  readonly provider = "vast" as const;
  readonly contractFile = "vast-openapi.yaml";
  readonly core: StubCloudCore<InstanceExtra>;
  /** Answers given to creates instead of creating (takeInjected). */
  readonly injected: InjectedCreate[] = [];
  /** Fields shown instead of an instance's own (a test's dead container, or a stop behind lessor's back). */
  readonly instanceOverride = new Map<string, Record<string, unknown>>();
  /** What a charge row's `amount` is: the charges within the range asked, or the contract's up to its end. */
  chargeAmounts: "range" | "cumulative" = "range";
  /**
   * Test hook: charge rows served per UTC day (the day's midnight, unix seconds) instead of what the
   * core billed, for shapes the core never bills (a volume row, bandwidth items, a row without an
   * id, an instance named twice in a day). While any day is set, a range is answered from these
   * alone: its days' rows, one per source across days (amounts and items added up, to 3 decimals),
   * the rows of one day as they are. The `type` filter is not applied to them, so a volume row can
   * reach an adapter that must leave it out. Cleared by clearTestHooks().
   */
  readonly chargeRows = new Map<number, VastChargeRow[]>();
  /** Test hook: rows per page of charges, whatever `limit` asks (the document's 500 is the server's maximum). */
  chargesPage = CHARGES_PAGE_MAX;

  constructor(options: { now?: () => number } = {}) {
    // Vast's instance ids are integers (its "contract" ids).
    this.core = new StubCloudCore<InstanceExtra>({ machineId: (seq) => String(8_000_000 + seq), ...options });
  }

  /** Forgets what tests set on this dialect beyond the core (the admin reset calls it). */
  clearTestHooks(): void {
    this.injected.length = 0;
    this.instanceOverride.clear();
    this.chargeAmounts = "range";
    this.chargeRows.clear();
    this.chargesPage = CHARGES_PAGE_MAX;
  }

  refuse(op: Operation): StubAnswer {
    // The offer search documents its bad-key answer as 404 "Invalid user key"; destroy documents
    // no auth failure at all, so its 401 is sent as undocumented (a note).
    if (op.operationId === "searchOffers") return { status: 404, body: { error: "auth_error", msg: "Invalid user key" } };
    const answer = error(401, "auth_error", "Invalid user key");
    return op.operationId === "destroyInstance" ? { ...answer, undocumented: "destroy lists no auth failure" } : answer;
  }

  handle(call: StubCall): StubAnswer {
    const w = words(call.operationId);
    const id = String(call.params.id ?? "");
    switch (call.operationId) {
      case "searchOffers":
        return { status: 200, body: { offers: search(call.body as Record<string, any>) } };
      case "createInstance":
        return this.#create(Number(call.params.id), call.body as Record<string, any>, w);
      case "showInstances":
        return this.#list(call.query, w);
      case "manageInstance":
        return this.#onInstance(id, w, (m) => this.#setState(m, call.body as { state?: "running" | "stopped"; label?: string }));
      case "destroyInstance":
        return this.#onInstance(id, w, (m) => {
          this.core.destroy(m.id);
          return { status: 200, body: { success: true } };
        });
      case "showCharges":
        return this.#charges(call.query);
      default:
        // The document has it; the stub does not serve it. Loud: the server records a violation.
        throw new Error(`the stub does not serve ${call.operationId}`);
    }
  }

  #create(askId: number, body: Record<string, any>, w: FaultWords): StubAnswer {
    const gated = refusal(this.core.gate(`create:${body.label ?? ""}`), w);
    if (gated) return gated;
    const injected = takeInjected(this.injected, body);
    if (injected) return injected;
    const ask = VAST_ASKS.find((a) => a.id === askId);
    if (!ask) return error(404, "invalid_args", `error 404/3603: no_such_ask Instance type by id ${askId} is not available.`, { ask_id: askId });
    const disk: number = body.disk ?? DEFAULT_DISK_GB;
    if (disk > ask.disk_space) return error(400, "invalid_args", `error 400: disk ${disk} GB exceeds the offer's ${ask.disk_space} GB`, { ask_id: askId });
    const env = typeof body.env === "string" ? readVastEnv(body.env) : {};
    if (typeof env === "string") return error(400, "invalid_args", `error 400: ${env}`, { ask_id: askId });
    const storage = storageHourly(ask, disk);
    // A bid ("Bid price per machine ... Only for interruptible instances") at or above the ask's minimum rents it interruptible, billed at the bid.
    const bid = typeof body.price === "number" ? body.price : null;
    if (bid !== null && bid < vastOfferJson(ask, disk).min_bid) return error(400, "invalid_price", `error 400: bid ${bid} is below the minimum bid of ask ${askId}`, { ask_id: askId });
    const offer: CoreOffer = {
      offer_id: String(ask.id),
      host_id: String(ask.machine_id),
      region: ask.geolocation,
      gpu_name: ask.gpu_name,
      num_gpus: ask.num_gpus,
      // A running instance bills its dph_total, storage included; a stopped one its storage only.
      price_per_hour: bid !== null ? usd(bid) : usd(ask.dph_base + storage),
      disk_price_per_hour: storage,
    };
    // `target_state: "stopped"` would rent without starting; lessor never asks for it, and the
    // sim's machines always boot, so it is not modelled.
    const mapped = typeof body.env === "string" ? [...body.env.matchAll(/-p [0-9]+:([0-9]+)/g)].map((m) => Number(m[1])) : [];
    const outcome = this.core.create({ label: body.label ?? "", offer, image: body.image, cmd: body.args_str ?? null, extra: { ask, disk, runtype: body.runtype ?? "ssh", env, mapped, bid: bid !== null } });
    // cancel_unavail (lessor sends true): an ask that cannot start now is refused, 410.
    if (outcome.kind === "no_capacity") return error(410, "no_such_ask", `error 410/3907: no_such_ask Instance type ${askId} is no longer available.`, { ask_id: askId });
    if (outcome.kind === "ambiguous") return ambiguous(outcome.answer, w);
    return { status: 200, body: { success: true, new_contract: Number(outcome.machine.id) } };
  }

  /**
   * Test hook: the market outbids a bid instance (the offer search's "may be interrupted if
   * outbid"): it stops, its contract stopped while it was meant to run (instanceJson). false: no
   * such instance, or not a bid one.
   */
  outbid(id: string): boolean {
    const m = this.core.get(id);
    if (!m || !m.extra.bid) return false;
    return this.core.preempt(id).kind === "done";
  }

  /** Gate a call on one instance; one never made or already destroyed is 404. */
  #onInstance(id: string, w: FaultWords, act: (m: CoreMachine<InstanceExtra>) => StubAnswer): StubAnswer {
    const gated = refusal(this.core.gate(`machine:${id}`), w);
    if (gated) return gated;
    const m = this.core.get(id);
    if (!m || m.clock.status === "TERMINATED") return error(404, "no_such_instance", `Instance ${id} not found`);
    return act(m);
  }

  /** PUT {"state"}: asking for the state it is already in (or headed to) is success, as Vast's intent is. */
  #setState(m: CoreMachine<InstanceExtra>, body: { state?: "running" | "stopped"; label?: string }): StubAnswer {
    if (body.label !== undefined) return error(400, "invalid_args", "the stub does not relabel instances");
    if (body.state === undefined) return { status: 200, body: { success: true } };
    const outcome = body.state === "stopped" ? this.core.stop(m.id) : this.core.start(m.id);
    if (outcome.kind === "done") return { status: 200, body: { success: true } };
    const now = m.clock.status;
    const already = body.state === "stopped" ? now === "EXITED" : now === "PROVISIONING" || now === "STARTING" || now === "RUNNING";
    if (already) return { status: 200, body: { success: true } };
    return error(400, "invalid_args", `cannot set instance ${m.id} ${body.state}: it is ${now.toLowerCase()}`);
  }

  /**
   * GET /api/v1/instances: keyset pages ordered by id (the only order_by column the stub keeps),
   * filtered by stored columns with eq/neq/gt/gte/lt/lte/in/notin. A filter on one id is a read of
   * that instance, and is gated as one (as the adapter's getMachine is).
   */
  #list(query: Record<string, unknown>, w: FaultWords): StubAnswer {
    let filters: Record<string, Record<string, unknown>>;
    let order: Array<{ col?: string; dir?: string }>;
    try {
      filters = JSON.parse(String(query.select_filters ?? "{}"));
      order = JSON.parse(String(query.order_by ?? "[]"));
    } catch {
      return { status: 400, body: { error: "invalid_request", msg: "Error in query parameters: not JSON" } };
    }
    for (const col of Object.keys(filters)) {
      if (!FILTERABLE[col]) return { status: 400, body: { error: "invalid_request", msg: `Error in query parameters: ${col} is not filterable` } };
    }
    const bad = order.find((o) => o.col !== "id");
    if (bad) return { status: 400, body: { error: "invalid_request", msg: `Error in query parameters: the stub orders by id only, not ${bad.col}` } };
    const desc = order[0]?.dir === "desc";
    const oneId = filters.id?.eq;
    const gated = refusal(this.core.gate(oneId !== undefined ? `machine:${oneId}` : `list:`), w);
    if (gated) return gated;

    let rows = this.core.list().filter((m) => Object.entries(filters).every(([col, ops]) => matches(FILTERABLE[col]!(m), ops)));
    rows.sort((a, b) => (Number(a.id) - Number(b.id)) * (desc ? -1 : 1));
    const total = rows.length;
    if (query.after_token !== undefined) {
      const after = Number(Buffer.from(String(query.after_token), "base64url").toString());
      if (!Number.isSafeInteger(after)) return { status: 400, body: { error: "invalid_token", msg: "Invalid pagination token" } };
      rows = rows.filter((m) => (desc ? Number(m.id) < after : Number(m.id) > after));
    }
    const asked = typeof query.limit === "number" ? query.limit : PAGE_MAX;
    const limit = asked <= 0 ? 5 : Math.min(PAGE_MAX, asked);
    const page = rows.slice(0, limit);
    const more = rows.length > limit;
    return {
      status: 200,
      body: {
        success: true,
        instances_found: page.length,
        total_instances: total,
        next_token: more ? Buffer.from(page.at(-1)!.id).toString("base64url") : null,
        instances: page.map((m) => ({ ...instanceJson(m, this.core.now()), ...this.instanceOverride.get(m.id) })),
      },
    };
  }

  /**
   * GET /api/v0/charges: per instance, what its published windows in the day range billed (the
   * core's records, markup included), split into the GPU (running) and disk (stopped) items;
   * amounts to 3 decimals. With `chargeAmounts` "cumulative", the other reading of the document's
   * "Total charge for this contract": the range still picks the instances (those charged in it),
   * but each amount is the contract's whole charge from its start to the range's end.
   */
  #charges(query: Record<string, unknown>): StubAnswer {
    let filters: { day?: { gte?: number; lte?: number }; type?: { in?: string[] } };
    try {
      filters = JSON.parse(String(query.select_filters));
    } catch {
      return error(400, "invalid_request", "select_filters is not JSON");
    }
    const { gte, lte } = filters.day ?? {};
    if (typeof gte !== "number" || typeof lte !== "number") return { status: 400, body: { success: false, msg: "Must provide both 'day' gte and lte filters for instance charges" } };
    const results = this.chargeRows.size > 0 ? this.#hookCharges(gte, lte) : this.#billedCharges(gte, lte, filters.type?.in, query.latest_first === false);
    const total = results.length;
    const offset = query.after_token === undefined ? 0 : Number(Buffer.from(String(query.after_token), "base64url").toString());
    if (!Number.isSafeInteger(offset) || offset < 0) return error(400, "invalid_token", "Invalid pagination token");
    const limit = Math.min(this.chargesPage, typeof query.limit === "number" ? query.limit : 100);
    const page = results.slice(offset, offset + limit);
    const next = offset + limit < total ? Buffer.from(String(offset + limit)).toString("base64url") : null;
    return { status: 200, body: { success: true, count: page.length, total, next_token: next, results: page } };
  }

  /** The rows of the whole UTC days [gte, lte] from `chargeRows` (see there). */
  #hookCharges(gte: number, lte: number): VastChargeRow[] {
    if ((lte + 1 - gte) % 86_400 !== 0 || gte % 86_400 !== 0) throw new Error(`the stub's charge rows answer whole UTC days, not ${gte}..${lte}`);
    const rows: VastChargeRow[] = [];
    for (let d = gte; d < lte; d += 86_400) {
      const seen = new Set<VastChargeRow>();
      for (const row of this.chargeRows.get(d) ?? []) {
        const earlier = rows.find((r) => r.source === row.source && !seen.has(r));
        if (!earlier || !/-[0-9]+$/.test(row.source)) {
          const copy = { ...row, items: row.items.map((i) => ({ ...i })) };
          rows.push(copy);
          seen.add(copy);
          continue;
        }
        earlier.amount = round3(earlier.amount + row.amount);
        for (const item of row.items) {
          const same = earlier.items.find((i) => i.type === item.type);
          if (same) same.amount = round3(same.amount + item.amount);
          else earlier.items.push({ ...item });
        }
      }
    }
    return rows;
  }

  /** What the core billed the instances charged in the days [gte, lte] (see #charges). */
  #billedCharges(gte: number, lte: number, types: string[] | undefined, oldestFirst: boolean) {
    if (types && !types.includes("instance")) return [];
    const from = gte * 1000;
    const to = (lte + 1) * 1000;
    const cumulative = this.chargeAmounts === "cumulative";
    const { now, records } = this.core.billing(cumulative ? 0 : from, to);
    const charged = new Set(records.filter((r) => r.window_start >= from && r.window_start < to).map((r) => r.machine_id));
    const factor = 1 + this.core.billingOptions.markup;
    const ledger = new Map(this.core.ledger("").machines.map((m) => [m.id, m]));
    const per = new Map<string, { gpu: number; disk: number; first: number; last: number }>();
    for (const r of records) {
      if ((!cumulative && r.window_start < from) || r.window_start >= to || !charged.has(r.machine_id)) continue;
      const m = ledger.get(r.machine_id)!;
      const p = per.get(r.machine_id) ?? { gpu: 0, disk: 0, first: r.window_start, last: r.window_end };
      p.gpu += ((r.running_seconds * m.price_per_hour) / 3600) * factor;
      p.disk += ((r.stopped_seconds * m.disk_price_per_hour) / 3600) * factor;
      p.first = Math.min(p.first, r.window_start);
      p.last = Math.max(p.last, r.window_end);
      per.set(r.machine_id, p);
    }
    const secs = (ms: number) => Math.floor(ms / 1000);
    const results = [...per.entries()].map(([id, p]) => {
      const m = ledger.get(id)!;
      const item = (type: "gpu" | "disk", amount: number) => ({ start: secs(p.first), end: secs(p.last), type, source: null, description: type === "gpu" ? "GPU" : "Storage", amount: round3(amount) });
      return {
        start: secs(m.created_at),
        end: secs(m.destroyed_at ?? now),
        type: "instance",
        source: `instance-${id}`,
        description: `Instance ${id}`,
        amount: round3(p.gpu + p.disk),
        metadata: { label: m.label },
        items: [item("gpu", p.gpu), item("disk", p.disk)],
      };
    });
    return results.sort((a, b) => (oldestFirst ? a.start - b.start : b.start - a.start) || (a.source < b.source ? -1 : 1));
  }
}

/** The offer search: the body's operator filters over the asks' fields, `order`, `limit`. */
function search(body: Record<string, any>) {
  const storage = typeof body.allocated_storage === "number" ? body.allocated_storage : DEFAULT_DISK_GB;
  // "bid (interruptible): Uses minimum bid price": each ask priced at its minimum bid.
  const byBid = body.type === "bid";
  let offers = VAST_ASKS.map((a) => vastOfferJson(a, storage)).map((o) => (byBid ? { ...o, dph_total: usd(o.min_bid + o.storage_total_cost), is_bid: true } : o));
  for (const [key, ops] of Object.entries(body)) {
    if (key === "verified" && isOps(ops)) offers = offers.filter((o) => matches(o.verification === "verified", ops));
    else if (isOps(ops) && offers.some((o) => key in o)) offers = offers.filter((o) => matches((o as Record<string, unknown>)[key], ops));
  }
  const order: Array<[string, string]> = Array.isArray(body.order) ? body.order : [["score", "desc"]];
  offers.sort((a, b) => {
    for (const [col, dir] of order) {
      const x = (a as Record<string, any>)[col];
      const y = (b as Record<string, any>)[col];
      if (x !== y) return (x < y ? -1 : 1) * (dir === "desc" ? -1 : 1);
    }
    return a.id - b.id;
  });
  return offers.slice(0, typeof body.limit === "number" ? body.limit : 64);
}

/** An ask as the search answers it, priced with `storageGb` of disk (the search's allocated_storage). */
export function vastOfferJson(a: VastAsk, storageGb: number) {
  const storage = storageHourly(a, storageGb);
  return {
    id: a.id,
    ask_contract_id: a.id,
    bundle_id: a.id + 90_000,
    machine_id: a.machine_id,
    host_id: 9000 + a.machine_id,
    num_gpus: a.num_gpus,
    gpu_name: a.gpu_name,
    gpu_ram: a.gpu_ram,
    gpu_frac: 1,
    cpu_cores_effective: 16 * a.num_gpus,
    cpu_ram: 65536 * a.num_gpus,
    disk_space: a.disk_space,
    dph_base: a.dph_base,
    storage_cost: a.storage_cost,
    storage_total_cost: storage,
    dph_total: usd(a.dph_base + storage),
    min_bid: usd(a.dph_base * 0.5),
    geolocation: a.geolocation,
    reliability2: a.reliability2,
    score: Math.round(a.reliability2 * 1000) / 10,
    rentable: true,
    rented: false,
    verification: "verified",
    is_bid: false,
    duration: a.duration ?? VAST_ASK_DURATION_S,
    cuda_max_good: a.cuda_max_good ?? 12.8,
    inet_down_cost: a.inet_down_cost ?? 0,
    inet_up_cost: a.inet_up_cost ?? 0,
    ...(a.inet_down === undefined ? {} : { inet_down: a.inet_down }),
    ...(a.inet_up === undefined ? {} : { inet_up: a.inet_up }),
  };
}

/** Vast's words for a sim status: the container's state and what was last asked for. */
function instanceStatus(status: SimStatus): { actual_status: string | null; intended_status: "running" | "stopped"; status_msg: string | null } {
  switch (status) {
    case "PROVISIONING":
      return { actual_status: null, intended_status: "running", status_msg: null };
    case "STARTING":
      return { actual_status: "loading", intended_status: "running", status_msg: "Pulling image" };
    case "RUNNING":
      return { actual_status: "running", intended_status: "running", status_msg: "success, running" };
    case "EXITED":
      return { actual_status: "exited", intended_status: "stopped", status_msg: null };
    case "ERROR":
      // The document's poll trap: an exited container that will never run, said by its status_msg.
      return { actual_status: "exited", intended_status: "running", status_msg: "Error response from daemon: OCI runtime create failed" };
    case "TERMINATED":
      return { actual_status: "exited", intended_status: "stopped", status_msg: "destroyed" };
  }
}

function instanceJson(m: CoreMachine<InstanceExtra>, now: number) {
  const x = m.extra;
  // Outbid: the market stopped the contract while the instance was meant to run.
  const s = m.clock.interrupted ? { actual_status: "exited", intended_status: "running" as const, status_msg: null } : instanceStatus(m.clock.status);
  const contract = m.clock.interrupted ? "stopped" : s.intended_status;
  const running = m.clock.status === "RUNNING";
  return {
    id: Number(m.id),
    label: m.label,
    ...s,
    cur_state: contract,
    next_state: contract,
    image_uuid: m.image ?? "",
    image_runtype: x.runtype,
    machine_id: x.ask.machine_id,
    host_id: 9000 + x.ask.machine_id,
    geolocation: x.ask.geolocation,
    gpu_name: x.ask.gpu_name,
    num_gpus: x.ask.num_gpus,
    gpu_ram: x.ask.gpu_ram,
    disk_space: x.disk,
    dph_base: x.ask.dph_base,
    dph_total: m.offer.price_per_hour,
    storage_cost: x.ask.storage_cost,
    storage_total_cost: m.offer.disk_price_per_hour,
    start_date: m.created_at / 1000,
    uptime_mins: running ? (now - m.clock.since) / 60_000 : null,
    is_bid: x.bid,
    verification: "verified",
    reliability2: x.ask.reliability2,
    // A running instance's mappings, Vast's host port for each container port (SSH's first), and its address.
    ports: running
      ? Object.fromEntries([22, ...x.mapped].map((p, n) => [`${p}/tcp`, [{ HostIp: "0.0.0.0", HostPort: String(20000 + (Number(m.id) % 1000) * 10 + n) }]]))
      : null,
    public_ipaddr: running ? "203.0.113.42" : "",
  };
}

function isOps(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x) && Object.keys(x).every((k) => OPS.has(k));
}

const OPS = new Set(["eq", "neq", "gt", "gte", "lt", "lte", "in", "notin"]);

/** Vast's column operators. */
function matches(value: unknown, ops: Record<string, unknown>): boolean {
  return Object.entries(ops).every(([op, want]) => {
    switch (op) {
      case "eq":
        return value === want;
      case "neq":
        return value !== want;
      case "gt":
        return (value as number) > (want as number);
      case "gte":
        return (value as number) >= (want as number);
      case "lt":
        return (value as number) < (want as number);
      case "lte":
        return (value as number) <= (want as number);
      case "in":
        return Array.isArray(want) && want.includes(value);
      case "notin":
        return Array.isArray(want) && !want.includes(value);
      default:
        return false;
    }
  });
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
