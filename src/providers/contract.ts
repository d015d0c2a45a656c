/**
 * The one contract every provider adapter implements. The core branches on `capabilities`, never
 * on a provider's name (docs/design.md "Shape").
 *
 * Rules every adapter keeps:
 * - A create's errors never carry the lease's secrets (agent-start.ts withSecretsRedacted).
 * - A create is never retried inside the adapter. When its outcome is unknown (timeout, 5xx,
 *   dropped connection) it throws `ambiguous`, and the lease reconciles by label (guarantee 2).
 * - A create the provider refused outright is classified from the provider's documented codes
 *   first: `no_capacity` (another offer may do), `insufficient_funds`, `auth`, or `refused` (a
 *   final no that retrying cannot change). Free text never turns an unrelated refusal into
 *   `no_capacity`.
 * - Reads (get, list) may be retried with bounded, jittered backoff.
 * - Destroying a machine that is already gone is success.
 * - State is read back from the provider, never assumed from a call's success.
 */
import type { Offer } from "../catalog/offer";
import type { AgentAccess } from "./agent-start";

export interface ProviderCapabilities {
  stop: boolean;
  start: boolean;
  list_by_label: boolean;
  billing_records: boolean;
  webhooks: boolean;
  /** Whether a stopped machine stops billing entirely (false: disk keeps billing). */
  stop_ends_billing: boolean;
  spot: boolean;
  /**
   * Whether a machine can be given an environment and a start command, and so run lessor's agent
   * (src/providers/agent-start.ts). A lease with a `cmd` is never placed where it is false.
   */
  run_agent: boolean;
  /**
   * Whether the provider sells storage that outlives a machine (a volume), which a machine mounts
   * at create (docs/volumes.md). The adapter then implements the volume methods below.
   */
  volumes: boolean;
}

export type CapabilityName = keyof ProviderCapabilities;
/** The capabilities in the order they are answered (GET /v1/providers). */
const CAPABILITY_NAMES = [
  "stop",
  "start",
  "list_by_label",
  "billing_records",
  "webhooks",
  "stop_ends_billing",
  "spot",
  "run_agent",
  "volumes",
] as const satisfies readonly CapabilityName[];
// Every capability is in the list: a new one left out fails to compile here.
const _everyCapabilityListed: Exclude<CapabilityName, (typeof CAPABILITY_NAMES)[number]> extends never ? true : never = true;
void _everyCapabilityListed;

/**
 * A provider's capabilities, every one declared: the ones it has, and for each it lacks, why
 * (the type makes the two lists cover every capability, so a new one cannot be left undecided).
 * The reasons are for the reader; what is declared is what the adapter implements.
 */
export function declareCapabilities<Has extends CapabilityName>(
  has: readonly Has[],
  lacks: Record<Exclude<CapabilityName, Has>, string>,
): Readonly<ProviderCapabilities> {
  const held = new Set<CapabilityName>(has);
  return Object.freeze(Object.fromEntries(CAPABILITY_NAMES.map((name) => [name, held.has(name)])) as unknown as ProviderCapabilities);
}

/** A machine's state, normalized from the provider's own words. */
export const MACHINE_STATUSES = ["provisioning", "starting", "running", "stopped", "terminated", "error"] as const;
export type MachineStatus = (typeof MACHINE_STATUSES)[number];

/** One provider machine as the provider reports it now. */
export interface Machine {
  /** The provider's id for the machine. */
  id: string;
  /** The deterministic label lessor gave it at create (see src/lease/label.ts). */
  label: string;
  status: MachineStatus;
  offer_id: string;
  host_id: string;
  region: string;
  /** What the machine bills per hour while it runs. */
  hourly_usd: number;
  /** What it bills per hour while stopped (disk); 0 where stopping ends billing. */
  stopped_hourly_usd: number;
  created_at: number;
  /**
   * The provider took the machine back (a spot or bid machine interrupted: outbid, reclaimed),
   * whatever its status says: it will not run the lease's work again by itself (the contract's
   * outcome `preempted`; each adapter says how its provider shows it, docs/providers.md "Spot").
   * Absent: not preempted.
   */
  preempted?: boolean;
}

export interface CreateMachineInput {
  /** Deterministic: the lease and attempt it belongs to. Listing by it finds the machine. */
  label: string;
  /** The provider's own offer id (Offer.provider_offer_id). */
  offer_id: string;
  image?: string;
  /** The lease's command: run by the agent when `agent` is given (as LESSOR_CMD), else by `sh -c`. */
  cmd?: string;
  /** The lease's own environment variables (names as a shell writes them; lessor's own win). */
  env?: Record<string, string>;
  /** Start lessor's agent on the machine (agent-start.ts); `enroll_token` is a secret no error may carry. */
  agent?: AgentAccess;
  /**
   * TCP ports the machine serves to the outside (a deployment's model server on MODEL_PORT). An
   * adapter exposes each the way its provider does (a proxy, a mapped host port, an open address)
   * and answers it from `endpoint`.
   */
  ports?: number[];
  /** Volumes to mount (the provider's volume ids), each at a path; only where `capabilities.volumes`. */
  volumes?: VolumeMount[];
  /**
   * A spot offer (`Offer.spot`) is rented as an interruptible machine at most at this price, $/h:
   * the offer's own price, which the lease's reservation holds. Where a provider takes a bid (Vast),
   * it is the bid. Absent: on-demand.
   */
  bid_usd?: number;
}

/** One volume a machine mounts: the provider's id for it, and where the machine sees it. */
export interface VolumeMount {
  id: string;
  path: string;
}

/** One volume as the provider reports it now. */
export interface Volume {
  /** The provider's id for the volume. */
  id: string;
  /** The deterministic label lessor gave it at create (src/lease/label.ts `volumeLabel`). */
  label: string;
  /** Where it lives: a machine elsewhere cannot mount it. */
  region: string;
  size_gb: number;
  /** What it bills per GB a month, whether or not a machine mounts it; null where the provider states no price. */
  usd_per_gb_month: number | null;
  /** When it was made; null where the provider does not say. */
  created_at: number | null;
}

export interface CreateVolumeInput {
  /** Deterministic: listing by it finds the volume after an unknown outcome. */
  label: string;
  size_gb: number;
  region: string;
}

/** The port a deployment's model server listens on, on every provider. */
export const MODEL_PORT = 8000;

/** How lessor reaches one port a running machine serves (Provider.endpoint). */
export interface MachineEndpoint {
  /** The URL a client outside would use, without a trailing slash (for the record; never an API answer). */
  url: string;
  /** Sends one request to the port; `path` begins with "/". Network failures reject, as `fetch` does. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

export interface Provider {
  readonly name: string;
  readonly capabilities: ProviderCapabilities;
  /**
   * One read-only call that proves the credentials work (and, where the provider needs more than
   * a key, that the settings name something real). Throws ProviderError: `auth` when refused.
   */
  verify(): Promise<void>;
  /** Every offer the provider has now, normalized; unclassifiable GPUs are left out and counted. */
  listOffers(): Promise<OfferListing>;
  /**
   * Never retried; throws `ambiguous` when the outcome is unknown, `no_capacity` when refused for
   * want of machines, `refused` when refused for a reason no retry fixes.
   */
  createMachine(input: CreateMachineInput): Promise<Machine>;
  /** null when the provider no longer knows the machine (or reports it terminated). */
  getMachine(id: string): Promise<Machine | null>;
  /** Every machine whose label starts with `prefix`, terminated ones left out. */
  listMachines(prefix: string): Promise<Machine[]>;
  stopMachine(id: string): Promise<void>;
  startMachine(id: string): Promise<void>;
  /** Success when the machine is already gone. */
  destroyMachine(id: string): Promise<void>;
  /**
   * The provider's own billing records for closed windows overlapping [from, to).
   * Called only where `capabilities.billing_records` is true and the adapter implements it.
   * `to` is the caller's clock: an adapter whose provider gives no completeness marker (RunPod,
   * Vast) measures its lag back from it, and reports only windows final by then.
   */
  listBillingRecords?(window: { from: number; to: number }): Promise<BillingListing>;
  /**
   * A new volume (where `capabilities.volumes`). Never retried; `ambiguous` when the outcome is
   * unknown (the caller lists by label), `refused` when the provider said no for good.
   */
  createVolume?(input: CreateVolumeInput): Promise<Volume>;
  /**
   * What a new volume in `region` bills per GB a month, as the provider's document states it, before
   * it is made (the budget reserves it from the creation; docs/volumes.md); null where the document
   * states no price, never a guess (where `capabilities.volumes`).
   */
  volumePrice?(region: string): number | null;
  /** Every volume whose label starts with `prefix` (where `capabilities.volumes`). */
  listVolumes?(prefix: string): Promise<Volume[]>;
  /**
   * Deletes the volume and its data (where `capabilities.volumes`); success when it is already
   * gone. One a machine still mounts is `refused` and nothing is deleted.
   */
  deleteVolume?(id: string): Promise<void>;
  /**
   * Told that a command (an exec, a signal) waits for this machine's agent. A real machine's agent
   * long-polls for commands and needs nothing; the sim, which plays every machine's agent in
   * rounds, takes the command at once instead of at the machine's next heartbeat.
   */
  commandQueued?(machineId: string): Promise<void>;
  /**
   * How to reach `port` on `machine` (created with it in `ports`), or null while the provider
   * publishes no way there yet (no address, the port not yet mapped). A real provider's endpoint is
   * a public URL fetched over the network; the sim's reaches its machine inside the Worker.
   */
  endpoint?(machine: Machine, port: number): Promise<MachineEndpoint | null>;
}

/** One provider-authoritative charge: what one machine cost in one closed billing window. */
export interface BillingRecord {
  /** The provider's identity for the record (or one built from its own fields): the same record answers the same id every time. */
  record_id: string;
  machine_id: string;
  window_start: number;
  window_end: number;
  amount_usd: number;
  /** The parts of the amount as the provider states them (seconds, per-part amounts). */
  components: Record<string, number>;
  /**
   * What the record bills: a machine (the default; `machine_id` is the machine's id) or a volume's
   * storage (`machine_id` is then the provider's id of the volume), attributed to its volume.
   */
  resource?: "machine" | "volume";
}

export interface BillingListing {
  records: BillingRecord[];
  /**
   * Every record of every window that ends at or before this time is published and final: the
   * provider's word, or (where it gives none) the adapter's documented lag behind the clock. A
   * lease settles only when its last window ends by then (guarantee 7).
   */
  complete_through: number;
}

export interface OfferListing {
  offers: Offer[];
  /** Offers left out because their GPU matched no class (never guessed). */
  unclassified: number;
}

/** Normalized provider failure kinds (docs/design.md "Shape"). */
export type ProviderErrorKind =
  | "auth"
  | "rate_limited"
  | "unavailable"
  | "no_capacity"
  | "insufficient_funds"
  | "not_found"
  | "ambiguous"
  /**
   * A final refusal (a create the provider answered "no" to for a reason retrying cannot fix: a
   * parameter it rejects, a resource that does not exist). Nothing was made. The message is the
   * provider's own words: keys travel only in headers, and a create's words, which may echo its
   * body (the machine's enrollment token and the lease's variables), are redacted (agent-start.ts withSecretsRedacted).
   */
  | "refused";

export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    readonly kind: ProviderErrorKind,
    message: string,
    /** For `rate_limited`: how long to wait before the next call. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}

/**
 * The normalized status for a provider's own word (`what` names the machine in its words, "pod
 * abc"). A word the adapter's table does not hold is `unavailable`: a state is never guessed.
 */
export function normalizedStatus(provider: string, table: Readonly<Record<string, MachineStatus>>, word: string, what: string): MachineStatus {
  const status = Object.hasOwn(table, word) ? table[word] : undefined;
  if (!status) throw new ProviderError(provider, "unavailable", `${provider}: ${what} has unknown status ${word}`);
  return status;
}

/**
 * A stop or start the provider did not plainly carry out, settled by reading the machine back
 * (state is read, never assumed): already in a `wanted` status is success, gone is `not_found`,
 * anything else `unavailable`. `action` and `noun` are the provider's words ("stop abc", "pod").
 */
export async function readBackAction(
  provider: Pick<Provider, "name" | "getMachine">,
  id: string,
  action: string,
  noun: string,
  wanted: readonly MachineStatus[],
): Promise<void> {
  const machine = await provider.getMachine(id);
  if (machine === null) throw new ProviderError(provider.name, "not_found", `${provider.name}: cannot ${action}: ${noun} is gone`);
  if (wanted.includes(machine.status)) return;
  throw new ProviderError(provider.name, "unavailable", `${provider.name}: cannot ${action}: ${noun} is ${machine.status}`);
}
