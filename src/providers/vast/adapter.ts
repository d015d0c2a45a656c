/**
 * Vast.ai, over its REST API (../shared/provider-contracts/vast-openapi.yaml, OpenAPI 3.1).
 *
 * Paths are written as the document writes them: server `https://console.vast.ai`, paths
 * `/api/v0/...` without trailing slashes, and the one list of a user's instances is
 * `GET /api/v1/instances` (v1; there is no v0 list in the document).
 *
 * Every instance carries the lease's label (`label`, settable at create). The instance list can
 * filter a column with eq/neq/gt/gte/lt/lte/in/notin but has no prefix operator: a lease's
 * machines are asked for by their exact labels (`in`), and any other prefix pages through the
 * user's instances and filters here.
 */
import { classifyGpu, vramOf } from "../../catalog/gpu-classes";
import type { Availability, Offer } from "../../catalog/offer";
import {
  declareCapabilities,
  readBackAction,
  ProviderError,
  type BillingListing,
  type BillingRecord,
  type CreateMachineInput,
  type Machine,
  type MachineEndpoint,
  type MachineStatus,
  type OfferListing,
  type Provider,
  type ProviderCapabilities,
} from "../contract";
import { MAX_LEASE_ATTEMPTS } from "../../lease/policy";
import { agentEnv, shellArgs, startScript, shellExports, withSecretsRedacted } from "../agent-start";
import { isRecord, num, ProviderHttp, publicEndpoint, retryAfterMs, str, usd, type HttpAnswer, type HttpProviderOptions, type Query } from "../http";

export const VAST_BASE_URL = "https://console.vast.ai";
/**
 * Disk given to every instance. Passed to the offer search as `allocated_storage`, so that each
 * offer's `dph_total` already includes this disk, and again at create as `disk`.
 */
export const VAST_DISK_GB = 50;
/**
 * `image` is required by the create body; used when a lease names none. Vast's base image, one
 * dated build pinned by digest so that every lease without an image runs the same bits
 * (docs/design.md "The configuration check and digest pins"). The document's own default, its automatic tag,
 * resolves to a different build on each host, which no digest can pin.
 */
export const VAST_DEFAULT_IMAGE = "vastai/base-image:cuda-12.8.1-cudnn-devel-ubuntu24.04-py312-2026-09-07@sha256:c63434109989a5736181bd1c2ad0a0f12c84e24b73b3bce6b3d604932745b410";
/** The CUDA version VAST_DEFAULT_IMAGE is built on (its tag: `cuda-12.8.1`), so needs: hosts with older drivers are not offered to a lease without an image. */
export const VAST_DEFAULT_IMAGE_MIN_CUDA: number | null = 12.8;
/** Offers asked for in one search (the body's `limit`). */
export const VAST_OFFER_LIMIT = 500;
/** Vast answers 429 without Retry-After: wait this long before the next try (then the jittered backoff grows). */
export const VAST_RATE_LIMIT_WAIT_MS = 2000;
/** The instance list pages 25 at a time; more pages than this is an account lessor does not expect. */
const MAX_LIST_PAGES = 200;
const PAGE_SIZE = 25;
/**
 * Labels asked for when listing one lease's machines: attempts 1..this. A lease makes at most
 * `host_attempts` attempts for each of its restarts, which src/lease/policy.ts caps together at
 * MAX_LEASE_ATTEMPTS.
 */
export const VAST_LABEL_ATTEMPTS = MAX_LEASE_ATTEMPTS;
/**
 * An interruptible (bid) offer's provider offer id: `bid-<ask id>`. The same ask is sold on-demand
 * and by bid (the offer search's `type`), so the two offers need two ids; the create rents the ask.
 */
const BID_OFFER = /^bid-([1-9][0-9]*)$/;
/** A lease's label prefix (src/lease/label.ts): `lessor-<installation>-<lease id>-`. */
const LEASE_PREFIX = /^lessor-[a-z0-9]{1,24}-ls_[0-9a-z]+-$/;

/**
 * The charges are asked for one UTC day at a time, and each day is a billing window. The
 * document's one time filter is `day` ("Date range in unix seconds (UTC)", operators gte/lte),
 * its examples are whole days from midnight to 23:59:59, and an answer row is one contract
 * ("per-contract rows") with its "Total charge for this contract": a row has no window of its
 * own, so only a fixed, non-overlapping range gives the same contract the same amount on every
 * fetch. A day is the smallest range the filter's name and examples vouch for: a shorter one
 * might match no per-day charge at all. Whether a row's total is the contract's charges within
 * the days asked or everything up to the range's end the document does not say (its `start`/`end`
 * are the contract's, not the range's), so a day's charge is taken as a difference that is exact
 * under both readings (#chargesOf).
 */
const BILLING_DAY_MS = 86_400_000;

/**
 * How long after a UTC day closes its charges are taken as final. Vast gives no completeness
 * marker (the charges answer has none, and the document says nothing of when a day's charges
 * stop changing), while lessor stores a record once and a receipt never changes: a day taken too
 * early loses what was metered after it without a trace, while waiting only makes a receipt later.
 * Two hours leaves late metering room, and next to waiting for the day itself to end (up to a
 * day after a lease's release) it is a small delay.
 */
export const VAST_BILLING_LAG_MS = 2 * 60 * 60_000;

/**
 * The least an instance bills for, ms (docs/design.md "The worst case": what replacing hosts may
 * add). The document states no granularity (its charges carry a contract's start and end in unix
 * seconds); Vast's published pricing bills on-demand instances by the second.
 */
export const VAST_BILLING_INCREMENT_MS = 1_000;

/**
 * The end (UTC midnight) of the last day that closed at least VAST_BILLING_LAG_MS before `now`:
 * every charge of every day ending at or before it is final (contract.ts `complete_through`).
 */
export function vastBillingCompleteThrough(now: number): number {
  return Math.floor((now - VAST_BILLING_LAG_MS) / BILLING_DAY_MS) * BILLING_DAY_MS;
}

/** Charge rows asked for in one page ("Server maximum 500"). */
const CHARGES_PAGE_SIZE = 500;
/** More pages than this for one day is an account lessor does not expect. */
const MAX_CHARGES_PAGES = 100;

const NO_FUNDS = /insufficient (funds|balance|credit)|not enough (funds|balance|credit)|balance (is )?too low/i;

export interface VastProviderOptions extends HttpProviderOptions {
  diskGb?: number;
  defaultImage?: string;
  offerLimit?: number;
}

interface VastInstance {
  id: number;
  label?: string | null;
  actual_status?: string | null;
  intended_status?: string;
  cur_state?: string;
  status_msg?: string | null;
  machine_id?: number;
  geolocation?: string;
  dph_total?: number;
  storage_total_cost?: number;
  start_date?: number;
  public_ipaddr?: string;
  /** Docker's port mappings (`"8000/tcp": [{HostIp, HostPort}]`); only on a running instance. */
  ports?: Record<string, unknown> | null;
  /** "Whether the instance was created via bidding." */
  is_bid?: boolean;
}

/** What this provider can do (contract.ts); the same for every account. */
// billing_records: GET /api/v0/charges, one UTC day at a time (listBillingRecords).
// webhooks: signed notifications, checked by ingress (src/ingress/verify.ts, docs/ingress.md).
// spot: interruptible (bid) asks, searched with `type: "bid"`, rented with a `price` (docs/providers.md "Spot").
export const VAST_CAPABILITIES = declareCapabilities(["stop", "start", "list_by_label", "billing_records", "webhooks", "run_agent", "spot"], {
  stop_ends_billing: "A stopped instance keeps its disk, and the disk keeps billing.",
  volumes: "A Vast volume is rented from a volume offer on one host and carries no label lessor could find it by after an unknown outcome; not built (docs/providers.md).",
});

export class VastProvider implements Provider {
  readonly name = "vast";
  readonly capabilities: ProviderCapabilities = VAST_CAPABILITIES;
  readonly #http: ProviderHttp;
  readonly #diskGb: number;
  readonly #defaultImage: string;
  readonly #offerLimit: number;

  constructor(options: VastProviderOptions) {
    this.#http = new ProviderHttp(this.name, VAST_BASE_URL, options);
    this.#diskGb = options.diskGb ?? VAST_DISK_GB;
    this.#defaultImage = options.defaultImage ?? VAST_DEFAULT_IMAGE;
    this.#offerLimit = options.offerLimit ?? VAST_OFFER_LIMIT;
  }

  /**
   * The on-demand asks, then the same market searched by bid (`type: "bid"`, "Uses minimum bid
   * price. Lower cost but may be interrupted if outbid"): each a spot offer of its own, its price
   * the search's at the minimum bid, the on-demand price of the same ask beside it where the
   * on-demand search answered it too.
   */
  async listOffers(): Promise<OfferListing> {
    const onDemand = await this.#search("ondemand");
    const bid = await this.#search("bid");
    const listed = new Map(onDemand.offers.map((o) => [o.provider_offer_id, o.hourly_usd]));
    const spot = bid.offers.map((o): Offer => {
      const onDemandPrice = listed.get(o.provider_offer_id);
      return {
        ...o,
        id: `${this.name}:bid-${o.provider_offer_id}`,
        provider_offer_id: `bid-${o.provider_offer_id}`,
        spot: true,
        ...(onDemandPrice === undefined ? {} : { on_demand_hourly_usd: onDemandPrice }),
      };
    });
    // The two searches read one market: an ask no class covers is counted once.
    return { offers: [...onDemand.offers, ...spot], unclassified: Math.max(onDemand.unclassified, bid.unclassified) };
  }

  async #search(type: "ondemand" | "bid"): Promise<OfferListing> {
    const search = {
      limit: this.#offerLimit,
      // The schema's enum says "ondemand" (its example says "on-demand": the enum wins).
      type,
      verified: { eq: true },
      rentable: { eq: true },
      rented: { eq: false },
      allocated_storage: this.#diskGb,
      // Cheapest first, then the best-scored. Two entries, not one: the document puts its
      // `minItems: 2, maxItems: 2` ("each entry should contain two elements") on the outer
      // array, so a single sort entry is refused by the schema as written; two entries of two
      // elements satisfy both readings.
      order: [
        ["dph_total", "asc"],
        ["score", "desc"],
      ],
    };
    const body = await this.#read("POST", "/api/v0/bundles", undefined, search);
    const raw = isRecord(body) && Array.isArray(body.offers) ? body.offers : [];
    const offers: Offer[] = [];
    let unclassified = 0;
    for (const o of raw) {
      const offer = this.#offer(o);
      if (offer === "unclassified") unclassified++;
      else if (offer) offers.push(offer);
    }
    return { offers, unclassified };
  }

  /** One search result as a lessor offer; null when it cannot be rented as lessor rents. */
  #offer(o: unknown): Offer | "unclassified" | null {
    if (!isRecord(o)) return null;
    const id = num(o.id);
    const gpus = num(o.num_gpus);
    const price = num(o.dph_total);
    if (id === null || gpus === null || price === null || price <= 0 || o.rentable === false) return null;
    // The offer must hold the disk every instance is given.
    const diskSpace = num(o.disk_space);
    if (diskSpace !== null && diskSpace < this.#diskGb) return null;
    const reliability = num(o.reliability2) ?? num(o.reliability) ?? 0;
    const base = {
      id: `${this.name}:${id}`,
      provider: this.name,
      provider_offer_id: String(id),
      vcpu: Math.floor(num(o.cpu_cores_effective) ?? 0),
      // `cpu_ram` is the machine's (MB); an offer of part of a machine gets its `gpu_frac` of it.
      memory_gb: Math.floor(((num(o.cpu_ram) ?? 0) / 1024) * Math.min(1, num(o.gpu_frac) ?? 1)),
      disk_gb: this.#diskGb,
      region: vastRegion(str(o.geolocation)),
      host_id: String(num(o.machine_id) ?? id),
      hourly_usd: usd(price),
      // A marketplace ask is one machine, rentable now or not: what varies is whether it holds
      // up, so the host's reliability stands in for the availability hint.
      availability: (reliability >= 0.99 ? "high" : reliability >= 0.95 ? "medium" : "low") as Availability,
      spot: false,
      // "Minimum required rental duration in seconds (the offer must be available for at least
      // this long from now)", the search filter of the same name: how long the host's contract
      // with the market runs. An ask that does not say is promised nothing (0), never guessed.
      host_duration_s: Math.max(0, Math.floor(num(o.duration) ?? 0)),
      ...vastPlacement(o, this.#diskGb),
    };
    if (gpus === 0) return { ...base, gpu: "cpu", gpu_count: 0, vram_gb: 0 };
    const name = str(o.gpu_name);
    // `gpu_ram` is one GPU's memory in MB in the REST API (the document's "Key Quirks").
    const cls = name === null ? null : classifyGpu(name, (num(o.gpu_ram) ?? 0) / 1024 || null);
    if (!cls) return "unclassified";
    return { ...base, gpu: cls, gpu_count: gpus, vram_gb: vramOf(cls) };
  }

  createMachine(input: CreateMachineInput): Promise<Machine> {
    return withSecretsRedacted(input, () => this.#create(input));
  }

  async #create(input: CreateMachineInput): Promise<Machine> {
    // A bid offer rents its ask as an interruptible instance, with the bid as its `price`.
    const bidAsk = BID_OFFER.exec(input.offer_id)?.[1] ?? null;
    const ask = bidAsk ?? input.offer_id;
    if (!/^[1-9][0-9]*$/.test(ask)) {
      throw new ProviderError(this.name, "no_capacity", `vast: offer id "${input.offer_id}" is not an ask id`);
    }
    if (bidAsk !== null && !(typeof input.bid_usd === "number" && input.bid_usd > 0)) {
      throw new ProviderError(this.name, "refused", `vast: offer ${input.offer_id} is interruptible and needs a bid`);
    }
    const body: Record<string, unknown> = {
      image: input.image ?? this.#defaultImage,
      label: input.label,
      disk: this.#diskGb,
      // `args`: run the image's own entrypoint with `args_str` as its arguments, as RunPod does.
      runtype: "args",
      target_state: "running",
      // Refuse rather than queue when the machine cannot start now: 410 no_such_ask, not a
      // contract that sits waiting and is billed for disk.
      cancel_unavail: true,
      // "Bid price per machine (in $/hour). Only for interruptible instances", 0.001 to 128.
      ...(bidAsk !== null ? { price: Math.min(128, Math.max(0.001, Math.round(input.bid_usd! * 1000) / 1000)) } : {}),
    };
    // `env` is one string of Docker flags (`-e NAME=value`) whose quoting the document does not
    // define: a value goes there only as one plain word (vastEnvFlags); any other is exported by
    // the start line, where shQuote makes any value safe. Through `sh -c`, as on every provider
    // (shellArgs). With the agent, the agent runs `cmd` (agent-start.ts). Not `onstart`: the start
    // line is the entrypoint's arguments (`runtype: "args"`), as on RunPod, so it means the same.
    const { flags, rest } = vastEnvFlags(agentEnv(this.name, input));
    // Each port mapped to itself inside the container (`-p 8000:8000`); Vast picks the host's port
    // and reports it in the instance's `ports` (vastEndpointUrl).
    const env = [flags, ...(input.ports ?? []).map((p) => `-p ${p}:${p}`)].filter((f) => f !== "").join(" ");
    if (env !== "") body.env = env;
    const script = startScript(input);
    if (script) body.args_str = shellArgs(shellExports(rest) + script);
    else if (Object.keys(rest).length > 0) {
      throw new ProviderError(this.name, "refused", `vast: ${Object.keys(rest).join(", ")}: a value with spaces, quotes or symbols needs a command to be set by`);
    }
    const path = `/api/v0/asks/${ask}`;
    let answer: HttpAnswer;
    try {
      answer = await this.#http.send("PUT", path, { body });
    } catch (e) {
      throw new ProviderError(this.name, "ambiguous", `vast: create ${input.label}: ${(e as Error).message}, outcome unknown`);
    }
    if (answer.status >= 500 || answer.status === 408) {
      throw new ProviderError(this.name, "ambiguous", `vast: create ${input.label}: ${answer.status}, outcome unknown`);
    }
    if (answer.status !== 200) throw this.#error(`PUT ${path}`, answer, true);
    const contract = isRecord(answer.body) ? num(answer.body.new_contract) : null;
    if (!isRecord(answer.body) || answer.body.success !== true || contract === null) {
      throw new ProviderError(this.name, "ambiguous", `vast: create ${input.label}: 200 without new_contract, outcome unknown`);
    }
    const id = String(contract);
    // The answer is only the id: read the instance back; until Vast shows it, it is provisioning.
    const seen = await this.getMachine(id).catch(() => null);
    return (
      seen ?? {
        id,
        label: input.label,
        status: "provisioning",
        offer_id: input.offer_id,
        host_id: "",
        region: "",
        hourly_usd: 0,
        stopped_hourly_usd: 0,
        created_at: 0,
      }
    );
  }

  /**
   * By the instance list filtered on `id`, not by `GET /api/v0/instances/{id}`: the document gives
   * that one no 404 and no null, so it has no documented way to say "gone"; an empty list does.
   */
  async getMachine(id: string): Promise<Machine | null> {
    const found = await this.#instance(id);
    if (!found) return null;
    const machine = this.#machine(found);
    return machine.status === "terminated" ? null : machine;
  }

  /** A running instance's port, at its public address and the host port Vast mapped it to; null until Vast reports both. */
  async endpoint(machine: Machine, port: number): Promise<MachineEndpoint | null> {
    const found = await this.#instance(machine.id);
    if (!found || vastStatus(found) !== "running") return null;
    const url = vastEndpointUrl(found, port);
    return url === null ? null : publicEndpoint(url);
  }

  async #instance(id: string): Promise<VastInstance | null> {
    if (!/^[0-9]+$/.test(id)) return null;
    const page = await this.#page({ limit: PAGE_SIZE, select_filters: JSON.stringify({ id: { eq: Number(id) } }) });
    return page.instances.find((i) => String(i.id) === id) ?? null;
  }

  /** The first instance of the account: one read that every key allowed to rent can make. */
  async verify(): Promise<void> {
    await this.#page({ limit: 1 });
  }

  /**
   * A lease's machines (a prefix `lessor-<installation>-<lease id>-`) are asked for by their exact
   * labels, filtered on the server (`label` `in`, one page): every label a lease can give is its
   * prefix and `a<attempt>` (src/lease/label.ts), and attempts stay under VAST_LABEL_ATTEMPTS. Any
   * other prefix (the reconciler's, every minute) pages through the account, at most
   * MAX_LIST_PAGES pages: the filter has no prefix operator.
   */
  async listMachines(prefix: string): Promise<Machine[]> {
    const out: Machine[] = [];
    const labels = LEASE_PREFIX.test(prefix) ? Array.from({ length: VAST_LABEL_ATTEMPTS }, (_, n) => `${prefix}a${n + 1}`) : null;
    let token: string | null = null;
    for (let n = 0; n < MAX_LIST_PAGES; n++) {
      const query: Query = { limit: PAGE_SIZE, order_by: JSON.stringify([{ col: "id", dir: "asc" }]) };
      if (labels) query.select_filters = JSON.stringify({ label: { in: labels } });
      if (token !== null) query.after_token = token;
      const page = await this.#page(query);
      for (const i of page.instances) {
        if (typeof i.label !== "string" || !i.label.startsWith(prefix)) continue;
        const m = this.#machine(i);
        if (m.status !== "terminated") out.push(m);
      }
      token = page.next;
      if (token === null) return out;
    }
    throw new ProviderError(this.name, "unavailable", `vast: more than ${MAX_LIST_PAGES * PAGE_SIZE} instances; listing by label stopped`);
  }

  async stopMachine(id: string): Promise<void> {
    await this.#setState(id, "stopped", ["stopped"]);
  }

  async startMachine(id: string): Promise<void> {
    await this.#setState(id, "running", ["provisioning", "starting", "running"]);
  }

  async destroyMachine(id: string): Promise<void> {
    if (!/^[0-9]+$/.test(id)) return;
    const path = `/api/v0/instances/${id}`;
    const answer = await this.#http.retrying(() => this.#sendRead("DELETE", path));
    if (answer.status === 404) return;
    if (answer.status === 200 && isRecord(answer.body) && answer.body.success !== false) return;
    // Refused or unclear: gone is gone, whatever the answer said.
    if ((await this.getMachine(id)) === null) return;
    throw this.#error(`DELETE ${path}`, answer);
  }

  /**
   * The account's instance charges (`GET /api/v0/charges`, `type` instance: volumes and serverless
   * are not machines lessor rents) for every whole UTC day from the one holding `from` up to
   * `complete_through`, which is measured back from `to`: the caller's clock (the reconciler
   * passes its `now`), so nothing here reads one. Only final days are asked for, two requests
   * (and their pages) each.
   *
   * A record is one instance's charges for one day: `instance-<id>:<day>`, from the row's own
   * `source` ("Identifier in the form `{type}-{id}`") and the day asked, the same on every fetch.
   * The amount is the difference of two of Vast's own `amount`s (to 3 decimals, as Vast states
   * them; #chargesOf), never recomputed from rates; its `items` (gpu, disk, bwd, bwu) give the
   * parts the same way. An instance charged nothing that day has no record.
   */
  async listBillingRecords(window: { from: number; to: number }): Promise<BillingListing> {
    const complete_through = vastBillingCompleteThrough(window.to);
    const records: BillingRecord[] = [];
    const first = Math.floor(Math.max(0, window.from) / BILLING_DAY_MS) * BILLING_DAY_MS;
    for (let day = first; day + BILLING_DAY_MS <= complete_through; day += BILLING_DAY_MS) records.push(...(await this.#chargesOf(day)));
    return { records, complete_through };
  }

  /**
   * One day's instance charges, as differences of two cumulative charges: each instance's charge
   * over the day before and this day, less its charge over the day before alone. The document
   * calls a row's `amount` the "Total charge for this contract", which may be the charge within
   * the range asked or the contract's whole charge up to the range's end; the difference is
   * this day's charge under either reading, and the same on every fetch (both ranges depend on
   * the day only).
   */
  async #chargesOf(day: number): Promise<BillingRecord[]> {
    const date = new Date(day).toISOString().slice(0, 10);
    const through = await this.#chargeRows(day - BILLING_DAY_MS, day + BILLING_DAY_MS, date);
    const before = await this.#chargeRows(day - BILLING_DAY_MS, day, date);
    // Rows without an instance id cannot be matched across the two answers: each is passed on
    // unreadable, as Vast states it, for the reconciler to count and leave out.
    const records: BillingRecord[] = through.unreadable.map((row) => ({
      record_id: "",
      machine_id: "",
      window_start: day,
      window_end: day + BILLING_DAY_MS,
      amount_usd: row.amount,
      components: row.parts,
    }));
    for (const [id, row] of through.rows) {
      const prior = before.rows.get(id);
      const amount = round3(row.amount - (prior?.amount ?? 0));
      // Charged the day before and nothing more: no charge this day. One first charged this day
      // has its record even when Vast rounds it to $0 (a machine of a few seconds).
      if (prior && amount === 0) continue;
      const components: Record<string, number> = {};
      for (const [part, v] of Object.entries(row.parts)) {
        components[part] = Math.round((v - (prior?.parts[part] ?? 0)) * 1e6) / 1e6;
      }
      records.push({ record_id: `instance-${id}:${date}`, machine_id: id, window_start: day, window_end: day + BILLING_DAY_MS, amount_usd: amount, components });
    }
    return records;
  }

  /**
   * Each instance's charge over the days [from, to) (`day` gte/lte, `lte` inclusive: the last
   * second, as the document's "All charges in January 2026"), every page, by instance id; an
   * answer that does not add up is `unavailable`, never part of a bill. Rows without an instance
   * id are kept apart (`unreadable`).
   */
  async #chargeRows(from: number, to: number, date: string): Promise<{ rows: Map<string, ChargeRow>; unreadable: ChargeRow[] }> {
    const path = "/api/v0/charges";
    const filters = JSON.stringify({ day: { gte: from / 1000, lte: to / 1000 - 1 }, type: { in: ["instance"] } });
    const rows: unknown[] = [];
    let total: number | null = null;
    let token: string | null = null;
    for (let n = 0; ; n++) {
      if (n >= MAX_CHARGES_PAGES) throw new ProviderError(this.name, "unavailable", `vast: GET ${path}: more than ${MAX_CHARGES_PAGES} pages of charges for ${date}`);
      const query: Query = { select_filters: filters, limit: CHARGES_PAGE_SIZE };
      if (token !== null) query.after_token = token;
      const body = await this.#read("GET", path, query);
      if (!isRecord(body) || body.success === false || !Array.isArray(body.results)) {
        throw new ProviderError(this.name, "unavailable", `vast: GET ${path}: unreadable charges for ${date}`);
      }
      rows.push(...body.results);
      total = num(body.total) ?? total;
      token = str(body.next_token) || null;
      if (token === null) break;
    }
    // Pages that shifted under us, or a listing cut short, would settle leases on part of a bill.
    if (total !== null && total !== rows.length) {
      throw new ProviderError(this.name, "unavailable", `vast: GET ${path}: ${rows.length} charge rows for ${date}, but a total of ${total}`);
    }
    const out = new Map<string, ChargeRow>();
    const unreadable: ChargeRow[] = [];
    for (const row of rows) {
      const x = isRecord(row) ? row : {};
      const type = str(x.type);
      if (type !== null && type !== "instance") continue;
      const id = /^instance-([0-9]+)$/.exec(str(x.source) ?? "")?.[1] ?? "";
      const charge = { amount: num(x.amount) ?? NaN, parts: chargeParts(x.items) };
      if (id === "") unreadable.push(charge);
      else if (out.has(id)) throw new ProviderError(this.name, "unavailable", `vast: GET ${path}: instance ${id} answered twice for ${date}`);
      else out.set(id, charge);
    }
    return { rows: out, unreadable };
  }

  /** PUT {"state"}: the answer is only `success`, so a refusal is read back, never assumed. */
  async #setState(id: string, state: "running" | "stopped", wanted: readonly MachineStatus[]): Promise<void> {
    if (!/^[0-9]+$/.test(id)) throw new ProviderError(this.name, "not_found", `vast: no instance ${id}`);
    const path = `/api/v0/instances/${id}`;
    const answer = await this.#http.retrying(() => this.#sendRead("PUT", path, undefined, { state }));
    if (answer.status === 200 && isRecord(answer.body) && answer.body.success !== false) return;
    if (answer.status !== 200 && answer.status !== 400 && answer.status !== 404) throw this.#error(`PUT ${path}`, answer);
    await readBackAction(this, id, `set ${id} ${state}`, "instance", wanted);
  }

  async #page(query: Query): Promise<{ instances: VastInstance[]; next: string | null }> {
    const body = await this.#read("GET", "/api/v1/instances", query);
    const list = isRecord(body) && Array.isArray(body.instances) ? body.instances : [];
    const next = isRecord(body) ? str(body.next_token) : null;
    return { instances: list.filter(isInstance), next: next || null };
  }

  #machine(i: VastInstance): Machine {
    const taken = vastTakenBack(i);
    return {
      id: String(i.id),
      label: i.label ?? "",
      status: vastStatus(i),
      // An instance does not say which ask it was rented from (its bundle_id is another id).
      offer_id: "",
      host_id: i.machine_id === undefined ? "" : String(i.machine_id),
      region: vastRegion(i.geolocation ?? null),
      hourly_usd: num(i.dph_total) ?? 0,
      // `storage_total_cost` is the disk's $/hour (the `diskHour` of the instance's pricing).
      stopped_hourly_usd: num(i.storage_total_cost) ?? 0,
      created_at: Math.round((num(i.start_date) ?? 0) * 1000),
      ...(taken ? { preempted: true } : {}),
    };
  }

  async #read(method: string, path: string, query?: Query, body?: unknown): Promise<unknown> {
    const answer = await this.#http.retrying(() => this.#sendRead(method, path, query, body));
    if (answer.status < 200 || answer.status >= 300) throw this.#error(`${method} ${path}`, answer);
    return answer.body;
  }

  #sendRead(method: string, path: string, query?: Query, body?: unknown): Promise<HttpAnswer> {
    return this.#http.sendRepeatable(method, path, { query, body }, (call, answer) => this.#error(call, answer));
  }


  /** Vast's errors are `{success: false, error, msg}` (or `{detail}` on 429). */
  #error(call: string, answer: HttpAnswer, create = false): ProviderError {
    const b = isRecord(answer.body) ? answer.body : {};
    const code = str(b.error) ?? "";
    const words = [code, str(b.msg), str(b.detail)].filter(Boolean).join(": ");
    const message = `vast: ${call}: ${answer.status}${words ? ` ${words}` : ""}`;
    if (answer.status === 429) return new ProviderError(this.name, "rate_limited", message, retryAfterMs(answer.headers) ?? VAST_RATE_LIMIT_WAIT_MS);
    if (answer.status === 401) return new ProviderError(this.name, "auth", message);
    if (NO_FUNDS.test(words)) return new ProviderError(this.name, "insufficient_funds", message);
    if (create) {
      // 404 "not available" and 410 "no longer available" carry `no_such_ask`; a 403 "is not your
      // own" says the same ask cannot be ours. Another offer may do.
      if (answer.status === 404 || answer.status === 410 || /no_such_ask/.test(words)) return new ProviderError(this.name, "no_capacity", message);
      if (answer.status === 403 && /not your own/i.test(words)) return new ProviderError(this.name, "no_capacity", message);
      // The create's documented 400 codes (`invalid_args`, `invalid_price`, `no_ssh_key_for_vm`)
      // and any other 4xx but 403/429: Vast answered, nothing was rented, and asking again
      // cannot change the answer.
      if (answer.status >= 400 && answer.status < 500 && answer.status !== 403) return new ProviderError(this.name, "refused", message);
    }
    if (answer.status === 403) return new ProviderError(this.name, "auth", message);
    // The offer search documents 404 as "Unauthorized - invalid or missing API key", the charges
    // as "the supplied API key does not match any user".
    if (answer.status === 404 && (call.endsWith("/api/v0/bundles") || call.endsWith("/api/v0/charges"))) return new ProviderError(this.name, "auth", message);
    if (answer.status === 404) return new ProviderError(this.name, "not_found", message);
    return new ProviderError(this.name, "unavailable", message);
  }
}

/**
 * Where an instance's container `port` is reached from outside: `http://<public_ipaddr>:<host
 * port>`, the host port from the instance's mappings (`"<port>/tcp": [{HostPort}]`); null while
 * either is missing.
 */
export function vastEndpointUrl(i: Pick<VastInstance, "public_ipaddr" | "ports">, port: number): string | null {
  const ip = str(i.public_ipaddr)?.trim();
  const bindings = isRecord(i.ports) ? i.ports[`${port}/tcp`] : null;
  const first = Array.isArray(bindings) ? bindings.find((b) => isRecord(b) && /^[0-9]{1,5}$/.test(String(b.HostPort ?? ""))) : undefined;
  if (!ip || !isRecord(first)) return null;
  return `http://${ip}:${String(first.HostPort)}`;
}

/** A value Vast's `-e NAME=value` flags carry as one word, whatever their parser's quoting rules. */
const PLAIN_WORD = /^[A-Za-z0-9_.,:/@%+=-]*$/;

/** The variables whose values are plain words, as Vast's `env` flags; the others to be exported by the start line. */
export function vastEnvFlags(env: Record<string, string>): { flags: string; rest: Record<string, string> } {
  const words: string[] = [];
  const rest: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (PLAIN_WORD.test(value)) words.push(`-e ${name}=${value}`);
    else rest[name] = value;
  }
  return { flags: words.join(" "), rest };
}

/**
 * Vast's words for an instance, normalized. `actual_status` is the container's state,
 * `intended_status` what was last asked for of the container, `cur_state` the state of the
 * machine contract (the document's Instance schema). The document warns that a container that is
 * `exited`, `unknown` or `offline` will never reach `running` ("destroy and retry"): unless the
 * instance is meant to be stopped, that is `error`, so a booting lease replaces the host and a
 * ready one releases with `host_failed`, never waiting on a dead container that still holds its
 * contract. A contract whose `cur_state` is `stopped` is stopped, whatever was last intended: a
 * stop made behind lessor's back (by the host or in Vast's console) reads as one.
 */
export function vastStatus(i: Pick<VastInstance, "actual_status" | "intended_status" | "cur_state" | "status_msg">): MachineStatus {
  const actual = (i.actual_status ?? "").toLowerCase();
  const contract = (i.cur_state ?? "").toLowerCase();
  const intended = (i.intended_status ?? i.cur_state ?? "running").toLowerCase();
  // What runs, bills: a stop accepted but not yet carried out is still running.
  if (actual === "running") return "running";
  if (contract === "stopped" || intended === "stopped") return "stopped";
  if (actual === "exited" || actual === "offline" || actual === "unknown") return "error";
  // null: not scheduled yet, or pulling the image.
  if (actual === "") return "provisioning";
  return "starting";
}

/**
 * Whether a bid instance was taken back (the contract's `preempted`): the document says a bid
 * "may be interrupted if outbid" and names a `client:outbid` notification, but not the states an
 * interrupted instance shows. lessor reads it from the Instance schema's fields: an instance
 * created by bidding (`is_bid`) that was last asked to run (`intended_status: running`) and no
 * longer runs: its container `exited`, `offline` or `unknown` (the document's "will never reach
 * running"), or its contract `cur_state` stopped. lessor never stops an instance and leaves it
 * meant to run, so such an instance was stopped by the market, not by lessor. An on-demand
 * instance in the same state stays `error` (vastStatus), a failed host.
 */
export function vastTakenBack(i: Pick<VastInstance, "is_bid" | "actual_status" | "intended_status" | "cur_state">): boolean {
  if (i.is_bid !== true) return false;
  const actual = (i.actual_status ?? "").toLowerCase();
  const intended = (i.intended_status ?? "running").toLowerCase();
  const contract = (i.cur_state ?? "").toLowerCase();
  if (intended !== "running" || actual === "running") return false;
  return actual === "exited" || actual === "offline" || actual === "unknown" || contract === "stopped";
}

type VastFacts = Pick<Offer, "cuda_max" | "inet_down_usd_per_gb" | "inet_up_usd_per_gb" | "reliability" | "inet_down_mbps" | "inet_up_mbps" | "stopped_hourly_usd">;

/** Hours in the month Vast's `storage_cost` ($/GB/month) is spread over. */
const HOURS_PER_MONTH = 730;

/**
 * An ask's CUDA limit, bandwidth prices, reliability and internet speeds, each only where stated:
 * `cuda_max_good` ("Maximum supported CUDA version"), `inet_down_cost` and `inet_up_cost` ($/GB),
 * which Vast bills as the charges' `bwd` and `bwu` items, `reliability2` (else `reliability`), a
 * score from 0 to 1, and `inet_down`, `inet_up` (Mbps).
 */
export function vastPlacement(o: Record<string, unknown>, diskGb: number = VAST_DISK_GB): VastFacts {
  const out: VastFacts = {};
  // `storage_cost`, $/GB/month: a stopped instance keeps its disk, and the disk keeps billing.
  const storage = num(o.storage_cost);
  if (storage !== null && storage >= 0) out.stopped_hourly_usd = usd((storage * diskGb) / HOURS_PER_MONTH);
  const cuda = num(o.cuda_max_good);
  if (cuda !== null && cuda > 0) out.cuda_max = cuda;
  const down = num(o.inet_down_cost);
  if (down !== null && down >= 0) out.inet_down_usd_per_gb = down;
  const up = num(o.inet_up_cost);
  if (up !== null && up >= 0) out.inet_up_usd_per_gb = up;
  const reliability = num(o.reliability2) ?? num(o.reliability);
  if (reliability !== null && reliability >= 0 && reliability <= 1) out.reliability = reliability;
  const downMbps = num(o.inet_down);
  if (downMbps !== null && downMbps >= 0) out.inet_down_mbps = downMbps;
  const upMbps = num(o.inet_up);
  if (upMbps !== null && upMbps >= 0) out.inet_up_mbps = upMbps;
  return out;
}

/** "Washington, US" -> "us": the document's location filter speaks two-letter country codes. */
export function vastRegion(geolocation: string | null): string {
  if (!geolocation) return "unknown";
  const last = geolocation.split(",").pop()!.trim();
  if (/^[A-Za-z]{2}$/.test(last)) return last.toLowerCase();
  return (
    geolocation
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "unknown"
  );
}

/** A charge's `items` summed by their type: `gpu_usd`, `disk_usd`, `bwd_usd`, `bwu_usd`. */
function chargeParts(items: unknown): Record<string, number> {
  const parts: Record<string, number> = {};
  for (const item of Array.isArray(items) ? items : []) {
    if (!isRecord(item)) continue;
    const type = str(item.type);
    const amount = num(item.amount);
    if (type === null || amount === null) continue;
    const key = `${type}_usd`;
    parts[key] = Math.round(((parts[key] ?? 0) + amount) * 1e6) / 1e6;
  }
  return parts;
}

/** One charge row as read: its amount and its items by type. */
interface ChargeRow {
  amount: number;
  parts: Record<string, number>;
}

/** Vast states charges to 3 decimals: a difference of two is one too. */
function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function isInstance(x: unknown): x is VastInstance {
  return isRecord(x) && typeof x.id === "number";
}
