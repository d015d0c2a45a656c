/**
 * `sim`: a simulated GPU cloud that runs inside the Worker as one Durable Object. It is spoken to
 * over HTTP-shaped requests, exactly as an adapter speaks to a real provider, so the adapter and
 * the core cannot tell it from one. It serves a market (offers.ts), rents machines whose status
 * follows the clock (machines.ts), bills them per closed hour, and breaks on purpose (faults.ts).
 *
 * The sim is the cloud, so it reads the clock itself (`Date.now()`); the rules it applies are the
 * pure functions of machines.ts, which take `now` as an argument. A machine's status is computed
 * lazily from its stored clock whenever it is observed, and each transition is stored with the
 * time it really happened, so the ledger is exact however rarely anyone looks.
 *
 * Routes (JSON; errors as `{"error": {"code", "message"}}`):
 *   GET /v1/offers                  the market, each offer with `startup_s` from the current delays
 *   GET|PUT /v1/config              {offers, seed}: the market's size and seed
 *   GET|PUT /v1/faults              fault rates, delays and the PRNG seed (faults.ts)
 *   POST /v1/reset                  forget every machine and reset the faults
 *   POST /v1/machines               {label, offer_id, image?, cmd?, env?, ports?, volumes?} -> 201 machine; a `cmd` that is not
 *                                   in the sim's command language (script.ts) -> 400 invalid_cmd;
 *                                   a volume gone or in another region than the offer -> 400 invalid_volume
 *   * /v1/machines/:id/ports/:port/...
 *                                   a request to a port the machine serves: its model server on
 *                                   8000 (model-server.ts, docs/sim.md "The model server"); 502
 *                                   `port_closed` while nothing listens there
 *   * /v1/operator/machines/:id/ports/:port/...
 *                                   the same, from the machine itself (its model server's key is
 *                                   not asked for): the model server reached without lessor
 *   GET /v1/machines?label_prefix=  {machines}: every machine not TERMINATED whose label starts so
 *   GET /v1/machines/:id            a machine, TERMINATED ones included
 *   POST /v1/machines/:id/stop      RUNNING -> EXITED; 409 otherwise
 *   POST /v1/machines/:id/start     EXITED -> STARTING -> RUNNING (or ERROR); 409 otherwise
 *   DELETE /v1/machines/:id         -> TERMINATED; idempotent
 *   POST /v1/operator/machines/:id/{start,stop,destroy}
 *                                   what a person does in a provider's console, behind lessor's
 *                                   back: the same transitions, never refused by injected faults
 *   POST /v1/volumes                {label, size_gb, region} -> 201 volume (docs/sim.md "Volumes")
 *   GET /v1/volumes?label_prefix=   {volumes}: every volume not deleted whose label starts so
 *   DELETE /v1/volumes/:id          deleted with its files; 409 volume_in_use while a machine not
 *                                   TERMINATED mounts it; a deleted or unknown one is 404
 *   GET /v1/ledger?label_prefix=    every machine's life, interval by interval
 *   GET /v1/billing?from=&to=       {now, complete_through, window_ms, records, volume_records}: hourly
 *                                   records of machines and of volumes' storage for closed, published
 *                                   windows (window length, publishing delay and markup are settings
 *                                   of PUT /v1/faults)
 *
 * A machine created with lessor's agent environment (LESSOR_LEASE_ID, LESSOR_ENROLL_TOKEN) has the
 * sim as its agent: the object's alarm runs the machine's `cmd` in the command language and reports
 * it to the lease exactly as agent.sh would (agent.ts, docs/sim.md "The agent").
 * Faults apply to the machine routes only; the market, config, faults, ledger and billing always
 * answer, so a test can read the truth while the API misbehaves.
 */
import { meteredEnv } from "../../metering";
import { DurableObject } from "cloudflare:workers";
import { intSetting, type Env } from "../../env";
import { errorText } from "../../errors";
import { ENV_NAME } from "../agent-start";
import { mergeFaults, SIM_DEFAULT_FAULTS, type SimFaults } from "./faults";
import {
  advance,
  applyTransitions,
  created,
  destroy,
  diskPrice,
  billingCompleteThrough,
  hourlyBilling,
  SIM_VOLUME_USD_PER_GB_MONTH,
  volumeBilling,
  preempt,
  SIM_STATUSES,
  start,
  stop,
  type Advanced,
  type SimInterval,
  type SimLedger,
  type SimLedgerMachine,
  type SimRefusal,
  type SimMachineClock,
  type SimMachineJson,
  type SimStatus,
  type SimTransition,
} from "./machines";
import { nextRandom } from "../../random";
import { randomBase62 } from "../../ids";
import { simSigningSecret } from "../../ingress/sim-key";
import { signedHeaders } from "../../webhooks/secrets";
import { afterAttempt, SIM_WEBHOOK_BATCH, simWebhookBody, simWebhookTarget } from "./webhooks";
import { generateSimOffers, simStartupS, type SimOffer } from "./offers";
import { parseScript, runScript, scriptErrorText, servingAt, type DeliveredSignal, type ScriptFiles, type ScriptProgram, type ScriptRun, type ScriptSave, type ScriptWrite } from "./script";
import { SIM_WORKDIR_FAILED_CODE, SIM_WORKDIR_LIMITS, SIM_WORKDIR_TRIES, simFileBytes } from "./files";
import { readTar, TarError, type TarFile } from "./tar";
import { PART_SIZE, partSize } from "../../artifacts/limits";
import { holdsWorkdir } from "../../artifacts/store";
import { publicUrl } from "../../config";
import {
  bearerMatches,
  completionBody,
  generate,
  METRICS_CONTENT_TYPE,
  MODEL_MAX_BODY_BYTES,
  modelError,
  modelsList,
  metricsText,
  parseModelRequest,
  streamEvents,
  tokenReadyAt,
  SIM_PORT_CLOSED_HEADER,
  type ModelError,
  type ModelRequestKind,
} from "./model-server";
import { MODEL_PORT } from "../contract";
import { agentDueAt, chunkBytes, chunkEnd, execResult, heartbeatDue, parseSignals, runLines, SIM_AGENT_TICK_MS } from "./agent";
import type { AgentAnswer, AgentCall } from "../../occupant/occupant";

export const SIM_DEFAULT_OFFERS = 400;
export const SIM_MAX_OFFERS = 200_000;
const MAX_LABEL = 256;
const MAX_TEXT = 4096;
/** As long as a lease's `cmd` may be (functions/v1/leases.ts), so the sim refuses none for its length. */
const MAX_CMD = 8192;
const MAX_ENV_JSON = 65_536;

interface SimConfig {
  offers: number;
  seed: number;
}

const STATUS_CHECK = SIM_STATUSES.map((s) => `'${s}'`).join(", ");
const ALIVE_STATUS_CHECK = SIM_STATUSES.filter((s) => s !== "TERMINATED")
  .map((s) => `'${s}'`)
  .join(", ");
const RATE_COLUMNS = [
  "api_error_rate",
  "rate_limit_rate",
  "ambiguous_create_rate",
  "boot_failure_rate",
  "vanish_rate",
  "no_capacity_rate",
] as const;
const INT_COLUMNS = ["provision_delay_ms", "boot_delay_ms", "retry_after_s", "vanish_min_ms", "vanish_max_ms", "seed"] as const;
/** Added by the second schema version: how the sim bills (faults.ts). */
const BILLING_COLUMNS = ["billing_window_ms", "billing_delay_ms", "billing_markup"] as const;
/** Added by the fourth schema version: how often a machine's agent heartbeats. */
const AGENT_COLUMNS = ["agent_heartbeat_ms"] as const;
/** The `Server` header of every answer of the model server, as uvicorn (which serves vLLM's API) sends it. */
export const MODEL_SERVER_HEADER = "uvicorn";

/** Added by the sixth schema version: how fast a machine's model server produces tokens. */
const MODEL_COLUMNS = ["model_tokens_per_s"] as const;
/** Added by the eleventh schema version: how often a spot machine is taken back (docs/sim.md "Spot"). */
const SPOT_COLUMNS = ["preempt_rate"] as const;
/** Every setting the faults row holds, in column order. */
const FAULT_COLUMNS = [...RATE_COLUMNS, ...INT_COLUMNS, ...BILLING_COLUMNS, ...AGENT_COLUMNS, ...MODEL_COLUMNS, ...SPOT_COLUMNS] as const;
/** A create names at most this many ports. */
const MAX_PORTS = 16;

/**
 * The object's SQLite schema, one entry per version; `sim_meta.schema_version` says how many have
 * been applied. Only append: a deployed object applies what it has not yet.
 */
const MIGRATIONS: readonly (readonly string[])[] = [
  [
    `CREATE TABLE machines (
      id TEXT PRIMARY KEY,
      label TEXT NOT NULL,
      offer_id TEXT NOT NULL,
      host_id TEXT NOT NULL,
      region TEXT NOT NULL,
      gpu_name TEXT NOT NULL,
      num_gpus INTEGER NOT NULL CHECK (num_gpus >= 0),
      price_per_hour REAL NOT NULL CHECK (price_per_hour >= 0),
      disk_price_per_hour REAL NOT NULL CHECK (disk_price_per_hour >= 0),
      image TEXT,
      cmd TEXT,
      created_at INTEGER NOT NULL,
      status TEXT NOT NULL CHECK (status IN (${STATUS_CHECK})),
      status_since INTEGER NOT NULL,
      provision_ms INTEGER NOT NULL CHECK (provision_ms >= 0),
      boot_ms INTEGER NOT NULL CHECK (boot_ms >= 0),
      boot_fails INTEGER NOT NULL CHECK (boot_fails IN (0, 1)),
      vanish_after_ms INTEGER CHECK (vanish_after_ms IS NULL OR vanish_after_ms >= 0),
      vanish_at INTEGER,
      destroyed_at INTEGER,
      vanished INTEGER NOT NULL DEFAULT 0 CHECK (vanished IN (0, 1)),
      CHECK ((status = 'TERMINATED') = (destroyed_at IS NOT NULL))
    )`,
    `CREATE INDEX machines_alive_label ON machines (label) WHERE status != 'TERMINATED'`,
    `CREATE TABLE machine_intervals (
      machine_id TEXT NOT NULL REFERENCES machines (id),
      seq INTEGER NOT NULL,
      status TEXT NOT NULL CHECK (status IN (${ALIVE_STATUS_CHECK})),
      from_ms INTEGER NOT NULL,
      to_ms INTEGER CHECK (to_ms IS NULL OR to_ms >= from_ms),
      PRIMARY KEY (machine_id, seq)
    )`,
    `CREATE TABLE faults (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      ${RATE_COLUMNS.map((c) => `${c} REAL NOT NULL CHECK (${c} >= 0 AND ${c} <= 1)`).join(",\n      ")},
      ${INT_COLUMNS.map((c) => `${c} INTEGER NOT NULL CHECK (${c} >= 0)`).join(",\n      ")},
      rng_state INTEGER NOT NULL,
      CHECK (vanish_min_ms <= vanish_max_ms)
    )`,
  ],
  [
    `ALTER TABLE faults ADD COLUMN billing_window_ms INTEGER NOT NULL DEFAULT 3600000 CHECK (billing_window_ms >= 100)`,
    `ALTER TABLE faults ADD COLUMN billing_delay_ms INTEGER NOT NULL DEFAULT 0 CHECK (billing_delay_ms >= 0)`,
    `ALTER TABLE faults ADD COLUMN billing_markup REAL NOT NULL DEFAULT 0 CHECK (billing_markup >= 0)`,
  ],
  [
    // The machine's environment (src/providers/agent-start.ts), a JSON object of strings; kept for
    // the machine to run with, never answered (it holds the machine's enrollment token).
    `ALTER TABLE machines ADD COLUMN env TEXT CHECK (env IS NULL OR json_type(env) = 'object')`,
  ],
  [
    // The sim as the machine's agent (agent.ts): the run of its `cmd` and what was reported of it.
    `ALTER TABLE faults ADD COLUMN agent_heartbeat_ms INTEGER NOT NULL DEFAULT 30000 CHECK (agent_heartbeat_ms >= 100)`,
    `ALTER TABLE machines ADD COLUMN run_started_at INTEGER`,
    `ALTER TABLE machines ADD COLUMN run_signals TEXT NOT NULL DEFAULT '[]' CHECK (json_type(run_signals) = 'array')`,
    `ALTER TABLE machines ADD COLUMN log_seq INTEGER NOT NULL DEFAULT 0 CHECK (log_seq >= 0)`,
    `ALTER TABLE machines ADD COLUMN log_shipped INTEGER NOT NULL DEFAULT 0 CHECK (log_shipped >= 0)`,
    `ALTER TABLE machines ADD COLUMN log_cut INTEGER CHECK (log_cut IS NULL OR log_cut > 0)`,
    `ALTER TABLE machines ADD COLUMN exit_reported INTEGER NOT NULL DEFAULT 0 CHECK (exit_reported IN (0, 1))`,
    `ALTER TABLE machines ADD COLUMN heartbeat_at INTEGER`,
    `ALTER TABLE machines ADD COLUMN agent_gone INTEGER NOT NULL DEFAULT 0 CHECK (agent_gone IN (0, 1))`,
    `CREATE TABLE machine_execs (
      machine_id TEXT NOT NULL REFERENCES machines (id),
      command_id TEXT NOT NULL,
      cmd TEXT NOT NULL,
      started_at INTEGER NOT NULL,
      killed_at INTEGER CHECK (killed_at IS NULL OR killed_at >= started_at),
      PRIMARY KEY (machine_id, command_id)
    )`,
  ],
  [
    // The sim's webhooks (webhooks.ts): each status change, until it is delivered or given up.
    `CREATE TABLE webhook_outbox (
      id TEXT PRIMARY KEY,
      machine_id TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN (${STATUS_CHECK})),
      at INTEGER NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
      next_at INTEGER NOT NULL
    )`,
    `CREATE INDEX webhook_outbox_due ON webhook_outbox (next_at)`,
  ],
  [
    // The model server (docs/sim.md "The model server"): the ports a machine serves, its run's
    // totals (zeroed when a run starts) and the token rate.
    `ALTER TABLE machines ADD COLUMN ports TEXT NOT NULL DEFAULT '[]' CHECK (json_type(ports) = 'array')`,
    `ALTER TABLE machines ADD COLUMN model_requests INTEGER NOT NULL DEFAULT 0 CHECK (model_requests >= 0)`,
    `ALTER TABLE machines ADD COLUMN model_prompt_tokens INTEGER NOT NULL DEFAULT 0 CHECK (model_prompt_tokens >= 0)`,
    `ALTER TABLE machines ADD COLUMN model_generation_tokens INTEGER NOT NULL DEFAULT 0 CHECK (model_generation_tokens >= 0)`,
    `ALTER TABLE faults ADD COLUMN model_tokens_per_s INTEGER NOT NULL DEFAULT 200 CHECK (model_tokens_per_s >= 1)`,
  ],
  [
    // Calls on a machine the sim refused with an injected 503 or 429 (#gate): the waits the cloud
    // imposed, which the ledger answers so that a judge can tell them from the caller's own delay.
    `CREATE TABLE machine_refusals (
      machine_id TEXT NOT NULL,
      at INTEGER NOT NULL,
      status INTEGER NOT NULL CHECK (status IN (429, 503)),
      retry_after_ms INTEGER CHECK (retry_after_ms IS NULL OR retry_after_ms >= 0)
    )`,
    `CREATE INDEX machine_refusals_machine ON machine_refusals (machine_id, at)`,
  ],
  [
    // The agent's enrollment (docs/sim.md "The agent"): the lease token its run got for the
    // enrollment token in `env`, and the nonce it enrolls with, kept as agent.sh keeps its file.
    `ALTER TABLE machines ADD COLUMN agent_token TEXT`,
    `ALTER TABLE machines ADD COLUMN agent_nonce TEXT`,
  ],
  [
    // Data in and out (docs/sim.md "Data in and out"). `workdir`: NULL nothing to fetch, 'pending'
    // the run waits for its bundle, 'ready' unpacked, 'failed' (workdir_error says why) the run
    // failed without starting. `outputs`: NULL not begun, 'sent' the manifest is lessor's, 'done'.
    `ALTER TABLE machines ADD COLUMN workdir TEXT CHECK (workdir IN ('pending', 'ready', 'failed'))`,
    `ALTER TABLE machines ADD COLUMN workdir_tries INTEGER NOT NULL DEFAULT 0`,
    `ALTER TABLE machines ADD COLUMN workdir_error TEXT`,
    `ALTER TABLE machines ADD COLUMN outputs TEXT CHECK (outputs IN ('sent', 'done'))`,
    // The run's workdir, one row a file (files.ts SIM_WORKDIR_LIMITS keeps a row under SQLite's 2 MB).
    `CREATE TABLE machine_files (
      machine_id TEXT NOT NULL,
      path TEXT NOT NULL,
      data BLOB NOT NULL,
      PRIMARY KEY (machine_id, path)
    )`,
    // The run's outputs as its manifest named them, and how far each upload went.
    `CREATE TABLE machine_outputs (
      machine_id TEXT NOT NULL,
      path TEXT NOT NULL,
      size INTEGER NOT NULL CHECK (size >= 0),
      seed TEXT NOT NULL,
      sha256 TEXT NOT NULL,
      upload_id TEXT,
      state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'stored', 'refused')),
      PRIMARY KEY (machine_id, path)
    )`,
  ],
  [
    // Volumes (docs/sim.md "Volumes"): storage bound to a region that outlives the machines that
    // mount it, the files written to it, and what each machine mounts where.
    `CREATE TABLE volumes (
      id TEXT PRIMARY KEY,
      label TEXT NOT NULL,
      region TEXT NOT NULL,
      size_gb INTEGER NOT NULL CHECK (size_gb >= 1),
      price_per_gb_month REAL NOT NULL CHECK (price_per_gb_month >= 0),
      created_at INTEGER NOT NULL,
      deleted_at INTEGER
    )`,
    `CREATE TABLE volume_writes (
      volume_id TEXT NOT NULL REFERENCES volumes (id),
      run TEXT NOT NULL,
      seq INTEGER NOT NULL CHECK (seq >= 0),
      path TEXT NOT NULL,
      data TEXT NOT NULL,
      at INTEGER NOT NULL,
      PRIMARY KEY (volume_id, run, seq)
    )`,
    `ALTER TABLE machines ADD COLUMN volumes TEXT NOT NULL DEFAULT '[]' CHECK (json_type(volumes) = 'array')`,
  ],
  [
    // Spot (docs/sim.md "Spot"): a machine of an interruptible offer may be taken back by the
    // cloud (the operator's `preempt`, or the `preempt_rate` fault): EXITED and `interrupted`.
    `ALTER TABLE machines ADD COLUMN interruptible INTEGER NOT NULL DEFAULT 0 CHECK (interruptible IN (0, 1))`,
    `ALTER TABLE machines ADD COLUMN interrupted INTEGER NOT NULL DEFAULT 0 CHECK (interrupted IN (0, 1))`,
    `ALTER TABLE machines ADD COLUMN preempt_after_ms INTEGER CHECK (preempt_after_ms IS NULL OR preempt_after_ms >= 0)`,
    `ALTER TABLE machines ADD COLUMN preempt_at INTEGER`,
    `ALTER TABLE faults ADD COLUMN preempt_rate REAL NOT NULL DEFAULT 0 CHECK (preempt_rate >= 0 AND preempt_rate <= 1)`,
  ],
];

/** A machine mounts at most this many volumes; a volume holds at most this many GB. */
const MAX_MOUNTS = 8;
const MAX_VOLUME_GB = 100_000;

/** A `volumes` row as the API answers it. */
type VolumeRow = { id: string; label: string; region: string; size_gb: number; price_per_gb_month: number; created_at: number; deleted_at: number | null };
/** One mount of a machine: a volume at a path. */
type MountJson = { id: string; path: string };

/** A `machines` row: the machine as the API answers it (machines.ts), and its clock. */
type MachineRow = { [K in Exclude<keyof SimMachineJson, "interrupted">]: SimMachineJson[K] } & {
  provision_ms: number;
  boot_ms: number;
  boot_fails: number;
  vanish_after_ms: number | null;
  vanish_at: number | null;
  vanished: number;
  env: string | null;
  run_started_at: number | null;
  run_signals: string;
  log_seq: number;
  log_shipped: number;
  log_cut: number | null;
  exit_reported: number;
  heartbeat_at: number | null;
  agent_gone: number;
  ports: string;
  model_requests: number;
  model_prompt_tokens: number;
  model_generation_tokens: number;
  agent_token: string | null;
  agent_nonce: string | null;
  workdir: "pending" | "ready" | "failed" | null;
  workdir_tries: number;
  workdir_error: string | null;
  outputs: "sent" | "done" | null;
  volumes: string;
  interruptible: number;
  interrupted: number;
  preempt_after_ms: number | null;
  preempt_at: number | null;
};

type OutputRow = { machine_id: string; path: string; size: number; seed: string; sha256: string; upload_id: string | null; state: "pending" | "stored" | "refused" };

type OutboxRow = { id: string; machine_id: string; status: SimStatus; at: number; attempts: number; next_at: number };

type ExecRow = { machine_id: string; command_id: string; cmd: string; started_at: number; killed_at: number | null };

/**
 * A machine's lease and enrollment token, from its environment (agent-start.ts), or the lease
 * token itself in a machine created before enrollments, which agent.sh too uses as it is; null: it
 * runs without lessor's agent.
 */
function agentOf(row: Pick<MachineRow, "env">): { lease_id: string; enroll_token: string | null; lease_token: string | null } | null {
  if (row.env === null) return null;
  const env = JSON.parse(row.env) as Record<string, string>;
  const leaseId = env.LESSOR_LEASE_ID;
  const [enrollToken, leaseToken] = [env.LESSOR_ENROLL_TOKEN || null, env.LESSOR_LEASE_TOKEN || null];
  return leaseId && (enrollToken || leaseToken) ? { lease_id: leaseId, enroll_token: enrollToken, lease_token: leaseToken } : null;
}

/** The key a machine's model server requires (its env's LESSOR_MODEL_KEY), or null: it answers anyone. */
function modelKeyOf(row: Pick<MachineRow, "env">): string | null {
  if (row.env === null) return null;
  return (JSON.parse(row.env) as Record<string, string>).LESSOR_MODEL_KEY || null;
}

/** One run of one machine: a machine started again serves a new run, counted from 0. */
function runKey(row: Pick<MachineRow, "id" | "run_started_at">): string {
  return `${row.id}@${row.run_started_at}`;
}

/** `/v1/machines/:id/ports/:port[/path]`: a request to a port the machine serves. */
const PORT_ROUTE = /^\/v1\/(operator\/)?machines\/([^/]+)\/ports\/(\d{1,5})(\/.*)?$/;
/** The model server's routes, for telling a wrong method (405) from a wrong path (404). */
const MODEL_PATHS = ["/v1/models", "/metrics", "/v1/chat/completions", "/v1/completions"];

/** Nothing listens on the port: what the adapter turns into a refused connection. */
function portClosed(id: string, port: number): SimHttpError {
  return new SimHttpError(502, "port_closed", `sim: nothing listens on ${id}:${port}`, { [SIM_PORT_CLOSED_HEADER]: "1" });
}

/** The lease answered 410: it is released, and the agent stops acting for its machine. */
class LeaseGone extends Error {}

/** What agent.sh's `api` takes as a refusal for good (it says so and goes on); any other failure is tried again. */
const REFUSED_FOR_GOOD = new Set([400, 404, 409, 413, 415, 416, 422]);

/** A path under the agent routes: each segment URL-encoded, the slashes kept (as agent.sh's urlencode). */
const artifactUrlPath = (path: string) => `/v1/agent/artifacts/${path.split("/").map(encodeURIComponent).join("/")}`;

/** The SHA-256 of `bytes`, in hex. */
async function sha256Hex(bytes: Uint8Array | ArrayBuffer): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The SHA-256 of a `write`'s whole file, made and hashed a MiB at a time. */
async function writeDigest(w: Pick<ScriptWrite, "seed" | "size">): Promise<string> {
  const digest = new crypto.DigestStream("SHA-256");
  const writer = digest.getWriter();
  for (let at = 0; at < w.size; at += 1024 * 1024) await writer.write(simFileBytes(w.seed, at, Math.min(1024 * 1024, w.size - at)));
  await writer.close();
  return [...new Uint8Array(await digest.digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The run of a machine whose workdir could not be had: agent.sh's `die`, said where its output goes. */
function failedRun(message: string, at: number): ScriptRun {
  return { output: [{ at, text: `lessor-agent: ${message}` }], writes: [], saves: [], truncated: false, end: { code: SIM_WORKDIR_FAILED_CODE, signal: null, at } };
}

type IntervalRow = { machine_id: string; seq: number; status: SimInterval["status"]; from_ms: number; to_ms: number | null };

/** An answer the sim gives instead of the one asked for. */
class SimHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
    /** Extra fields of the error object, e.g. a 409's current `status`. */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** When a booting machine's boot ends (NULL: it is not booting). */
const BOOT_ENDS_AT = `CASE status WHEN 'PROVISIONING' THEN status_since + provision_ms WHEN 'STARTING' THEN status_since + boot_ms END`;
/** When a running or booting spot machine is taken back by the fault (NULL: never). */
const TAKE_BACK_AT = `CASE WHEN status IN ('RUNNING', 'STARTING') THEN preempt_at END`;
/**
 * webhooks.ts `nextClockChangeAt` as SQL over a `machines` row: when time alone changes its status
 * next (its boot's end, its vanishing or its take-back, the soonest), NULL for never. A test holds
 * the two to the same answers. SQLite's MIN of values is NULL when one is: each COALESCE puts
 * another first, so every value that is not NULL is among the three, and only those.
 */
export const CLOCK_CHANGE_AT = `MIN(COALESCE(${BOOT_ENDS_AT}, vanish_at, ${TAKE_BACK_AT}), COALESCE(vanish_at, ${BOOT_ENDS_AT}, ${TAKE_BACK_AT}), COALESCE(${TAKE_BACK_AT}, ${BOOT_ENDS_AT}, vanish_at))`;

export class SimCloud extends DurableObject<Env> {
  #market: { key: string; offers: SimOffer[]; byId: Map<string, SimOffer> } | null = null;
  /**
   * When each target (a machine, a create's label, a listing's prefix) was told it may call again
   * by an injected 429. A call on that target at or after its time is not refused by the injected
   * rate limit again: a real limiter's Retry-After is a promise, and a caller that honours it gets
   * through. In memory only: an evicted sim forgets, which only makes it more lenient.
   */
  readonly #promised = new Map<string, number>();
  /** Machines whose lease has a command waiting (an exec, a signal): their agent asks for it in the next round. */
  readonly #commandsWaiting = new Set<string>();
  /** The failure each machine's agent last logged: a failure that repeats every round is logged once. */
  readonly #agentFailures = new Map<string, string>();
  /**
   * Model requests in flight, per run (runKey): `vllm:num_requests_running`. In memory, as the
   * streams themselves are: an object that restarts has dropped them.
   */
  readonly #inFlight = new Map<string, number>();

  constructor(ctx: DurableObjectState, env: Env) {
    // Its machines' agents call lease objects as a real agent calls the Worker: counted as such.
    super(ctx, meteredEnv(env, "agent"));
    void ctx.blockConcurrencyWhile(async () => this.#ensureSchema());
  }

  override async fetch(request: Request): Promise<Response> {
    const port = PORT_ROUTE.exec(new URL(request.url).pathname);
    if (port) {
      try {
        const answer = await this.#port(request, decodeURIComponent(port[2]!), Number(port[3]), port[4] || "/", { operator: port[1] !== undefined });
        // As vLLM's OpenAI server answers, under uvicorn: what the gateway must not pass on (src/deployments/gateway.ts `answeredHeaders`).
        answer.headers.set("server", MODEL_SERVER_HEADER);
        return answer;
      } catch (e) {
        if (e instanceof SimHttpError) return errorResponse(e);
        console.error("sim: model server: internal error", e);
        return json({ error: { code: "internal", message: "sim: internal error" } }, 500);
      } finally {
        // Reading the machine may have observed a transition, which webhooks have to tell.
        if (this.#takeChanged()) await this.#scheduleAgent(Date.now());
      }
    }
    try {
      return await this.#route(request);
    } catch (e) {
      if (e instanceof SimHttpError) return errorResponse(e);
      console.error("sim: internal error", e);
      return json({ error: { code: "internal", message: "sim: internal error" } }, 500);
    } finally {
      // A call that may have created, started or stopped a machine (or changed the heartbeat), and a
      // read that observed a transition (with webhooks on, it has one to send). Any other read
      // leaves the alarm where it is: rescheduling reads every live machine.
      if (this.#takeChanged() || request.method !== "GET") await this.#scheduleAgent(Date.now());
    }
  }

  /**
   * A command waits for a machine's agent (contract.ts `commandQueued`): the next round, at once,
   * asks for it, as a real agent's long poll would take it. In memory: a sim that forgets it falls
   * back to the machine's next heartbeat.
   */
  async commandQueued(machineId: string): Promise<void> {
    this.#commandsWaiting.add(machineId);
    await this.ctx.storage.setAlarm(Date.now());
  }

  /** The webhooks' and the agents' work (STYLE.md rule 7: rescheduled in `finally`, from the stored state). */
  override async alarm(): Promise<void> {
    try {
      await this.#sendWebhooks(Date.now());
      await this.#agentTick(Date.now());
    } finally {
      await this.#scheduleAgent(Date.now());
    }
  }

  async #route(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const route = `${request.method} ${url.pathname}`;
    switch (route) {
      case "GET /v1/offers": {
        // The market states how long its machines take to run: the boot model the faults set now.
        const startup_s = simStartupS(this.#faults());
        return json({ offers: this.#marketOf(await this.#config()).offers.map((o) => ({ ...o, startup_s })) });
      }
      case "GET /v1/config":
        return json(await this.#config());
      case "PUT /v1/config":
        return this.#putConfig(request);
      case "GET /v1/faults":
        return json(this.#faults());
      case "PUT /v1/faults":
        return this.#putFaults(request);
      case "POST /v1/reset":
        this.#reset();
        return json({ ok: true });
      case "GET /v1/ledger":
        return json(this.#ledger(url.searchParams.get("label_prefix") ?? "", Date.now()));
      case "GET /v1/billing":
        return this.#billing(url.searchParams, Date.now());
      case "POST /v1/machines":
        return this.#create(request);
      case "GET /v1/machines":
        this.#gate(`list:${url.searchParams.get("label_prefix") ?? ""}`);
        return json({ machines: this.#list(url.searchParams.get("label_prefix") ?? "", Date.now()) });
      case "POST /v1/volumes":
        return this.#createVolume(request);
      case "GET /v1/volumes": {
        const prefix = url.searchParams.get("label_prefix") ?? "";
        this.#gate(`volumes:${prefix}`);
        return json({ volumes: this.#volumes().filter((v) => v.label.startsWith(prefix)) });
      }
    }
    const vol = /^\/v1\/volumes\/([^/]+)$/.exec(url.pathname);
    if (vol && request.method === "DELETE") return this.#deleteVolume(decodeURIComponent(vol[1]!));
    const op = /^\/v1\/operator\/machines\/([^/]+)\/(stop|start|destroy|preempt)$/.exec(url.pathname);
    if (op && request.method === "POST") {
      const id = decodeURIComponent(op[1]!);
      const act = op[2] as "stop" | "start" | "destroy" | "preempt";
      return this.#machineRoute(
        id,
        (row, now) => {
          if (act === "stop") return stop(clockOf(row), now);
          if (act === "preempt") {
            if (row.interruptible !== 1) throw new SimHttpError(409, "not_interruptible", `machine ${id} is not of a spot (interruptible) offer`, {}, { status: row.status });
            return preempt(clockOf(row), true, now);
          }
          if (act === "destroy") return destroy(clockOf(row), now);
          const faults = this.#faults();
          return start(clockOf(row), now, faults.boot_delay_ms, false);
        },
        { gated: false },
      );
    }
    const m = /^\/v1\/machines\/([^/]+)(?:\/(stop|start))?$/.exec(url.pathname);
    if (m) {
      const id = decodeURIComponent(m[1]!);
      const action = m[2];
      if (request.method === "GET" && !action) return this.#machineRoute(id, (row, now) => advance(clockOf(row), now));
      if (request.method === "DELETE" && !action) return this.#machineRoute(id, (row, now) => destroy(clockOf(row), now));
      if (request.method === "POST" && action === "stop") return this.#machineRoute(id, (row, now) => stop(clockOf(row), now));
      if (request.method === "POST" && action === "start") {
        return this.#machineRoute(id, (row, now) => {
          const faults = this.#faults();
          return start(clockOf(row), now, faults.boot_delay_ms, this.#chance(faults.boot_failure_rate));
        });
      }
    }
    throw new SimHttpError(404, "not_found", `no route ${route}`);
  }

  // --- machines -------------------------------------------------------------------------------

  async #create(request: Request): Promise<Response> {
    const body = await readJson(request);
    const config = await this.#config();
    // Everything below is synchronous, so no other request interleaves with this create.
    const faults = this.#gate(`create:${String((body as { label?: unknown } | null)?.label ?? "")}`);
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw badRequest("body must be a JSON object");
    const { label, offer_id, image, cmd, env, ports, volumes } = body as Record<string, unknown>;
    if (typeof label !== "string" || label.length === 0 || label.length > MAX_LABEL) throw badRequest(`label must be a string of 1..${MAX_LABEL} characters`);
    if (typeof offer_id !== "string" || offer_id.length === 0) throw badRequest("offer_id must be a string");
    if (image !== undefined && image !== null && (typeof image !== "string" || image.length > MAX_TEXT)) throw badRequest(`image must be a string of at most ${MAX_TEXT} characters`);
    const envJson = env === undefined || env === null ? null : simEnvJson(env);
    // `$LESSOR_RESTART` in the command is the machine's (docs/sim.md "Spot"): replaced before it is checked and kept.
    const command = typeof cmd === "string" ? withRestartNumber(cmd, envJson) : cmd;
    if (command !== undefined && command !== null) checkCmd(command);
    const portsJson = ports === undefined || ports === null ? "[]" : simPortsJson(ports);
    const offer = this.#marketOf(config).byId.get(offer_id);
    if (!offer) throw new SimHttpError(404, "offer_not_found", `no offer ${offer_id}`);
    const volumesJson = volumes === undefined || volumes === null ? "[]" : this.#mountsJson(volumes, offer.region);
    if (this.#chance(faults.no_capacity_rate)) throw new SimHttpError(409, "no_capacity", `no capacity left for ${offer_id}`);

    const now = Date.now();
    const bootFails = this.#chance(faults.boot_failure_rate);
    const doomed = this.#chance(faults.vanish_rate);
    const vanishAfter = doomed ? Math.round(faults.vanish_min_ms + this.#rand() * (faults.vanish_max_ms - faults.vanish_min_ms)) : null;
    // A spot machine may be taken back, in the same window as a vanishing (drawn only for spot offers, so other seeds' faults stay as they were).
    const takenBack = offer.interruptible && this.#chance(faults.preempt_rate);
    const preemptAfter = takenBack ? Math.round(faults.vanish_min_ms + this.#rand() * (faults.vanish_max_ms - faults.vanish_min_ms)) : null;
    const clock = created(now, {
      provision_ms: faults.provision_delay_ms,
      boot_ms: faults.boot_delay_ms,
      boot_fails: bootFails,
      vanish_after_ms: vanishAfter,
      preempt_after_ms: preemptAfter,
    });
    const id = `sim-m-${randomHex(6)}`;
    const sql = this.ctx.storage.sql;
    const seen = advance(clock, now);
    this.ctx.storage.transactionSync(() => {
      sql.exec(
        `INSERT INTO machines (id, label, offer_id, host_id, region, gpu_name, num_gpus, price_per_hour, disk_price_per_hour,
           image, cmd, env, ports, volumes, created_at, status, status_since, provision_ms, boot_ms, boot_fails, vanish_after_ms, vanish_at, destroyed_at, vanished,
           interruptible, preempt_after_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'PROVISIONING', ?, ?, ?, ?, ?, NULL, NULL, 0, ?, ?)`,
        id,
        label,
        offer.offer_id,
        offer.host_id,
        offer.region,
        offer.gpu_name,
        offer.num_gpus,
        offer.price_per_hour,
        diskPrice(offer.price_per_hour),
        (image as string | undefined) ?? null,
        (command as string | undefined) ?? null,
        envJson,
        portsJson,
        volumesJson,
        now,
        now,
        clock.provision_ms,
        clock.boot_ms,
        clock.boot_fails ? 1 : 0,
        clock.vanish_after_ms,
        offer.interruptible ? 1 : 0,
        preemptAfter,
      );
      this.#persist(id, seen, [{ status: "PROVISIONING", at: now }]);
    });
    const machine = machineJson(this.#row(id)!);
    if (this.#chance(faults.ambiguous_create_rate)) {
      // The machine exists; the answer says nothing useful (guarantee 2 is what this exercises).
      const gateway = this.#rand() < 0.5 ? 502 : 504;
      throw new SimHttpError(gateway, gateway === 502 ? "bad_gateway" : "gateway_timeout", "sim: upstream timed out");
    }
    return json(machine, 201);
  }

  // --- volumes (docs/sim.md "Volumes") ---------------------------------------------------------

  #volumes(): VolumeRow[] {
    return this.ctx.storage.sql.exec<VolumeRow>(`SELECT * FROM volumes WHERE deleted_at IS NULL ORDER BY created_at, id`).toArray();
  }

  async #createVolume(request: Request): Promise<Response> {
    const body = await readJson(request);
    this.#gate(`volume:${String((body as { label?: unknown } | null)?.label ?? "")}`);
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw badRequest("body must be a JSON object");
    const { label, size_gb, region } = body as Record<string, unknown>;
    if (typeof label !== "string" || label.length === 0 || label.length > MAX_LABEL) throw badRequest(`label must be a string of 1..${MAX_LABEL} characters`);
    if (!Number.isSafeInteger(size_gb) || (size_gb as number) < 1 || (size_gb as number) > MAX_VOLUME_GB) throw badRequest(`size_gb must be a whole number from 1 to ${MAX_VOLUME_GB}`);
    const regions = new Set(this.#marketOf(await this.#config()).offers.map((o) => o.region));
    if (typeof region !== "string" || !regions.has(region)) throw new SimHttpError(400, "invalid_region", `no region ${JSON.stringify(region)}; the sim's are ${[...regions].sort().join(", ")}`);
    const row: VolumeRow = { id: `sim-v-${randomHex(6)}`, label, region, size_gb: size_gb as number, price_per_gb_month: SIM_VOLUME_USD_PER_GB_MONTH, created_at: Date.now(), deleted_at: null };
    this.ctx.storage.sql.exec(
      `INSERT INTO volumes (id, label, region, size_gb, price_per_gb_month, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
      row.id, row.label, row.region, row.size_gb, row.price_per_gb_month, row.created_at,
    );
    return json(row, 201);
  }

  /** Deletes a volume and its files, unless a machine that is not TERMINATED mounts it. */
  #deleteVolume(id: string): Response {
    this.#gate(`volume:${id}`);
    const sql = this.ctx.storage.sql;
    const volume = sql.exec<VolumeRow>(`SELECT * FROM volumes WHERE id = ? AND deleted_at IS NULL`, id).toArray()[0];
    if (!volume) throw new SimHttpError(404, "volume_not_found", `no volume ${id}`);
    const now = Date.now();
    const mounting = this.#mountingMachines(id, now);
    if (mounting.length > 0) throw new SimHttpError(409, "volume_in_use", `volume ${id} is mounted by ${mounting.join(", ")}`);
    this.ctx.storage.transactionSync(() => {
      sql.exec(`DELETE FROM volume_writes WHERE volume_id = ?`, id);
      sql.exec(`UPDATE volumes SET deleted_at = ? WHERE id = ?`, now, id);
    });
    return json({ ...volume, deleted_at: now });
  }

  /** The machines not TERMINATED at `now` (by their clock) that mount volume `id`. */
  #mountingMachines(id: string, now: number): string[] {
    const rows = this.ctx.storage.sql
      .exec<MachineRow>(`SELECT m.* FROM machines m, json_each(m.volumes) j WHERE m.status != 'TERMINATED' AND json_extract(j.value, '$.id') = ?`, id)
      .toArray();
    return rows.filter((r) => advance(clockOf(r), now).clock.status !== "TERMINATED").map((r) => r.id);
  }

  /** A create's `volumes` as stored: each a live volume in the offer's region, at its own absolute path; or 400. */
  #mountsJson(volumes: unknown, region: string): string {
    const ok =
      Array.isArray(volumes) &&
      volumes.length <= MAX_MOUNTS &&
      volumes.every((v) => typeof v === "object" && v !== null && typeof v.id === "string" && typeof v.path === "string" && MOUNT_PATH.test(v.path));
    if (!ok) throw badRequest(`volumes must be a list of at most ${MAX_MOUNTS} {id, path}, each path absolute`);
    const mounts = volumes as MountJson[];
    if (new Set(mounts.map((m) => m.id)).size !== mounts.length || new Set(mounts.map((m) => m.path)).size !== mounts.length) throw badRequest("volumes: each volume and each path at most once");
    for (const m of mounts) {
      const v = this.ctx.storage.sql.exec<VolumeRow>(`SELECT * FROM volumes WHERE id = ? AND deleted_at IS NULL`, m.id).toArray()[0];
      if (!v) throw new SimHttpError(400, "invalid_volume", `no volume ${m.id}`);
      if (v.region !== region) throw new SimHttpError(400, "invalid_volume", `volume ${m.id} is in ${v.region}, the offer in ${region}: a machine mounts only volumes of its own region`);
    }
    return JSON.stringify(mounts.map((m) => ({ id: m.id, path: m.path })));
  }

  /**
   * The files a run sees when it begins at `at`: each mounted volume's files as last written at or
   * before then, under the mount's path (a run sees what was written before it began, and its own).
   */
  #filesAt(row: Pick<MachineRow, "volumes">, at: number): Map<string, string> {
    const files = new Map<string, string>();
    for (const m of JSON.parse(row.volumes) as MountJson[]) {
      const writes = this.ctx.storage.sql
        .exec<{ path: string; data: string }>(`SELECT path, data FROM volume_writes WHERE volume_id = ? AND at <= ? ORDER BY at, run, seq`, m.id, at)
        .toArray();
      for (const w of writes) files.set(`${m.path}${w.path}`, w.data);
    }
    return files;
  }

  /** Keeps what a run wrote under its machine's mounts (each write once, by its run and number); the rest was on the machine's own disk. */
  #keepWrites(row: Pick<MachineRow, "id" | "run_started_at" | "volumes">, run: string, writes: readonly ScriptSave[]): void {
    const mounts = JSON.parse(row.volumes) as MountJson[];
    if (mounts.length === 0) return;
    writes.forEach((w, seq) => {
      const m = mounts.find((x) => w.path.startsWith(`${x.path}/`));
      if (!m) return;
      this.ctx.storage.sql.exec(
        `INSERT OR IGNORE INTO volume_writes (volume_id, run, seq, path, data, at) SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM volumes WHERE id = ? AND deleted_at IS NULL)`,
        m.id, run, seq, w.path.slice(m.path.length), w.text, w.at, m.id,
      );
    });
  }

  /** One machine's route: gate, observe the clock, act, persist, answer the machine (or 404/409). */
  #machineRoute(id: string, act: (row: MachineRow, now: number) => Advanced | { ok: false; status: SimStatus }, options = { gated: true }): Response {
    if (options.gated) this.#gate(`machine:${id}`);
    const row = this.#row(id);
    if (!row) throw new SimHttpError(404, "machine_not_found", `no machine ${id}`);
    const now = Date.now();
    const result = act(row, now);
    if ("ok" in result && !result.ok) {
      // What time alone did is still a fact, and is stored before refusing.
      this.#observe(row, now);
      throw new SimHttpError(409, "invalid_state", `machine ${id} is ${result.status}`, {}, { status: result.status });
    }
    this.ctx.storage.transactionSync(() => this.#persist(id, result as Advanced));
    return json(machineJson(this.#row(id)!));
  }

  #list(prefix: string, now: number): SimMachineJson[] {
    // Labels are compared as text; "\u{10FFFF}" sorts after every character a label can hold.
    const rows = this.ctx.storage.sql
      .exec<MachineRow>(
        `SELECT * FROM machines WHERE status != 'TERMINATED' AND label >= ? AND label < ? ORDER BY created_at, id`,
        prefix,
        `${prefix}\u{10FFFF}`,
      )
      .toArray();
    return rows
      .filter((r) => r.label.startsWith(prefix))
      .map((r) => this.#observe(r, now))
      .filter((r) => r.status !== "TERMINATED")
      .map(machineJson);
  }

  /** Stores what the passage of time did to a machine; answers the row as it is now. */
  #observe(row: MachineRow, now: number): MachineRow {
    const seen = advance(clockOf(row), now);
    if (seen.transitions.length === 0) return row;
    this.ctx.storage.transactionSync(() => this.#persist(row.id, seen));
    return this.#row(row.id)!;
  }

  /** Writes a machine's clock and folds its transitions (after any `before`) into its intervals. */
  #persist(id: string, { clock, transitions }: Advanced, before: SimTransition[] = []): void {
    const sql = this.ctx.storage.sql;
    sql.exec(
      `UPDATE machines SET status = ?, status_since = ?, boot_ms = ?, boot_fails = ?, vanish_at = ?, destroyed_at = ?, vanished = ?,
         preempt_after_ms = ?, preempt_at = ?, interrupted = ?,
         -- A machine taken back takes its agent with it: nothing reports for it again (as a real host gone).
         agent_gone = CASE WHEN ? = 1 THEN 1 ELSE agent_gone END
       WHERE id = ?`,
      clock.status,
      clock.since,
      clock.boot_ms,
      clock.boot_fails ? 1 : 0,
      clock.vanish_at,
      clock.destroyed_at,
      clock.vanished ? 1 : 0,
      clock.preempt_after_ms ?? null,
      clock.preempt_at ?? null,
      clock.interrupted ? 1 : 0,
      clock.interrupted ? 1 : 0,
      id,
    );
    const all = [...before, ...transitions];
    if (all.length === 0) return;
    this.#changed = true;
    this.#runTransitions(id, all);
    if (this.#webhookTarget()) {
      // Sent by the alarm, soon after: in the same transaction as the change, so none is lost.
      for (const t of all) {
        sql.exec(`INSERT INTO webhook_outbox (id, machine_id, status, at, next_at) VALUES (?, ?, ?, ?, ?)`, `msg_${randomHex(12)}`, id, t.status, t.at, t.at);
      }
    }
    const intervals = applyTransitions(this.#intervals(id), all);
    sql.exec(`DELETE FROM machine_intervals WHERE machine_id = ?`, id);
    intervals.forEach((i, seq) => {
      sql.exec(`INSERT INTO machine_intervals (machine_id, seq, status, from_ms, to_ms) VALUES (?, ?, ?, ?, ?)`, id, seq, i.status, i.from, i.to);
    });
  }

  #row(id: string): MachineRow | null {
    return this.ctx.storage.sql.exec<MachineRow>(`SELECT * FROM machines WHERE id = ?`, id).toArray()[0] ?? null;
  }

  #intervals(id: string): SimInterval[] {
    return this.ctx.storage.sql
      .exec<IntervalRow>(`SELECT * FROM machine_intervals WHERE machine_id = ? ORDER BY seq`, id)
      .toArray()
      .map(intervalOf);
  }

  // --- the machines' agent --------------------------------------------------------------------

  /**
   * What status changes do to a machine's run: reaching RUNNING starts its `cmd` from the
   * beginning; leaving RUNNING (stop, failure, destroy, vanish) kills the run and the execs at that
   * time, as a stopped machine's processes are killed.
   */
  #runTransitions(id: string, transitions: readonly SimTransition[]): void {
    const sql = this.ctx.storage.sql;
    const row = this.#row(id);
    // Every machine with a `cmd` runs it (its model server follows the run); the agent ships it.
    if (!row || (row.cmd === null && !agentOf(row))) return;
    let live = row.run_started_at !== null && row.exit_reported === 0;
    for (const t of transitions) {
      if (t.status === "RUNNING") {
        live = row.cmd !== null;
        // A new run numbers its chunks from its start in milliseconds, above the run before's (agent.sh does the same),
        // and its agent enrolls again, as a new agent.sh process does.
        // A run with lessor's agent fetches its workdir first (docs/sim.md "Data in and out"), as a new agent.sh does.
        sql.exec(
          `UPDATE machines SET run_started_at = ?, run_signals = '[]', log_seq = MAX(log_seq, ?), log_shipped = 0, log_cut = NULL, exit_reported = 0,
             model_requests = 0, model_prompt_tokens = 0, model_generation_tokens = 0, agent_token = NULL,
             workdir = ?, workdir_tries = 0, workdir_error = NULL, outputs = NULL WHERE id = ?`,
          live ? t.at : null,
          t.at,
          live && agentOf(row) ? "pending" : null,
          id,
        );
        sql.exec(`DELETE FROM machine_files WHERE machine_id = ?`, id);
        sql.exec(`DELETE FROM machine_outputs WHERE machine_id = ?`, id);
        continue;
      }
      // A destroyed machine's disk is gone.
      if (t.status === "TERMINATED") sql.exec(`DELETE FROM machine_files WHERE machine_id = ?`, id);
      sql.exec(`UPDATE machine_execs SET killed_at = ? WHERE machine_id = ? AND killed_at IS NULL`, t.at, id);
      if (live) this.#signal(id, { signal: "KILL", at: t.at });
    }
  }

  /** Delivers a signal to a machine's run. */
  #signal(id: string, signal: DeliveredSignal): void {
    const row = this.#row(id)!;
    this.ctx.storage.sql.exec(`UPDATE machines SET run_signals = ? WHERE id = ?`, JSON.stringify([...parseSignals(row.run_signals), signal]), id);
  }

  /** The machines the sim is the agent of and that may still need it. */
  #agentRows(): MachineRow[] {
    return this.ctx.storage.sql
      .exec<MachineRow>(`SELECT * FROM machines WHERE status != 'TERMINATED' AND agent_gone = 0 AND env IS NOT NULL ORDER BY created_at, id`)
      .toArray()
      .filter((r) => agentOf(r) !== null);
  }

  /** Whether a machine's agent has something to finish: a run to follow or report, or an exec. */
  #busy(row: MachineRow): boolean {
    if (row.run_started_at !== null && row.exit_reported === 0) return true;
    return this.ctx.storage.sql.exec(`SELECT 1 FROM machine_execs WHERE machine_id = ? LIMIT 1`, row.id).toArray().length > 0;
  }

  /**
   * Sets the one alarm to the earliest agent's next act or, with webhooks on, the earliest delivery
   * due or machine status that time alone will change (so a vanishing is told when it happens, not
   * when someone next looks); clears it when nothing is to be done.
   */
  async #scheduleAgent(now: number): Promise<void> {
    const opts = { tick_ms: SIM_AGENT_TICK_MS, heartbeat_ms: this.#faults().agent_heartbeat_ms };
    const dues: (number | null)[] = [];
    for (const row of this.#agentRows()) {
      const nextTransition = row.status === "PROVISIONING" ? row.status_since + row.provision_ms : row.status === "STARTING" ? row.status_since + row.boot_ms : null;
      dues.push(agentDueAt({ status: row.status, next_transition_at: nextTransition, busy: this.#busy(row), heartbeat_at: row.heartbeat_at }, now, opts));
    }
    if (this.#webhookTarget()) {
      const sql = this.ctx.storage.sql;
      dues.push(sql.exec<{ due: number | null }>(`SELECT MIN(next_at) AS due FROM webhook_outbox`).one().due);
      // webhooks.ts `nextClockChangeAt` over every live machine, in one aggregate.
      dues.push(sql.exec<{ due: number | null }>(`SELECT MIN(${CLOCK_CHANGE_AT}) AS due FROM machines WHERE status != 'TERMINATED'`).one().due);
    }
    const next = dues.reduce<number | null>((min, d) => (d !== null && (min === null || d < min) ? d : min), null);
    if (next === null) await this.ctx.storage.deleteAlarm();
    else if ((await this.ctx.storage.getAlarm()) !== next) await this.ctx.storage.setAlarm(next);
  }

  /** A machine's status changed since the alarm was last rescheduled (`#takeChanged`). */
  #changed = false;

  /** Whether a status changed since the last call, and from now on not; whoever takes it reschedules. */
  #takeChanged(): boolean {
    const changed = this.#changed;
    this.#changed = false;
    return changed;
  }

  /** Where the sim's webhooks go; null: ingress is not configured, and the sim sends none. */
  #webhookTarget() {
    return simWebhookTarget(this.env);
  }

  /**
   * Observes every live machine (so what time alone did is stored, and queued to be told), then
   * sends the deliveries that are due, oldest first, one at a time.
   */
  async #sendWebhooks(now: number): Promise<void> {
    const target = this.#webhookTarget();
    const sql = this.ctx.storage.sql;
    if (!target) {
      sql.exec(`DELETE FROM webhook_outbox`);
      return;
    }
    // Only the machines that time alone has changed by now (webhooks.ts `nextClockChangeAt`).
    for (const row of sql.exec<MachineRow>(`SELECT * FROM machines WHERE status != 'TERMINATED' AND ${CLOCK_CHANGE_AT} <= ?`, now).toArray()) this.#observe(row, now);
    const due = sql.exec<OutboxRow>(`SELECT * FROM webhook_outbox WHERE next_at <= ? ORDER BY at, id LIMIT ?`, now, SIM_WEBHOOK_BATCH).toArray();
    if (due.length === 0) return;
    const secret = await simSigningSecret(target.token);
    for (const row of due) {
      const body = simWebhookBody(row);
      const headers = await signedHeaders([secret], row.id, Math.floor(Date.now() / 1000), body);
      let status: number | null = null;
      try {
        const res = await fetch(target.url, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body });
        status = res.status;
        await res.body?.cancel();
      } catch (e) {
        console.warn(`sim: webhook ${row.id} not delivered: ${errorText(e)}`);
      }
      const attempts = row.attempts + 1;
      const next = afterAttempt(status, attempts, Date.now());
      if (next.done) {
        if (status === null || status >= 300) console.warn(`sim: webhook ${row.id} given up after ${attempts} attempts (last status ${status ?? "none"})`);
        sql.exec(`DELETE FROM webhook_outbox WHERE id = ?`, row.id);
      } else {
        sql.exec(`UPDATE webhook_outbox SET attempts = ?, next_at = ? WHERE id = ?`, attempts, next.next_at, row.id);
      }
    }
  }

  /** One round of every agent; one machine's failure is retried on the next round and does not stop the others. */
  async #agentTick(now: number): Promise<void> {
    for (const { id } of this.#agentRows()) {
      // Read again at its turn: the machine may have been destroyed while an agent before it
      // awaited its lease, and advancing the row read before that would bring it back.
      const fresh = this.#row(id);
      if (fresh === null || fresh.status === "TERMINATED") continue;
      const row = this.#observe(fresh, now);
      // Taken back just now (a spot machine preempted): its agent went with the host, and reports nothing more.
      if (row.status === "TERMINATED" || row.agent_gone === 1) continue;
      try {
        await this.#actFor(row, now);
        this.#agentFailures.delete(row.id);
      } catch (e) {
        if (e instanceof LeaseGone) {
          this.ctx.storage.transactionSync(() => {
            this.ctx.storage.sql.exec(`UPDATE machines SET agent_gone = 1 WHERE id = ?`, row.id);
            this.ctx.storage.sql.exec(`DELETE FROM machine_execs WHERE machine_id = ?`, row.id);
            this.ctx.storage.sql.exec(`DELETE FROM machine_outputs WHERE machine_id = ?`, row.id);
          });
        } else if (this.#agentFailures.get(row.id) !== errorText(e)) {
          this.#agentFailures.set(row.id, errorText(e));
          console.warn(`sim: agent of ${row.id} will retry until it is answered: ${errorText(e)}`);
        }
      }
    }
  }

  /** What agent.sh does in one pass for one machine: commands, output, exit, execs, heartbeat. */
  async #actFor(row: MachineRow, now: number): Promise<void> {
    const access = agentOf(row)!;
    const lease = this.env.LEASE.get(this.env.LEASE.idFromName(access.lease_id));
    const sql = this.ctx.storage.sql;
    const ask = async <Op extends AgentCall["op"]>(token: string, c: AgentCall & { op: Op }): Promise<AgentAnswer & { ok: true; op: Op }> => {
      const answer = (await lease.agentCall(token, c)) as AgentAnswer;
      if (answer.ok) return answer as AgentAnswer & { ok: true; op: Op };
      if (answer.status === 410) throw new LeaseGone();
      throw new Error(`${c.op}: ${answer.status} ${answer.code}`);
    };
    const running = row.status === "RUNNING";
    // agent.sh runs once the machine does: one that has not yet has no agent to enroll (it would
    // enroll again when its run begins, which clears the token: a row written for nothing).
    if (!running && row.agent_token === null && !access.lease_token) return;
    // As agent.sh: the enrollment token in the environment is exchanged for the lease token first,
    // with a nonce the machine keeps (docs/agent.md "The token").
    const token = row.agent_token ?? access.lease_token ?? (await this.#enroll(row, (nonce) => ask(access.enroll_token!, { op: "enroll", nonce })));
    const call = <Op extends AgentCall["op"]>(c: AgentCall & { op: Op }) => ask<Op>(token, c);
    const heartbeat = running && heartbeatDue(row.heartbeat_at, now, this.#faults().agent_heartbeat_ms);
    const program = row.cmd === null || row.run_started_at === null ? null : programOf(row.cmd);

    // Commands: asked for when lessor said one waits (commandQueued, as a real agent's long poll
    // answers at once) and with each heartbeat, which catches one whose word was lost.
    const waiting = this.#commandsWaiting.delete(row.id);
    if (running && (heartbeat || waiting)) {
      const { commands } = await call({ op: "commands", wait_ms: 0 });
      for (const command of commands) {
        if (command.kind === "signal") {
          const live = program !== null && row.exit_reported === 0 && this.#runOf(this.#row(row.id)!, program, now).end === null;
          if (live) this.#signal(row.id, { signal: command.signal!, at: now });
          // As agent.sh: 0 when the signal was sent, 1 when there was no process to send it to.
          await call({ op: "result", id: command.id, exit_code: live ? 0 : 1, output: "" });
          continue;
        }
        const text = decodeBase64(command.cmd_base64 ?? "");
        const parsed = parseScript(text);
        if (!parsed.ok) {
          // As `sh -c` answers a line it cannot parse: code 2 and the reason.
          await call({ op: "result", id: command.id, exit_code: 2, output: `sim: ${scriptErrorText(parsed.error)}\n` });
          continue;
        }
        sql.exec(`INSERT OR IGNORE INTO machine_execs (machine_id, command_id, cmd, started_at) VALUES (?, ?, ?, ?)`, row.id, command.id, text, now);
      }
    }

    // Data in: the workdir before the command starts (a machine stopped meanwhile never starts it).
    if (program !== null && row.workdir === "pending") {
      if (running) await this.#fetchWorkdir(row, access.lease_id, token);
      else sql.exec(`UPDATE machines SET workdir = NULL WHERE id = ?`, row.id);
      // The run started when the fetch ended: what it printed at once is shipped in this pass, not the next.
      now = Math.max(now, Date.now());
    }

    // The program's output since the last chunk lessor accepted, then its outputs, then its exit.
    if (program !== null && row.exit_reported === 0 && this.#row(row.id)!.workdir !== "pending") {
      const current = this.#row(row.id)!;
      // Taken back while this pass waited on lessor: the host went, and its agent with it.
      if (current.agent_gone === 1) return;
      const run = this.#runOf(current, program, now);
      this.#keepWrites(current, runKey(current), run.saves);
      const lines = runLines(run);
      let { log_seq: seq, log_shipped: shipped, log_cut: cut } = current;
      while (shipped < lines.length) {
        if (cut === null) {
          // Cut once and kept: a retry sends the same lines under the same number.
          cut = chunkEnd(lines, shipped);
          sql.exec(`UPDATE machines SET log_cut = ? WHERE id = ?`, cut, row.id);
        }
        await call({ op: "log", seq, data: chunkBytes(lines, shipped, cut) });
        shipped = cut;
        seq++;
        cut = null;
        sql.exec(`UPDATE machines SET log_seq = ?, log_shipped = ?, log_cut = NULL WHERE id = ?`, seq, shipped, row.id);
      }
      if (run.end) {
        // As agent.sh: the outputs before the exit, since a job is released on its exit (docs/artifacts.md).
        if (run.writes.length > 0 && current.outputs !== "done") await this.#uploadOutputs(current, access.lease_id, token, run.writes);
        await call({ op: "exit", code: run.end.code, signal: run.end.signal });
        sql.exec(`UPDATE machines SET exit_reported = 1 WHERE id = ?`, row.id);
      }
    }

    // Execs: each a run of its own, reported when it ends (or is killed with the machine).
    const latest = this.#row(row.id)!;
    for (const exec of sql.exec<ExecRow>(`SELECT * FROM machine_execs WHERE machine_id = ? ORDER BY started_at, command_id`, row.id).toArray()) {
      // An exec stored after a stop that came while this pass waited on lessor dies with the machine too.
      const killedAt = exec.killed_at ?? (latest.status === "RUNNING" ? null : Math.max(exec.started_at, latest.status_since));
      const signals: DeliveredSignal[] = killedAt === null ? [] : [{ signal: "KILL", at: killedAt }];
      const run = runScript(programOf(exec.cmd), exec.started_at, signals, now, this.#filesOf(row.id), this.#filesAt(latest, exec.started_at));
      this.#keepWrites(latest, `${exec.command_id}`, run.saves);
      if (!run.end) continue;
      const answer = (await lease.agentCall(token, { op: "result", id: exec.command_id, ...execResult({ ...run, end: run.end }) })) as AgentAnswer;
      if (!answer.ok && answer.status === 410) throw new LeaseGone();
      // A result lessor has (or a command it no longer knows) is done with.
      if (answer.ok || answer.status === 404) sql.exec(`DELETE FROM machine_execs WHERE machine_id = ? AND command_id = ?`, row.id, exec.command_id);
    }

    if (heartbeat) {
      // On a machine that serves a model, as agent.sh: its metrics with the heartbeat (null: unreadable).
      await call(modelKeyOf(row) === null ? { op: "heartbeat" } : { op: "heartbeat", metrics: await this.#readMetrics(row) });
      sql.exec(`UPDATE machines SET heartbeat_at = ? WHERE id = ?`, now, row.id);
    }
  }

  // --- data in and out (docs/sim.md "Data in and out") -----------------------------------------

  /** The run of a machine's `cmd` at `now`: the interpreter's, with its workdir, or the failure to get one. */
  #runOf(row: MachineRow, program: ScriptProgram, now: number): ScriptRun {
    if (row.workdir === "failed") return failedRun(row.workdir_error ?? "the workdir could not be had", row.run_started_at!);
    if (row.workdir === "pending") return { output: [], writes: [], saves: [], truncated: false, end: null };
    return runScript(program, row.run_started_at!, parseSignals(row.run_signals), now, this.#filesOf(row.id), this.#filesAt(row, row.run_started_at!));
  }

  /** The machine's workdir as `cat` reads it. */
  #filesOf(id: string): ScriptFiles {
    const sql = this.ctx.storage.sql;
    return {
      read: (path) => {
        const found = sql.exec<{ data: ArrayBuffer }>(`SELECT data FROM machine_files WHERE machine_id = ? AND path = ?`, id, path).toArray()[0];
        return found ? new Uint8Array(found.data) : null;
      },
    };
  }

  /** A call of the agent routes over HTTP, as agent.sh makes it: lessor's public URL, the lease token and the lease's id. */
  async #agentHttp(row: MachineRow, leaseId: string, token: string, method: string, path: string, init: { body?: BodyInit; headers?: Record<string, string> } = {}): Promise<Response> {
    const base = (JSON.parse(row.env!) as Record<string, string>).LESSOR_URL || publicUrl(this.env);
    if (!base) throw new Error("no LESSOR_URL to reach lessor's agent routes");
    const res = await fetch(`${base.replace(/\/+$/, "")}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "lessor-lease-id": leaseId, ...init.headers },
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    if (res.status === 410) {
      await res.body?.cancel();
      throw new LeaseGone();
    }
    return res;
  }

  /** A refusal for good (REFUSED_FOR_GOOD) is said and passed over; any other failure is thrown, to be tried again next pass. */
  async #answered(res: Response, what: string, { read = false } = {}): Promise<boolean> {
    if (res.ok) {
      if (!read) await res.body?.cancel();
      return true;
    }
    const body = (await res.text()).slice(0, 300);
    if (REFUSED_FOR_GOOD.has(res.status)) {
      console.warn(`sim: ${what} refused (${res.status}): ${body}`);
      return false;
    }
    throw new Error(`${what}: ${res.status} ${body}`);
  }

  /**
   * `GET /v1/agent/workdir`, its digest checked as it streams, unpacked into the machine's files
   * (files.ts limits); then the run starts. A bundle whose digest differs is fetched again, up to
   * SIM_WORKDIR_TRIES; one that cannot be unpacked, or is refused, fails the run (agent.sh's `die`).
   */
  async #fetchWorkdir(row: MachineRow, leaseId: string, token: string): Promise<void> {
    const sql = this.ctx.storage.sql;
    // Most runs have no bundle: asked of the index the route reads, not with a request to the sim's
    // own Worker, which would cost every run one, and under the chaos run's load made wrangler dev
    // reset some of its clients' connections (docs/sim.md "Data in and out").
    if (!(await holdsWorkdir(this.env, leaseId))) {
      sql.exec(`UPDATE machines SET workdir = NULL, run_started_at = ? WHERE id = ?`, Date.now(), row.id);
      return;
    }
    const res = await this.#agentHttp(row, leaseId, token, "GET", "/v1/agent/workdir");
    const fail = (message: string) => sql.exec(`UPDATE machines SET workdir = 'failed', workdir_error = ?, run_started_at = ? WHERE id = ?`, message, Date.now(), row.id);
    if (!res.ok) {
      const body = await res.text();
      if (res.status === 404 && body.includes("no_workdir")) {
        sql.exec(`UPDATE machines SET workdir = NULL, run_started_at = ? WHERE id = ?`, Date.now(), row.id);
        return;
      }
      if (REFUSED_FOR_GOOD.has(res.status) || res.status === 401) return void fail(`workdir refused (${res.status})`);
      throw new Error(`workdir: ${res.status} ${body.slice(0, 300)}`);
    }
    const want = (res.headers.get("lessor-sha256") ?? "").toLowerCase();
    const [forDigest, forTar] = res.body!.tee();
    const digest = new crypto.DigestStream("SHA-256");
    const digested = forDigest.pipeTo(digest).then(async () => [...new Uint8Array(await digest.digest)].map((b) => b.toString(16).padStart(2, "0")).join(""));
    const files: TarFile[] | TarError = await readTar(forTar.pipeThrough(new DecompressionStream("gzip")), SIM_WORKDIR_LIMITS).catch((e: unknown) => {
      if (e instanceof TarError) return e;
      throw e;
    });
    if ((await digested) !== want) {
      const tries = row.workdir_tries + 1;
      sql.exec(`UPDATE machines SET workdir_tries = ? WHERE id = ?`, tries, row.id);
      if (tries >= SIM_WORKDIR_TRIES) return void fail("the workdir's digest does not match Lessor-Sha256");
      throw new Error("the workdir's digest does not match; fetching it again");
    }
    if (files instanceof TarError) return void fail(`cannot unpack the workdir: ${files.message}`);
    this.ctx.storage.transactionSync(() => {
      sql.exec(`DELETE FROM machine_files WHERE machine_id = ?`, row.id);
      for (const f of files) sql.exec(`INSERT INTO machine_files (machine_id, path, data) VALUES (?, ?, ?)`, row.id, f.path, f.data);
      sql.exec(`UPDATE machines SET workdir = 'ready', run_started_at = ? WHERE id = ?`, Date.now(), row.id);
    });
  }

  /**
   * The run's outputs as agent.sh uploads them: the manifest (`PUT /v1/agent/outputs`), then each
   * file in path order, one PUT up to the part size and in parts above it, a multipart upload
   * begun before continued from the parts lessor lists as stored. What is refused for good is
   * passed over, as agent.sh passes it; anything else is tried again on the next pass.
   */
  async #uploadOutputs(row: MachineRow, leaseId: string, token: string, writes: readonly ScriptWrite[]): Promise<void> {
    const sql = this.ctx.storage.sql;
    if (row.outputs === null) {
      const files = [...writes].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      const digests = await Promise.all(files.map(writeDigest));
      const manifest = { files: files.map((f, i) => ({ path: f.path, size: f.size, sha256: digests[i]! })) };
      const res = await this.#agentHttp(row, leaseId, token, "PUT", "/v1/agent/outputs", { body: JSON.stringify(manifest), headers: { "content-type": "application/json" } });
      await this.#answered(res, "the outputs' manifest");
      this.ctx.storage.transactionSync(() => {
        sql.exec(`DELETE FROM machine_outputs WHERE machine_id = ?`, row.id);
        files.forEach((f, i) =>
          sql.exec(`INSERT INTO machine_outputs (machine_id, path, size, seed, sha256) VALUES (?, ?, ?, ?, ?)`, row.id, f.path, f.size, f.seed, digests[i]!),
        );
        sql.exec(`UPDATE machines SET outputs = 'sent' WHERE id = ?`, row.id);
      });
    }
    for (const o of sql.exec<OutputRow>(`SELECT * FROM machine_outputs WHERE machine_id = ? AND state = 'pending' ORDER BY path`, row.id).toArray()) {
      const stored = await this.#uploadFile(row, leaseId, token, o);
      sql.exec(`UPDATE machine_outputs SET state = ? WHERE machine_id = ? AND path = ?`, stored ? "stored" : "refused", row.id, o.path);
    }
    sql.exec(`UPDATE machines SET outputs = 'done' WHERE id = ?`, row.id);
  }

  /** One output file up; false: refused for good. */
  async #uploadFile(row: MachineRow, leaseId: string, token: string, o: OutputRow): Promise<boolean> {
    const url = artifactUrlPath(o.path);
    const http = (method: string, query: string, init?: { body?: BodyInit; headers?: Record<string, string> }) => this.#agentHttp(row, leaseId, token, method, `${url}${query}`, init);
    const bytes = { "content-type": "application/octet-stream" };
    if (o.size <= PART_SIZE) {
      const body = simFileBytes(o.seed, 0, o.size);
      return this.#answered(await http("PUT", "", { body, headers: { ...bytes, "lessor-sha256": o.sha256 } }), o.path);
    }
    type Upload = { upload_id: string; parts: number; stored: { part: number }[] };
    let upload: Upload | null = null;
    if (o.upload_id !== null) {
      const res = await http("GET", `?upload_id=${encodeURIComponent(o.upload_id)}`);
      // An upload lessor no longer knows (aborted, or completed by a pass that was cut off) is begun again.
      if (await this.#answered(res, `${o.path}: its upload`, { read: true })) upload = (await res.json()) as Upload;
    }
    if (upload === null) {
      const res = await http("POST", "?uploads", { body: JSON.stringify({ size: o.size, sha256: o.sha256 }), headers: { "content-type": "application/json" } });
      if (!(await this.#answered(res, o.path, { read: true }))) return false;
      upload = (await res.json()) as Upload;
      this.ctx.storage.sql.exec(`UPDATE machine_outputs SET upload_id = ? WHERE machine_id = ? AND path = ?`, upload.upload_id, row.id, o.path);
    }
    const id = encodeURIComponent(upload.upload_id);
    const have = new Set(upload.stored.map((p) => p.part));
    for (let n = 1; n <= upload.parts; n++) {
      if (have.has(n)) continue;
      const body = simFileBytes(o.seed, (n - 1) * PART_SIZE, partSize(o.size, n));
      const res = await http("PUT", `?upload_id=${id}&part=${n}`, { body, headers: { ...bytes, "lessor-sha256": await sha256Hex(body) } });
      if (!(await this.#answered(res, `${o.path}: part ${n}`))) return false;
    }
    const done = await http("POST", `?upload_id=${id}&complete`, { body: JSON.stringify({ size: o.size, sha256: o.sha256 }), headers: { "content-type": "application/json" } });
    return this.#answered(done, `${o.path}: its completion`);
  }

  /** The machine's agent's first call: its lease token for the enrollment token, kept for its run. */
  async #enroll(row: MachineRow, enroll: (nonce: string) => Promise<{ token: string }>): Promise<string> {
    const nonce = row.agent_nonce ?? randomBase62(32);
    if (row.agent_nonce === null) this.ctx.storage.sql.exec(`UPDATE machines SET agent_nonce = ? WHERE id = ?`, nonce, row.id);
    const { token } = await enroll(nonce);
    this.ctx.storage.sql.exec(`UPDATE machines SET agent_token = ? WHERE id = ?`, token, row.id);
    return token;
  }

  /** What the machine's agent reads on its own model port: `GET /metrics` with the machine's key; null when it does not answer 200. */
  async #readMetrics(row: MachineRow): Promise<string | null> {
    const request = new Request(`http://localhost:${MODEL_PORT}/metrics`, { headers: { authorization: `Bearer ${modelKeyOf(row)}` } });
    const answer = await this.#port(request, row.id, MODEL_PORT, "/metrics", { operator: false }).catch(() => null);
    return answer?.status === 200 ? answer.text() : null;
  }

  // --- the model server ----------------------------------------------------------------------

  /**
   * A request to `port` on machine `id` (docs/sim.md "The model server"). The port is open while
   * the machine is RUNNING, asked for the port at create, and its run serves a model (script.ts
   * `servingAt`); otherwise the answer is 502 `port_closed`, which the adapter turns into the
   * network error a closed port gives. The operator's variant is the person at the machine, who
   * holds its key: the model server's key is not asked for.
   */
  async #port(request: Request, id: string, port: number, path: string, from: { operator: boolean }): Promise<Response> {
    const served = this.#served(id, port, Date.now());
    if (!served) throw portClosed(id, port);
    const { row, model } = served;
    const key = modelKeyOf(row);
    if (!from.operator && key !== null && !(await bearerMatches(request.headers.get("authorization"), key))) {
      return modelErrorResponse(modelError(401, "invalid_api_key", "Incorrect API key provided."));
    }
    const run = runKey(row);
    switch (`${request.method} ${path}`) {
      case "GET /v1/models":
        return json(modelsList(model, Math.floor(row.run_started_at! / 1000)));
      case "GET /metrics":
        return new Response(
          metricsText(model, {
            running: this.#inFlight.get(run) ?? 0,
            waiting: 0,
            success: row.model_requests,
            prompt_tokens: row.model_prompt_tokens,
            generation_tokens: row.model_generation_tokens,
          }),
          { headers: { "content-type": METRICS_CONTENT_TYPE } },
        );
      case "POST /v1/chat/completions":
        return this.#complete(request, row, model, "chat");
      case "POST /v1/completions":
        return this.#complete(request, row, model, "completion");
    }
    if (MODEL_PATHS.includes(path)) return modelErrorResponse(modelError(405, "method_not_allowed", `${request.method} is not allowed on ${path}.`), { allow: path === "/metrics" || path === "/v1/models" ? "GET" : "POST" });
    return modelErrorResponse(modelError(404, "not_found", `No route ${path}.`));
  }

  /** The machine row and the model it serves on `port` at `now`, or null: nothing listens there. */
  #served(id: string, port: number, now: number): { row: MachineRow; model: string } | null {
    const fresh = this.#row(id);
    if (fresh === null || port !== MODEL_PORT) return null;
    const row = this.#observe(fresh, now);
    if (row.status !== "RUNNING" || row.cmd === null || row.run_started_at === null) return null;
    if (row.workdir === "pending" || row.workdir === "failed") return null;
    if (!(JSON.parse(row.ports) as number[]).includes(port)) return null;
    const model = servingAt(programOf(row.cmd), row.run_started_at, parseSignals(row.run_signals), now);
    return model === null ? null : { row, model };
  }

  /**
   * A completion, paced at `model_tokens_per_s`: a stream sends each chunk when its token is ready;
   * an answer that is not streamed comes when its last token is. The request counts as running
   * while it lasts (in memory); the run's totals are stored when it ends. A machine that stops
   * serving meanwhile breaks the connection, as a real one would.
   */
  async #complete(request: Request, row: MachineRow, model: string, kind: ModelRequestKind): Promise<Response> {
    const text = await boundedText(request, MODEL_MAX_BODY_BYTES);
    if (text === null) return modelErrorResponse(modelError(413, "request_too_large", `The request body is longer than ${MODEL_MAX_BODY_BYTES} bytes.`));
    const parsed = parseModelRequest(kind, text, model);
    if (!parsed.ok) return modelErrorResponse(parsed.error);
    const req = parsed.request;
    const start = Date.now();
    const rate = this.#faults().model_tokens_per_s;
    const generation = generate(model, req.prompt, req.max_tokens);
    const meta = { id: `${kind === "chat" ? "chatcmpl" : "cmpl"}-${randomHex(12)}`, created: Math.floor(start / 1000) };
    const run = runKey(row);
    const sql = this.ctx.storage.sql;
    // Counted against the run it reached: a run started since is another run, with its own totals.
    const count = (requests: number, prompt: number, generated: number) =>
      sql.exec(
        `UPDATE machines SET model_requests = model_requests + ?, model_prompt_tokens = model_prompt_tokens + ?, model_generation_tokens = model_generation_tokens + ?
         WHERE id = ? AND run_started_at = ?`,
        requests,
        prompt,
        generated,
        row.id,
        row.run_started_at,
      );
    count(0, req.prompt_tokens, 0);
    this.#inFlight.set(run, (this.#inFlight.get(run) ?? 0) + 1);
    let done = false;
    const finish = (ok: boolean, generated: number) => {
      if (done) return;
      done = true;
      const left = (this.#inFlight.get(run) ?? 1) - 1;
      if (left > 0) this.#inFlight.set(run, left);
      else this.#inFlight.delete(run);
      count(ok ? 1 : 0, 0, generated);
    };
    const stillServed = () => this.#served(row.id, MODEL_PORT, Date.now())?.row.run_started_at === row.run_started_at;

    if (!req.stream) {
      await sleepUntil(tokenReadyAt(start, generation.tokens.length, rate));
      if (!stillServed()) {
        finish(false, 0);
        throw portClosed(row.id, MODEL_PORT);
      }
      finish(true, generation.tokens.length);
      return json(completionBody(req, generation, meta));
    }

    const events = streamEvents(req, generation, meta);
    const encoder = new TextEncoder();
    let next = 0;
    let sent = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          const event = events[next++];
          if (event === undefined) {
            finish(true, generation.tokens.length);
            controller.close();
            return;
          }
          await sleepUntil(tokenReadyAt(start, event.after_tokens, rate));
          if (!stillServed()) {
            finish(false, sent);
            controller.error(new TypeError(`sim: connection to ${row.id}:${MODEL_PORT} reset`));
            return;
          }
          sent = event.after_tokens;
          controller.enqueue(encoder.encode(event.data));
        },
        cancel: () => finish(false, sent),
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
  }

  // --- ledger and billing ---------------------------------------------------------------------

  /** Every machine (whose label starts with `prefix`), observed at `now`, with its intervals. */
  #ledger(prefix: string, now: number): SimLedger {
    const sql = this.ctx.storage.sql;
    for (const row of sql.exec<MachineRow>(`SELECT * FROM machines WHERE status != 'TERMINATED'`).toArray()) this.#observe(row, now);
    const rows = sql
      .exec<MachineRow>(`SELECT * FROM machines WHERE label >= ? AND label < ? ORDER BY created_at, id`, prefix, `${prefix}\u{10FFFF}`)
      .toArray()
      .filter((r) => r.label.startsWith(prefix));
    const intervals = new Map<string, SimInterval[]>();
    for (const i of sql.exec<IntervalRow>(`SELECT * FROM machine_intervals ORDER BY machine_id, seq`)) {
      const list = intervals.get(i.machine_id) ?? [];
      list.push(intervalOf(i));
      intervals.set(i.machine_id, list);
    }
    const refusals = new Map<string, SimRefusal[]>();
    for (const r of sql.exec<{ machine_id: string; at: number; status: 429 | 503; retry_after_ms: number | null }>(`SELECT * FROM machine_refusals ORDER BY machine_id, at`)) {
      const list = refusals.get(r.machine_id) ?? [];
      list.push({ at: r.at, status: r.status, retry_after_ms: r.retry_after_ms });
      refusals.set(r.machine_id, list);
    }
    const machines: SimLedgerMachine[] = rows.map((r) => ({
      id: r.id,
      label: r.label,
      offer_id: r.offer_id,
      price_per_hour: r.price_per_hour,
      disk_price_per_hour: r.disk_price_per_hour,
      status: r.status,
      created_at: r.created_at,
      destroyed_at: r.destroyed_at,
      vanished: r.vanished === 1,
      interrupted: r.interrupted === 1,
      alive_ms: (r.destroyed_at ?? now) - r.created_at,
      intervals: intervals.get(r.id) ?? [],
      refusals: refusals.get(r.id) ?? [],
      volumes: (JSON.parse(r.volumes) as MountJson[]).map((m) => m.id),
    }));
    const volumes = sql
      .exec<VolumeRow>(`SELECT * FROM volumes WHERE label >= ? AND label < ? ORDER BY created_at, id`, prefix, `${prefix}\u{10FFFF}`)
      .toArray()
      .filter((v) => v.label.startsWith(prefix))
      .map((v) => ({ id: v.id, label: v.label, region: v.region, size_gb: v.size_gb, created_at: v.created_at, deleted_at: v.deleted_at }));
    return { now, machines, volumes };
  }

  #billing(params: URLSearchParams, now: number): Response {
    const from = msParam(params, "from", 0);
    const to = msParam(params, "to", now);
    const { machines } = this.#ledger("", now);
    const faults = this.#faults();
    const opts = { window_ms: faults.billing_window_ms, delay_ms: faults.billing_delay_ms, markup: faults.billing_markup };
    // Volumes bill their storage, deleted ones until their deletion (docs/sim.md "Volumes").
    const volumes = this.ctx.storage.sql.exec<VolumeRow>(`SELECT * FROM volumes WHERE created_at < ? AND (deleted_at IS NULL OR deleted_at > ?)`, to, from).toArray();
    return json({
      now,
      complete_through: billingCompleteThrough(now, opts),
      window_ms: opts.window_ms,
      records: hourlyBilling(machines, from, to, now, opts),
      volume_records: volumeBilling(volumes, from, to, now, opts),
    });
  }

  // --- faults and the PRNG --------------------------------------------------------------------

  /**
   * Answers an injected 503 or 429 instead of the call on `target` (nothing is done); else the
   * faults in force. A call that waited out the Retry-After it was given is not rate-limited again.
   */
  #gate(target: string): SimFaults {
    const faults = this.#faults();
    const now = Date.now();
    if (this.#chance(faults.api_error_rate)) {
      this.#refused(target, now, 503, null);
      throw new SimHttpError(503, "unavailable", "sim: service unavailable (injected)");
    }
    const promised = this.#promised.get(target);
    if (promised !== undefined && now >= promised) {
      this.#promised.delete(target);
      return faults;
    }
    if (this.#chance(faults.rate_limit_rate)) {
      if (this.#promised.size > 10_000) this.#promised.clear();
      this.#promised.set(target, now + faults.retry_after_s * 1000);
      this.#refused(target, now, 429, faults.retry_after_s * 1000);
      throw new SimHttpError(429, "rate_limited", "sim: too many requests (injected)", { "retry-after": String(faults.retry_after_s) });
    }
    return faults;
  }

  /** Records a refused call on a machine (other targets have no machine to charge it to). */
  #refused(target: string, at: number, status: 429 | 503, retryAfterMs: number | null): void {
    if (!target.startsWith("machine:")) return;
    this.ctx.storage.sql.exec(`INSERT INTO machine_refusals (machine_id, at, status, retry_after_ms) VALUES (?, ?, ?, ?)`, target.slice("machine:".length), at, status, retryAfterMs);
  }

  /**
   * The faults in force, read from storage once and then kept: every call of the sim consults them,
   * and only #writeFaults changes them (which drops this copy).
   */
  #faultsKept: SimFaults | null = null;

  #faults(): SimFaults {
    return (this.#faultsKept ??= Object.freeze(this.#readFaults()));
  }

  #readFaults(): SimFaults {
    const row = this.ctx.storage.sql.exec<Record<string, number>>(`SELECT * FROM faults WHERE id = 1`).toArray()[0];
    if (!row) return { ...SIM_DEFAULT_FAULTS };
    const out: Record<string, number> = {};
    for (const c of FAULT_COLUMNS) out[c] = row[c]!;
    return out as SimFaults;
  }

  async #putFaults(request: Request): Promise<Response> {
    const body = await readJson(request);
    const current = this.#faults();
    const merged = mergeFaults(current, body);
    if (!merged.ok) throw badRequest(merged.message);
    // A seed given (even the same one) restarts the sequence: the run is reproducible from here.
    const reseed = typeof body === "object" && body !== null && "seed" in body;
    this.#writeFaults(merged.faults, reseed);
    return json(merged.faults);
  }

  #writeFaults(faults: SimFaults, reseed: boolean): void {
    const cols = FAULT_COLUMNS;
    const sql = this.ctx.storage.sql;
    const state = reseed ? faults.seed : (sql.exec<{ rng_state: number }>(`SELECT rng_state FROM faults WHERE id = 1`).toArray()[0]?.rng_state ?? faults.seed);
    sql.exec(
      `INSERT OR REPLACE INTO faults (id, ${cols.join(", ")}, rng_state) VALUES (1, ${cols.map(() => "?").join(", ")}, ?)`,
      ...cols.map((c) => faults[c]),
      state,
    );
    this.#faultsKept = null;
    this.#rngState = null;
  }

  /** The next number of the stored PRNG, in [0, 1). */
  #rand(): number {
    const sql = this.ctx.storage.sql;
    const state = (this.#rngState ??= sql.exec<{ rng_state: number }>(`SELECT rng_state FROM faults WHERE id = 1`).one().rng_state);
    const [value, next] = nextRandom(state);
    // Written through, so a restarted object goes on with the same sequence.
    sql.exec(`UPDATE faults SET rng_state = ? WHERE id = 1`, next);
    this.#rngState = next;
    return value;
  }

  /** The PRNG's state as last written (null: read it from storage). */
  #rngState: number | null = null;

  /** True with probability `rate`; draws nothing when the rate is 0, so unused faults do not shift the sequence. */
  #chance(rate: number): boolean {
    return rate > 0 && this.#rand() < rate;
  }

  #reset(): void {
    const sql = this.ctx.storage.sql;
    this.ctx.storage.transactionSync(() => {
      sql.exec(`DELETE FROM machine_intervals`);
      sql.exec(`DELETE FROM machine_refusals`);
      sql.exec(`DELETE FROM machine_execs`);
      sql.exec(`DELETE FROM machine_files`);
      sql.exec(`DELETE FROM machine_outputs`);
      sql.exec(`DELETE FROM webhook_outbox`);
      sql.exec(`DELETE FROM machines`);
      sql.exec(`DELETE FROM volume_writes`);
      sql.exec(`DELETE FROM volumes`);
      this.#writeFaults(SIM_DEFAULT_FAULTS, true);
    });
  }

  #ensureSchema(): void {
    const sql = this.ctx.storage.sql;
    sql.exec(`CREATE TABLE IF NOT EXISTS sim_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)`);
    const version = sql.exec<{ value: number }>(`SELECT value FROM sim_meta WHERE key = 'schema_version'`).toArray()[0]?.value ?? 0;
    for (let v = version; v < MIGRATIONS.length; v++) {
      this.ctx.storage.transactionSync(() => {
        for (const statement of MIGRATIONS[v]!) sql.exec(statement);
        sql.exec(`INSERT OR REPLACE INTO sim_meta (key, value) VALUES ('schema_version', ?)`, v + 1);
      });
    }
    // A new object's faults row, once every column exists.
    if (version === 0) this.#writeFaults(SIM_DEFAULT_FAULTS, true);
  }

  // --- the market -----------------------------------------------------------------------------

  async #config(): Promise<SimConfig> {
    const stored = await this.ctx.storage.get<SimConfig>("config");
    return stored ?? { offers: intSetting(this.env.LESSOR_SIM_OFFERS, SIM_DEFAULT_OFFERS), seed: 1 };
  }

  async #putConfig(request: Request): Promise<Response> {
    const body = (await readJson(request)) as Partial<SimConfig> | null;
    const current = await this.#config();
    const offers = body?.offers ?? current.offers;
    const seed = body?.seed ?? current.seed;
    if (!Number.isSafeInteger(offers) || offers < 1 || offers > SIM_MAX_OFFERS || !Number.isSafeInteger(seed)) {
      throw new SimHttpError(400, "invalid_config", `offers must be 1..${SIM_MAX_OFFERS}`);
    }
    const config = { offers, seed };
    await this.ctx.storage.put("config", config);
    return json(config);
  }

  #marketOf(config: SimConfig): { offers: SimOffer[]; byId: Map<string, SimOffer> } {
    const key = `${config.offers}/${config.seed}`;
    if (this.#market?.key !== key) {
      const offers = generateSimOffers(config.offers, config.seed);
      this.#market = { key, offers, byId: new Map(offers.map((o) => [o.offer_id, o])) };
    }
    return this.#market;
  }
}

function clockOf(r: MachineRow): SimMachineClock {
  return {
    status: r.status,
    since: r.status_since,
    provision_ms: r.provision_ms,
    boot_ms: r.boot_ms,
    boot_fails: r.boot_fails === 1,
    vanish_after_ms: r.vanish_after_ms,
    vanish_at: r.vanish_at,
    destroyed_at: r.destroyed_at,
    vanished: r.vanished === 1,
    preempt_after_ms: r.preempt_after_ms,
    preempt_at: r.preempt_at,
    interrupted: r.interrupted === 1,
  };
}

/**
 * The machine's `cmd` with `$LESSOR_RESTART` (or `${LESSOR_RESTART}`) replaced by its environment's
 * value (docs/sim.md "Spot"; empty when unset, as a shell's is): the one variable the sim's language
 * reads, so that a job's attempts can tell themselves apart. The value is lessor's own, a number.
 */
export function withRestartNumber(cmd: string, envJson: string | null): string {
  const value = envJson === null ? "" : ((JSON.parse(envJson) as Record<string, string>).LESSOR_RESTART ?? "");
  const safe = /^[0-9]*$/.test(value) ? value : "";
  return cmd.replace(/\$\{LESSOR_RESTART\}|\$LESSOR_RESTART(?![A-Za-z0-9_])/g, safe);
}

/** A stored `cmd` as a program: it parsed when the machine was created (checkCmd), and an exec's before it was stored. */
function programOf(cmd: string): ScriptProgram {
  const parsed = parseScript(cmd);
  if (!parsed.ok) throw new Error(`sim: a stored cmd does not parse: ${scriptErrorText(parsed.error)}`);
  return parsed.program;
}

/** An exec's command line, sent base64 (UTF-8) as to a real agent. */
function decodeBase64(b64: string): string {
  return new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
}

function intervalOf(r: IntervalRow): SimInterval {
  return { status: r.status, from: r.from_ms, to: r.to_ms };
}

/** A create's `ports` as stored: distinct TCP ports (1 to 65535), at most MAX_PORTS, or 400. */
function simPortsJson(ports: unknown): string {
  const ok =
    Array.isArray(ports) &&
    ports.length <= MAX_PORTS &&
    ports.every((p) => Number.isSafeInteger(p) && (p as number) >= 1 && (p as number) <= 65_535) &&
    new Set(ports).size === ports.length;
  if (!ok) throw badRequest(`ports must be a list of at most ${MAX_PORTS} distinct TCP ports (1 to 65535)`);
  return JSON.stringify(ports);
}

/** A create's `env` as stored: an object of string values under shell names, or 400. */
function simEnvJson(env: unknown): string {
  const ok =
    typeof env === "object" &&
    env !== null &&
    !Array.isArray(env) &&
    Object.entries(env).every(([name, value]) => ENV_NAME.test(name) && typeof value === "string");
  const json = ok ? JSON.stringify(env) : "";
  if (!ok || json.length > MAX_ENV_JSON) throw badRequest(`env must be an object of string values under shell names, at most ${MAX_ENV_JSON} characters as JSON`);
  return json;
}

function machineJson(r: MachineRow): SimMachineJson {
  return {
    id: r.id,
    label: r.label,
    status: r.status,
    offer_id: r.offer_id,
    host_id: r.host_id,
    region: r.region,
    gpu_name: r.gpu_name,
    num_gpus: r.num_gpus,
    price_per_hour: r.price_per_hour,
    disk_price_per_hour: r.disk_price_per_hour,
    image: r.image,
    cmd: r.cmd,
    ports: JSON.parse(r.ports) as number[],
    created_at: r.created_at,
    status_since: r.status_since,
    destroyed_at: r.destroyed_at,
    interrupted: r.interrupted === 1,
  };
}

function msParam(params: URLSearchParams, name: string, fallback: number): number {
  const raw = params.get(name);
  if (raw === null || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw badRequest(`${name} must be milliseconds since the epoch`);
  return n;
}

async function readJson(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest("body is not JSON");
  }
}

/** A machine runs its `cmd` in the sim's command language (script.ts, docs/sim.md): one that does not parse is refused. */
function checkCmd(cmd: unknown): void {
  if (typeof cmd !== "string" || cmd.length > MAX_CMD) throw new SimHttpError(400, "invalid_cmd", `cmd must be a string of at most ${MAX_CMD} characters`);
  const parsed = parseScript(cmd);
  if (!parsed.ok) throw new SimHttpError(400, "invalid_cmd", `cmd: ${scriptErrorText(parsed.error)}`);
}

/** Where a machine mounts a volume: an absolute path, as the command language writes one (script.ts). */
const MOUNT_PATH = /^(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)+$/;

function badRequest(message: string): SimHttpError {
  return new SimHttpError(400, "invalid_request", message);
}

function randomHex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function errorResponse(e: SimHttpError): Response {
  return json({ error: { code: e.code, message: e.message, ...e.extra } }, e.status, e.headers);
}

function modelErrorResponse(e: ModelError, headers: Record<string, string> = {}): Response {
  return json(e.body, e.status, headers);
}

/** A request's body as text, or null when it is longer than `max` bytes. */
async function boundedText(request: Request, max: number): Promise<string | null> {
  if (Number(request.headers.get("content-length") ?? 0) > max) return null;
  const bytes = await request.arrayBuffer();
  return bytes.byteLength > max ? null : new TextDecoder().decode(bytes);
}

function sleepUntil(at: number): Promise<void> {
  const ms = at - Date.now();
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}
