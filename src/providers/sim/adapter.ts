/**
 * The adapter for `sim`: the same shape as a real provider's adapter, over the sim's HTTP API
 * (cloud.ts). It keeps the contract's rules (contract.ts): a create is never retried and an
 * unknown outcome is `ambiguous`; reads and the idempotent actions (stop, start, destroy) are
 * retried a few times with short, jittered backoff; a machine that is gone is destroyed already.
 * Sending and retrying are the real adapters' own (../http.ts), over the sim's Durable Object.
 */
import type { Offer } from "../../catalog/offer";
import type { Env } from "../../env";
import {
  declareCapabilities,
  normalizedStatus,
  readBackAction,
  ProviderError,
  type BillingListing,
  type CreateMachineInput,
  type CreateVolumeInput,
  type Volume,
  type Machine,
  type MachineEndpoint,
  type MachineStatus,
  type OfferListing,
  type Provider,
  type ProviderCapabilities,
} from "../contract";
import { agentEnv, withSecretsRedacted } from "../agent-start";
import { errorText } from "../../errors";
import { ProviderHttp, type HttpAnswer } from "../http";
import type { SimFaults } from "./faults";
import { SIM_VOLUME_USD_PER_GB_MONTH, type SimBillingRecord, type SimLedger, type SimMachineJson, type SimStatus, type SimVolumeBillingRecord } from "./machines";
import { normalizeSimOffer, type SimOffer } from "./offers";
import { SIM_PORT_CLOSED_HEADER } from "./model-server";

/** The one sim cloud of an installation. */
export const SIM_OBJECT_NAME = "sim";
const SIM_ORIGIN = "https://sim.internal";

/**
 * The least a sim machine bills for, ms (docs/design.md "The worst case"): its records sum the
 * exact milliseconds a machine spent in each billed status (machines.ts `hourlyBilling`).
 */
export const SIM_BILLING_INCREMENT_MS = 1;

/** Retries after the first attempt, for reads and idempotent actions. */
export const SIM_RETRIES = 3;
/** The sim answers from inside the Worker, so its backoff is short: 50 to 200 ms. */
const BACKOFF_BASE_MS = 100;
export const SIM_BACKOFF_MAX_MS = 200;
/** A Retry-After is honoured up to this long; a longer one is the caller's to wait out. */
const RETRY_AFTER_CAP_MS = 2000;

const STATUS: Record<SimStatus, MachineStatus> = {
  PROVISIONING: "provisioning",
  STARTING: "starting",
  RUNNING: "running",
  EXITED: "stopped",
  TERMINATED: "terminated",
  ERROR: "error",
};

export interface SimProviderOptions {
  /** Retries of reads and idempotent actions (default SIM_RETRIES). */
  retries?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

function simStub(env: Env) {
  return env.SIM.get(env.SIM.idFromName(SIM_OBJECT_NAME));
}

/** What this provider can do (contract.ts); the same for every account. */
export const SIM_CAPABILITIES = declareCapabilities(["stop", "start", "list_by_label", "billing_records", "webhooks", "spot", "run_agent", "volumes"], {
  stop_ends_billing: "A stopped machine keeps its disk, and the disk bills at its own price (disk_price_per_hour).",
});

export class SimProvider implements Provider {
  readonly name = "sim";
  readonly capabilities: ProviderCapabilities = SIM_CAPABILITIES;
  readonly #http: ProviderHttp;
  readonly #env: Env;

  constructor(env: Env, options: SimProviderOptions = {}) {
    this.#env = env;
    this.#http = new ProviderHttp("sim", SIM_ORIGIN, {
      apiKey: null,
      fetch: (input, init) => simStub(env).fetch(input instanceof Request ? input : String(input), init) as unknown as Promise<Response>,
      retries: options.retries ?? SIM_RETRIES,
      backoffBaseMs: BACKOFF_BASE_MS,
      backoffMaxMs: SIM_BACKOFF_MAX_MS,
      retryAfterCapMs: RETRY_AFTER_CAP_MS,
      ...(options.sleep ? { sleep: options.sleep } : {}),
      ...(options.random ? { random: options.random } : {}),
    });
  }

  /** The sim needs no key: reading its offers proves only that it answers. */
  async verify(): Promise<void> {
    await this.#http.retrying(() => this.#expect<{ offers: SimOffer[] }>("GET", "/v1/offers"));
  }

  async listOffers(): Promise<OfferListing> {
    const body = await this.#http.retrying(() => this.#expect<{ offers: SimOffer[] }>("GET", "/v1/offers"));
    const offers: Offer[] = [];
    let unclassified = 0;
    for (const o of body.offers) {
      const offer = normalizeSimOffer(o);
      if (offer) offers.push(offer);
      else unclassified++;
    }
    return { offers, unclassified };
  }

  createMachine(input: CreateMachineInput): Promise<Machine> {
    return withSecretsRedacted(input, () => this.#create(input));
  }

  async #create(input: CreateMachineInput): Promise<Machine> {
    // The sim stores the environment with the machine (the token with it: it is the machine).
    const env = agentEnv(this.name, input);
    const body = {
      label: input.label,
      offer_id: input.offer_id,
      image: input.image ?? null,
      cmd: input.cmd ?? null,
      env: Object.keys(env).length > 0 ? env : null,
      ports: input.ports ?? [],
      ...(input.volumes?.length ? { volumes: input.volumes } : {}),
    };
    let answer: HttpAnswer;
    try {
      answer = await this.#http.send("POST", "/v1/machines", { body });
    } catch (e) {
      // The request may have reached the cloud: only listing by label can tell (guarantee 2).
      throw new ProviderError(this.name, "ambiguous", `sim: create ${input.label}: ${errorText(e)}`);
    }
    if (answer.status === 201 || answer.status === 200) {
      if (!isMachineJson(answer.body)) throw new ProviderError(this.name, "ambiguous", `sim: create ${input.label}: unreadable answer`);
      return this.#machine(answer.body);
    }
    // 503 is the sim's "did nothing"; any other 5xx (502, 504, an internal 500) leaves the outcome unknown.
    if (answer.status >= 500 && answer.status !== 503) {
      throw new ProviderError(this.name, "ambiguous", `sim: create ${input.label}: ${answer.status}, outcome unknown`);
    }
    throw this.#error("POST", "/v1/machines", answer);
  }

  async getMachine(id: string): Promise<Machine | null> {
    const answer = await this.#http.retrying(() => this.#sendRead("GET", machinePath(id)));
    if (answer.status === 404) return null;
    if (answer.status !== 200 || !isMachineJson(answer.body)) throw this.#error("GET", machinePath(id), answer);
    const machine = this.#machine(answer.body);
    return machine.status === "terminated" ? null : machine;
  }

  async listMachines(prefix: string): Promise<Machine[]> {
    const path = `/v1/machines?label_prefix=${encodeURIComponent(prefix)}`;
    const body = await this.#http.retrying(() => this.#expect<{ machines: SimMachineJson[] }>("GET", path));
    return body.machines.map((m) => this.#machine(m)).filter((m) => m.label.startsWith(prefix) && m.status !== "terminated");
  }

  async stopMachine(id: string): Promise<void> {
    await this.#act(id, "stop", ["stopped"]);
  }

  async startMachine(id: string): Promise<void> {
    // A machine already on its way up is what a start asks for.
    await this.#act(id, "start", ["provisioning", "starting", "running"]);
  }

  async destroyMachine(id: string): Promise<void> {
    const answer = await this.#http.retrying(() => this.#sendRead("DELETE", machinePath(id)));
    if (answer.status === 200 || answer.status === 404) return;
    throw this.#error("DELETE", machinePath(id), answer);
  }

  /** Never retried: a 5xx other than 503 leaves the outcome unknown, for the caller to list by label. */
  async createVolume(input: CreateVolumeInput): Promise<Volume> {
    let answer: HttpAnswer;
    try {
      answer = await this.#http.send("POST", "/v1/volumes", { body: { label: input.label, size_gb: input.size_gb, region: input.region } });
    } catch (e) {
      throw new ProviderError(this.name, "ambiguous", `sim: create volume ${input.label}: ${errorText(e)}`);
    }
    if (answer.status === 201 && isVolumeJson(answer.body)) return volumeOf(answer.body);
    if (answer.status >= 500 && answer.status !== 503) throw new ProviderError(this.name, "ambiguous", `sim: create volume ${input.label}: ${answer.status}, outcome unknown`);
    throw this.#error("POST", "/v1/volumes", answer);
  }

  /** Every sim volume bills the same (docs/sim.md "Volumes"). */
  volumePrice(_region: string): number | null {
    return SIM_VOLUME_USD_PER_GB_MONTH;
  }

  async listVolumes(prefix: string): Promise<Volume[]> {
    const path = `/v1/volumes?label_prefix=${encodeURIComponent(prefix)}`;
    const body = await this.#http.retrying(() => this.#expect<{ volumes: SimVolumeJson[] }>("GET", path));
    return body.volumes.filter((v) => v.label.startsWith(prefix)).map(volumeOf);
  }

  async deleteVolume(id: string): Promise<void> {
    const path = `/v1/volumes/${encodeURIComponent(id)}`;
    const answer = await this.#http.retrying(() => this.#sendRead("DELETE", path));
    if (answer.status === 200 || answer.status === 404) return;
    throw this.#error("DELETE", path, answer);
  }

  /**
   * The sim's billing records for closed, published windows overlapping [from, to), with the
   * sim's own word on how far they are complete. Read-only, so retried like any read.
   */
  async commandQueued(machineId: string): Promise<void> {
    await simStub(this.#env).commandQueued(machineId);
  }

  /**
   * The sim's machines are reached inside the Worker: `fetch` goes to the sim cloud's port route
   * and answers its Response as it streams. A port nothing listens on (the run not yet serving,
   * ended, the machine stopped) rejects with a TypeError, as a refused connection does. Null for
   * a machine that is not running or did not ask for the port.
   */
  async endpoint(machine: Machine, port: number): Promise<MachineEndpoint | null> {
    const answer = await this.#http.retrying(() => this.#sendRead("GET", machinePath(machine.id)));
    if (answer.status === 404) return null;
    if (answer.status !== 200 || !isMachineJson(answer.body)) throw this.#error("GET", machinePath(machine.id), answer);
    const m = answer.body;
    if (m.status !== "RUNNING" || !m.ports.includes(port)) return null;
    return simPortEndpoint(this.#env, m.id, port);
  }

  async listBillingRecords(window: { from: number; to: number }): Promise<BillingListing> {
    const path = `/v1/billing?from=${Math.max(0, Math.floor(window.from))}&to=${Math.max(0, Math.ceil(window.to))}`;
    const body = await this.#http.retrying(() =>
      this.#expect<{ complete_through: number; records: SimBillingRecord[]; volume_records?: SimVolumeBillingRecord[] }>("GET", path),
    );
    return {
      complete_through: body.complete_through,
      records: [
        ...body.records.map((r) => ({
          record_id: r.record_id,
          machine_id: r.machine_id,
          window_start: r.window_start,
          window_end: r.window_end,
          amount_usd: r.amount_usd,
          components: { running_seconds: r.running_seconds, stopped_seconds: r.stopped_seconds },
        })),
        // A volume's storage, by the same windows: its own records (`resource: volume`).
        ...(body.volume_records ?? []).map((r) => ({
          record_id: r.record_id,
          machine_id: r.volume_id,
          window_start: r.window_start,
          window_end: r.window_end,
          amount_usd: r.amount_usd,
          components: { gb_seconds: r.gb_seconds },
          resource: "volume" as const,
        })),
      ],
    };
  }

  /** Stop or start. A 409 is read back: already in a wanted state is success (state is read, never assumed). */
  async #act(id: string, action: "stop" | "start", wanted: readonly MachineStatus[]): Promise<void> {
    const path = `${machinePath(id)}/${action}`;
    const answer = await this.#http.retrying(() => this.#sendRead("POST", path));
    if (answer.status === 200) return;
    if (answer.status !== 409) throw this.#error("POST", path, answer);
    await readBackAction(this, id, `${action} ${id}`, "machine", wanted);
  }

  #machine(m: SimMachineJson): Machine {
    const status = normalizedStatus(this.name, STATUS, m.status, `machine ${m.id}`);
    return {
      id: m.id,
      label: m.label,
      status,
      offer_id: m.offer_id,
      host_id: m.host_id,
      region: m.region,
      hourly_usd: m.price_per_hour,
      stopped_hourly_usd: m.disk_price_per_hour,
      created_at: m.created_at,
      // Taken back by the cloud (a spot machine: docs/sim.md "Spot"): the contract's `preempted`.
      ...(m.interrupted === true ? { preempted: true } : {}),
    };
  }

  /** A call whose every non-2xx answer is an error. */
  async #expect<T>(method: string, path: string): Promise<T> {
    const answer = await this.#sendRead(method, path);
    if (answer.status < 200 || answer.status >= 300) throw this.#error(method, path, answer);
    return answer.body as T;
  }

  /** A call that is safe to repeat: a dropped connection or 5xx is `unavailable`, 429 is `rate_limited`. */
  #sendRead(method: string, path: string): Promise<HttpAnswer> {
    return this.#http.sendRepeatable(method, path, {}, (_call, answer) => this.#error(method, path, answer));
  }

  /** The normalized error for a non-success answer (docs/design.md "Shape": errors are normalized). */
  #error(method: string, path: string, answer: HttpAnswer): ProviderError {
    const code: string = (answer.body as { error?: { code?: string } } | null)?.error?.code ?? "";
    const message = `sim: ${method} ${path}: ${answer.status}${code ? ` ${code}` : ""}`;
    if (answer.status === 429) {
      const seconds = Number(answer.headers.get("retry-after"));
      return new ProviderError(this.name, "rate_limited", message, (Number.isFinite(seconds) && seconds >= 0 ? seconds : 1) * 1000);
    }
    if (answer.status === 401 || answer.status === 403) return new ProviderError(this.name, "auth", message);
    if (answer.status === 404) return new ProviderError(this.name, "not_found", message);
    if (answer.status === 409 && code === "no_capacity") return new ProviderError(this.name, "no_capacity", message);
    // The machine's cmd is not in the sim's command language, a volume it mounts is gone or
    // elsewhere, a volume still mounted: no retry changes that. Its words say where.
    if ((answer.status === 400 && (code === "invalid_cmd" || code === "invalid_volume" || code === "invalid_region")) || (answer.status === 409 && code === "volume_in_use")) {
      const words = (answer.body as { error?: { message?: unknown } } | null)?.error?.message;
      return new ProviderError(this.name, "refused", typeof words === "string" ? `${message}: ${words}` : message);
    }
    return new ProviderError(this.name, "unavailable", message);
  }
}

function machinePath(id: string): string {
  return `/v1/machines/${encodeURIComponent(id)}`;
}

/** A volume as the sim answers it (cloud.ts `#createVolume`). */
interface SimVolumeJson {
  id: string;
  label: string;
  region: string;
  size_gb: number;
  price_per_gb_month: number;
  created_at: number;
}

function isVolumeJson(body: unknown): body is SimVolumeJson {
  return typeof body === "object" && body !== null && typeof (body as SimVolumeJson).id === "string" && typeof (body as SimVolumeJson).region === "string";
}

function volumeOf(v: SimVolumeJson): Volume {
  return { id: v.id, label: v.label, region: v.region, size_gb: v.size_gb, usd_per_gb_month: v.price_per_gb_month, created_at: v.created_at };
}

function isMachineJson(body: unknown): body is SimMachineJson {
  return typeof body === "object" && body !== null && typeof (body as SimMachineJson).id === "string" && typeof (body as SimMachineJson).status === "string";
}

/**
 * The sim's own controls, for tests and benchmarks: faults, the ledger (every machine's life) and
 * the billing records. Not part of the provider contract; lessor's core never calls it.
 */
export function simAdmin(env: Env) {
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const init: RequestInit = { method, headers: { "content-type": "application/json" } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const res = await simStub(env).fetch(`${SIM_ORIGIN}${path}`, init);
    const text = await res.text();
    if (!res.ok) throw new Error(`sim admin: ${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  }
  return {
    getFaults: () => call<SimFaults>("GET", "/v1/faults"),
    /** Merges `patch` into the faults in force; a `seed` restarts the PRNG. */
    setFaults: (patch: Partial<SimFaults>) => call<SimFaults>("PUT", "/v1/faults", patch),
    /** Forgets every machine and restores the default faults (not the market's config). */
    reset: () => call<{ ok: true }>("POST", "/v1/reset"),
    /** What a person does in a provider's console (start, stop or destroy a machine behind lessor's back), or the cloud taking a spot machine back (preempt). */
    /** 404: no such machine; 409: not in a status the action applies to (`status` says which). */
    operate: async (machineId: string, action: "start" | "stop" | "destroy" | "preempt") => {
      const res = await simStub(env).fetch(`${SIM_ORIGIN}/v1/operator/machines/${encodeURIComponent(machineId)}/${action}`, { method: "POST" });
      const body = (await res.json()) as SimMachineJson & { error?: { code: string; message: string; status?: SimStatus } };
      if (res.ok) return { ok: true as const, machine: body };
      return { ok: false as const, status: res.status, code: body.error?.code ?? "error", message: body.error?.message ?? "", machine_status: body.error?.status ?? null };
    },
    /**
     * A request to a port of a machine from the machine itself, without lessor in between (its
     * model server's key is not asked for); `path` begins with `/`. The sim's answer as it streams.
     */
    machinePort: (machineId: string, port: number, path: string, init: RequestInit) =>
      simStub(env).fetch(`${SIM_ORIGIN}/v1/operator/machines/${encodeURIComponent(machineId)}/ports/${port}${path}`, init) as unknown as Promise<Response>,
    getLedger: (labelPrefix = "") => call<SimLedger>("GET", `/v1/ledger?label_prefix=${encodeURIComponent(labelPrefix)}`),
    getBilling: (range: { from?: number; to?: number } = {}) => {
      const qs = new URLSearchParams();
      if (range.from !== undefined) qs.set("from", String(range.from));
      if (range.to !== undefined) qs.set("to", String(range.to));
      return call<{ now: number; complete_through: number; window_ms: number; records: SimBillingRecord[]; volume_records: SimVolumeBillingRecord[] }>("GET", `/v1/billing?${qs}`);
    },
  };
}

export type SimAdmin = ReturnType<typeof simAdmin>;

/**
 * The sim machine's port as an endpoint: `fetch` goes to the sim cloud's port route and answers its
 * Response as it streams; a port nothing listens on rejects with a TypeError, as a refused
 * connection does. Its url (`sim://{machine}:{port}`) is enough to make it again
 * (src/providers/endpoint.ts `endpointAt`).
 */
export function simPortEndpoint(env: Env, machineId: string, port: number): MachineEndpoint {
  return {
    url: `sim://${machineId}:${port}`,
    async fetch(path: string, init?: RequestInit): Promise<Response> {
      const res = (await simStub(env).fetch(`${SIM_ORIGIN}${machinePath(machineId)}/ports/${port}${path}`, init)) as unknown as Response;
      if (res.status === 502 && res.headers.get(SIM_PORT_CLOSED_HEADER) !== null) {
        await res.body?.cancel();
        throw new TypeError(`sim: connection refused: ${machineId}:${port}`);
      }
      return res;
    },
  };
}
