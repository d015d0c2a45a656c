/**
 * A lease's machine agent as its lease's object sees it (docs/agent.md): the lease token's hash,
 * liveness, the command's exit, its log and the exec/signal commands queued for the machine, in
 * the object's own storage (src/occupant/schema.ts). The object holds one `Occupant` and its RPC
 * methods delegate here, so the lease's own code and tables are untouched: an agent's call never
 * takes the lease's writer lock, and a heartbeat is liveness, never the lease's activity by
 * itself (requests that the model server's metrics it carries show are: src/lease/model-metrics.ts).
 */
import { newId } from "../ids";
import { getMeta, setMeta } from "../object-meta";
import { readModelMetrics, type ModelCounters } from "../lease/model-metrics";
import type { AgentFacts } from "../lease/state";
import { chunksToDrop, droppedMarker, newlines, planAppend, tailLines, type StoredChunk } from "./logs";
import { COMMAND_KINDS, ensureAgentSchema, hasTable, makeTable, type LazyTable } from "./schema";
import { beatBound, beatWritten } from "./heartbeat";
import type { Followers } from "../events/sse";
import { logFollowers, type FollowEnd, type LogItem, type StoredLogChunk } from "./follow";
import { hashLeaseToken, looksLikeEnrollToken, mayEnroll, mintEnrollToken, mintLeaseToken, verifyLeaseToken } from "./token";
import { sha256Hex } from "../ids";

export const COMMAND_SIGNALS = ["TERM", "KILL"] as const;
export type CommandSignal = (typeof COMMAND_SIGNALS)[number];
export type CommandKind = (typeof COMMAND_KINDS)[number];
/** The longest a `GET /v1/agent/commands` waits for a command. */
export const MAX_WAIT_MS = 25_000;
/** Commands queued and not yet answered, at most. */
export const MAX_OPEN_COMMANDS = 100;
/** A delivered command with no result is delivered again after this long (its answer may have been lost). */
export const REDELIVER_MS = 60_000;
/** An exec command's result keeps at most this much output. */
export const COMMAND_OUTPUT_MAX = 1024 * 1024;

export type AgentCall =
  /**
   * `metrics`: on a machine that serves a model, the text of its server's `GET /metrics` (null:
   * the agent could not read it); absent: the agent read none (no model, or an older agent).
   */
  | { op: "heartbeat"; metrics?: string | null }
  /** The machine's first call, with its enrollment token: answers the lease token (token.ts `mayEnroll`). */
  | { op: "enroll"; nonce: string }
  | { op: "log"; seq: number; data: Uint8Array }
  | { op: "exit"; code: number | null; signal: string | null }
  /** `collect`: the agent can carry out `collect` (agent.sh running a command says so; docs/agent.md). */
  | { op: "commands"; wait_ms: number; collect?: boolean }
  | { op: "result"; id: string; exit_code: number | null; output: string }
  /** The token is good and the lease not released: the agent may store bytes (src/artifacts/store.ts). */
  | { op: "storage" }
  /** The outputs' manifest (docs/artifacts.md); a new one replaces the one before. */
  | { op: "outputs"; files: OutputFile[] }
  /** A file of the outputs is stored; taken after the release too (its upload began before). */
  | { op: "stored"; path: string; size: number; sha256: string };

export interface OutputFile {
  path: string;
  size: number;
  sha256: string;
}

/** What the manifest says came back: every file stored, or those still missing. */
export interface OutputsState {
  files: number;
  bytes: number;
  missing: string[];
  /** How many are missing (the list may be cut by the caller). */
  missing_count: number;
}

/** What a heartbeat's metrics said: requests on the model server, none, or nothing lessor can read. */
export type ModelActivity = "active" | "idle" | "unobservable";

export interface AgentExit {
  code: number | null;
  signal: string | null;
  at: string;
}

/** A command as the agent receives it: the exec's command line base64 (UTF-8), so a shell can read the answer. */
export interface DeliveredCommand {
  id: string;
  kind: CommandKind;
  signal: CommandSignal | null;
  cmd_base64: string | null;
}

export interface CommandView {
  id: string;
  kind: CommandKind;
  arg: string;
  state: "queued" | "delivered" | "done";
  created_at: string;
  exit_code: number | null;
  output: string | null;
}

export type NewCommand = { kind: "exec"; cmd: string } | { kind: "signal"; signal: CommandSignal } | { kind: "collect" };

/** A call refused: its status, stable code and message; a 429's details and Retry-After. */
export type AgentRefusal = {
  ok: false;
  status: 401 | 404 | 410 | 429;
  code: string;
  message: string;
  details?: Record<string, unknown>;
  retry_after_s?: number;
};

export type AgentAnswer =
  | { ok: true; op: "heartbeat"; last_heartbeat_at: string; model_activity: ModelActivity | null }
  | { ok: true; op: "enroll"; token: string }
  | { ok: true; op: "log"; seq: number; stored: boolean; duplicate: boolean }
  | { ok: true; op: "exit"; recorded: boolean; exit: AgentExit }
  | { ok: true; op: "commands"; commands: DeliveredCommand[] }
  | { ok: true; op: "result"; recorded: boolean; command: CommandView }
  | { ok: true; op: "storage"; org_id: string }
  | { ok: true; op: "outputs" | "stored"; outputs: OutputsState }
  | AgentRefusal;

/**
 * What a caller's limits say of a call once its token is known good: a refusal, a slot to give
 * back when the call ends (a long poll's), or null (lease-side: src/lease/occupant-side.ts).
 */
export type AgentAdmit = (call: AgentCall) => Promise<AgentRefusal | (() => void) | null>;

export interface AgentSnapshot {
  token_minted_at: string | null;
  last_heartbeat_at: string | null;
  exit: AgentExit | null;
  /** The log as text: the dropped-output marker first when anything was dropped. */
  log: string;
  log_bytes: number;
  dropped_bytes: number;
  commands: CommandView[];
}

interface AgentRow {
  token_hash: string | null;
  token_minted_at: number | null;
  last_heartbeat_at: number | null;
  last_output_at: number | null;
  exit_code: number | null;
  exit_signal: string | null;
  exit_at: number | null;
  log_bytes: number;
  log_chunks: number;
  dropped_bytes: number;
  dropped_through: number;
  metrics_read_at: number | null;
  metrics_failed_at: number | null;
  metrics_counters: string | null;
  enroll_hash: string | null;
  enroll_open_until: number | null;
  enroll_nonce_hash: string | null;
  collects_at: number | null;
  collected_at: number | null;
}

interface CommandRow {
  id: string;
  kind: CommandKind;
  arg: string;
  state: "queued" | "delivered" | "done";
  created_at: number;
  exit_code: number | null;
  output: string | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The one refusal of a token: wrong, missing, another lease's, or no such lease, all alike. */
export const REFUSED = { ok: false, status: 401, code: "unauthenticated", message: "the lease token is not valid for this lease" } as const;
const RELEASED = { ok: false, status: 410, code: "lease_released", message: "the lease is released; the agent should exit" } as const;

export class Occupant {
  readonly #storage: DurableObjectStorage;
  readonly #sql: SqlStorage;
  #ready = false;
  /** Long polls waiting for a command (in memory: a poll outlives no object). */
  readonly #waiters = new Set<() => void>();
  /** Users waiting for a command's result, by command id (in memory, like the polls). */
  readonly #resultWaiters = new Map<string, Set<() => void>>();
  /** Kills waiting for the command's exit (in memory, like the polls). */
  readonly #exitWaiters = new Set<() => void>();
  /** The open follows of the log; made by the first. */
  #followers: Followers<LogItem> | null = null;
  /** When the object started: a heartbeat the object before it held in memory came before (heartbeat.ts `beatBound`). */
  readonly #startedAt: number;
  /** The newest heartbeat when it is not written (heartbeat.ts `beatWritten`); null: none held. */
  #heldBeat: number | null = null;
  /** Whether this object has heard a heartbeat itself (written or held). */
  #heardBeat = false;

  constructor(storage: DurableObjectStorage, startedAt = Date.now()) {
    this.#storage = storage;
    this.#sql = storage.sql;
    this.#startedAt = startedAt;
  }

  #ensure() {
    if (this.#ready) return;
    ensureAgentSchema(this.#sql);
    this.#ready = true;
  }

  /** The lazy tables known to exist (schema.ts `LAZY_TABLES`): they are never dropped. */
  readonly #tables = new Set<LazyTable>();

  /** Whether table `name` exists; `make`: made now when it does not (its first write). */
  #table(name: LazyTable, make = false): boolean {
    if (this.#tables.has(name)) return true;
    this.#ensure();
    if (make) makeTable(this.#sql, name);
    else if (!hasTable(this.#sql, name)) return false;
    this.#tables.add(name);
    return true;
  }

  #row(): AgentRow {
    this.#ensure();
    return this.#sql.exec<AgentRow & Record<string, SqlStorageValue>>(`SELECT * FROM agent WHERE id = 1`).one();
  }

  /**
   * A new token for the lease's machine, handed over directly (the operator's test route); the one
   * before stops working, and so does the machine's enrollment, so no agent rotates it away. The
   * plaintext is returned once.
   */
  async mint(now: number): Promise<string> {
    const token = mintLeaseToken();
    const hash = await hashLeaseToken(token);
    this.#ensure();
    this.#sql.exec(
      `UPDATE agent SET token_hash = ?, token_minted_at = ?, enroll_hash = NULL, enroll_open_until = NULL, enroll_nonce_hash = NULL WHERE id = 1`,
      hash,
      now,
    );
    return token;
  }

  /**
   * A new enrollment token for a machine's create, open until `openUntil` (token.ts): the lease
   * token before stops working, as the machine before is gone. The plaintext is returned once.
   */
  async mintEnrollment(openUntil: number): Promise<string> {
    const token = mintEnrollToken();
    const hash = await hashLeaseToken(token);
    this.#ensure();
    this.#sql.exec(`UPDATE agent SET token_hash = NULL, enroll_hash = ?, enroll_open_until = ?, enroll_nonce_hash = NULL WHERE id = 1`, hash, openUntil);
    return token;
  }

  /**
   * A job's next attempt on a new machine (src/lease/recovery.ts). The lost machine's agent no
   * longer speaks for the lease: its lease token and its enrollment stop working now, not only when
   * the next machine's enrollment is minted (a call it had under way as its host went would
   * otherwise land in the backoff between). And the exit the attempt before reported, if its agent
   * reported one as its machine was taken, is not this attempt's: the first report of the new
   * attempt is the one kept (the lease's exit is its last attempt's).
   */
  nextAttempt(): void {
    this.#ensure();
    this.#sql.exec(
      `UPDATE agent SET token_hash = NULL, enroll_hash = NULL, enroll_open_until = NULL, enroll_nonce_hash = NULL,
         exit_code = NULL, exit_signal = NULL, exit_at = NULL WHERE id = 1`,
    );
  }

  /** Lessor starts the machine again: a new run of its agent may enroll until `openUntil`. */
  reopenEnrollment(openUntil: number): void {
    this.#ensure();
    this.#sql.exec(`UPDATE agent SET enroll_open_until = ? WHERE id = 1 AND enroll_hash IS NOT NULL`, openUntil);
  }

  /**
   * One call of the lease's agent. `leaseState` reads the lease's state now (null: no lease). The
   * token is checked first, so a caller without it learns nothing, not even that the lease ended;
   * then `admit`, the caller's limits.
   */
  async call(leaseState: () => string | null, token: string, call: AgentCall, admit?: AgentAdmit): Promise<AgentAnswer> {
    if (leaseState() === null) return REFUSED;
    const enrolling = call.op === "enroll" ? await enrollment(token, call.nonce) : null;
    if (enrolling ? !this.#mayEnroll(enrolling) : !(await verifyLeaseToken(token, this.#row().token_hash))) return REFUSED;
    if (leaseState() === "released" && call.op !== "stored") return RELEASED;
    const admitted = admit ? await admit(call) : null;
    if (admitted !== null && typeof admitted === "object") return admitted;
    try {
      return call.op === "enroll" ? this.#enroll(enrolling!) : await this.#carryOut(leaseState, call);
    } finally {
      admitted?.();
    }
  }

  #mayEnroll(e: Enrolling): boolean {
    return e.token_hash !== null && mayEnroll(this.#row(), e.token_hash, e.nonce_hash, Date.now());
  }

  /**
   * The agent enrolled: the new lease token (the one before stops working), the enrollment closed
   * until lessor starts the machine again, and the nonce kept, so the same agent may enroll again.
   * Checked again and written with no wait between, so two enrolls at once cannot both pass.
   */
  #enroll(e: Enrolling): AgentAnswer {
    if (!this.#mayEnroll(e)) return REFUSED;
    this.#sql.exec(
      `UPDATE agent SET token_hash = ?, token_minted_at = ?, enroll_open_until = NULL, enroll_nonce_hash = ? WHERE id = 1`,
      e.next_hash,
      Date.now(),
      e.nonce_hash,
    );
    return { ok: true, op: "enroll", token: e.next };
  }

  async #carryOut(leaseState: () => string | null, call: Exclude<AgentCall, { op: "enroll" }>): Promise<AgentAnswer> {
    const now = Date.now();
    switch (call.op) {
      case "heartbeat": {
        // With the model server's metrics the beat is written with the read, in one row; alone it may be held (`#beat`).
        if (call.metrics === undefined) this.#beat(now);
        const model_activity = call.metrics === undefined ? null : this.#metrics(call.metrics, now);
        return { ok: true, op: "heartbeat", last_heartbeat_at: iso(now)!, model_activity };
      }
      case "log": {
        const appended = this.#appendLog(call.seq, call.data, now);
        if (appended.stored) this.#followers?.push({ seq: call.seq, data: call.data });
        return { ok: true, op: "log", seq: call.seq, ...appended };
      }
      case "exit":
        return this.#exit(call.code, call.signal, now);
      case "commands": {
        // Heard: it can collect the outputs, so a release waits for them (decide.ts `collectsOutputs`).
        if (call.collect) this.#sql.exec(`UPDATE agent SET collects_at = ? WHERE id = 1`, now);
        const commands = await this.#poll(Math.min(MAX_WAIT_MS, Math.max(0, call.wait_ms)));
        if (leaseState() === "released") return RELEASED;
        return { ok: true, op: "commands", commands };
      }
      case "result":
        return this.#result(call.id, call.exit_code, call.output, now);
      case "storage":
        // The org is the lease's; the object's side fills it in (src/lease/occupant-side.ts).
        return { ok: true, op: "storage", org_id: "" };
      case "outputs":
        this.#storage.transactionSync(() => {
          this.#table("outputs", true);
          setMeta(this.#sql, "outputs_at", now);
          const stored = new Set(this.#sql.exec<{ k: string }>(`SELECT path || ' ' || sha256 AS k FROM outputs WHERE stored = 1`).toArray().map((r) => r.k));
          this.#sql.exec(`DELETE FROM outputs`);
          for (const f of call.files) {
            this.#sql.exec(`INSERT OR REPLACE INTO outputs (path, size, sha256, stored) VALUES (?, ?, ?, ?)`, f.path, f.size, f.sha256, stored.has(`${f.path} ${f.sha256}`) ? 1 : 0);
          }
        });
        return { ok: true, op: "outputs", outputs: this.outputs()! };
      case "stored":
        if (this.#table("outputs")) this.#sql.exec(`UPDATE outputs SET stored = 1 WHERE path = ? AND size = ? AND sha256 = ?`, call.path, call.size, call.sha256);
        return { ok: true, op: "stored", outputs: this.outputs() ?? { files: 0, bytes: 0, missing: [], missing_count: 0 } };
    }
  }

  /** What the manifest says came back; null: no manifest was sent. */
  outputs(limit = 1000): OutputsState | null {
    // No table: no manifest was ever sent (its first makes it).
    if (!this.#table("outputs")) return null;
    const t = this.#sql.exec<{ files: number; bytes: number | null; missing: number | null }>(
      `SELECT COUNT(*) AS files, SUM(size) AS bytes, SUM(1 - stored) AS missing FROM outputs`,
    ).one();
    if (t.files === 0 && getMeta(this.#sql, "outputs_at") === null) return null;
    const missing = this.#sql.exec<{ path: string }>(`SELECT path FROM outputs WHERE stored = 0 ORDER BY path LIMIT ?`, limit).toArray().map((r) => r.path);
    return { files: t.files, bytes: t.bytes ?? 0, missing, missing_count: t.missing ?? 0 };
  }

  /** A manifest came and its event is not written yet. */
  outputsPending(): boolean {
    this.#ensure();
    return getMeta(this.#sql, "outputs_at") !== null && getMeta(this.#sql, "outputs_reported") === null;
  }

  /**
   * Whether the outputs' event is yet to be written, marking it written: the lease tells of its
   * outputs once, uploaded or incomplete, whichever comes first.
   */
  claimOutputsEvent(): boolean {
    this.#ensure();
    if (getMeta(this.#sql, "outputs_reported") !== null) return false;
    setMeta(this.#sql, "outputs_reported", 1);
    return true;
  }

  /** Stores a chunk once (by `seq`), then drops the oldest chunks past the caps. */
  #appendLog(seq: number, data: Uint8Array, now: number): { stored: boolean; duplicate: boolean } {
    return this.#storage.transactionSync(() => {
      const a = this.#row();
      this.#table("agent_logs", true);
      const has = this.#sql.exec(`SELECT 1 FROM agent_logs WHERE seq = ?`, seq).toArray().length > 0;
      const plan = planAppend({ bytes: a.log_bytes, chunks: a.log_chunks, dropped_through: a.dropped_through, has_seq: has }, seq, data.byteLength);
      if (plan.duplicate) return { stored: false, duplicate: true };
      this.#sql.exec(`INSERT INTO agent_logs (seq, at, data) VALUES (?, ?, ?)`, seq, now, data);
      const cursor = this.#sql.exec<{ seq: number; bytes: number }>(`SELECT seq, length(data) AS bytes FROM agent_logs ORDER BY seq`);
      const drop = chunksToDrop(rows(cursor), plan.excess_bytes, plan.excess_chunks);
      const droppedBytes = drop.reduce((sum, c) => sum + c.bytes, 0);
      const stored = !drop.some((c) => c.seq === seq);
      const through = drop.length > 0 ? drop[drop.length - 1]!.seq : a.dropped_through;
      if (drop.length > 0) this.#sql.exec(`DELETE FROM agent_logs WHERE seq <= ?`, through);
      this.#sql.exec(
        `UPDATE agent SET log_bytes = ?, log_chunks = ?, dropped_bytes = dropped_bytes + ?, dropped_through = ?, last_output_at = ? WHERE id = 1`,
        a.log_bytes + data.byteLength - droppedBytes,
        a.log_chunks + 1 - drop.length,
        droppedBytes,
        Math.max(a.dropped_through, through),
        stored ? now : a.last_output_at,
      );
      return { stored, duplicate: false };
    });
  }

  /** The first report wins; a repeat answers what was recorded. */
  #exit(code: number | null, signal: string | null, now: number): AgentAnswer {
    const written = this.#sql.exec(
      `UPDATE agent SET exit_code = ?, exit_signal = ?, exit_at = ? WHERE id = 1 AND exit_at IS NULL`,
      code,
      signal,
      now,
    ).rowsWritten;
    const a = this.#row();
    if (written > 0) {
      this.#followers?.end();
      for (const wake of [...this.#exitWaiters]) wake();
    }
    return { ok: true, op: "exit", recorded: written > 0, exit: { code: a.exit_code, signal: a.exit_signal, at: iso(a.exit_at)! } };
  }

  /** Commands due for delivery now, or the first queued within `waitMs`. */
  async #poll(waitMs: number): Promise<DeliveredCommand[]> {
    const due = this.#deliver(Date.now());
    if (due.length > 0 || waitMs === 0) return due;
    await waitIn(this.#waiters, waitMs);
    return this.#deliver(Date.now());
  }

  /** Marks the queued commands (and those delivered long ago without a result) delivered, and answers them. */
  #deliver(now: number): DeliveredCommand[] {
    if (!this.#table("agent_commands")) return [];
    const rows = this.#sql
      .exec<Pick<CommandRow, "id" | "kind" | "arg">>(
        `SELECT id, kind, arg FROM agent_commands
          WHERE state = 'queued' OR (state = 'delivered' AND delivered_at <= ?)
          ORDER BY n LIMIT ?`,
        now - REDELIVER_MS,
        MAX_OPEN_COMMANDS,
      )
      .toArray();
    for (const r of rows) this.#sql.exec(`UPDATE agent_commands SET state = 'delivered', delivered_at = ? WHERE id = ?`, now, r.id);
    return rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      signal: r.kind === "signal" ? (r.arg as CommandSignal) : null,
      cmd_base64: r.kind === "exec" ? base64(r.arg) : null,
    }));
  }

  #result(id: string, exitCode: number | null, output: string, now: number): AgentAnswer {
    if (!this.#table("agent_commands")) return { ok: false, status: 404, code: "not_found", message: `command ${id} was not found` };
    const written = this.#sql.exec(
      `UPDATE agent_commands SET state = 'done', exit_code = ?, output = ?, done_at = ? WHERE id = ? AND state != 'done'`,
      exitCode,
      output,
      now,
      id,
    ).rowsWritten;
    const command = this.#commands(id)[0];
    if (!command) return { ok: false, status: 404, code: "not_found", message: `command ${id} was not found` };
    // The outputs are uploaded (or failed for good): a release waiting for them goes on.
    if (written > 0 && command.kind === "collect") this.#sql.exec(`UPDATE agent SET collected_at = ? WHERE id = 1`, now);
    if (written > 0) for (const wake of [...(this.#resultWaiters.get(id) ?? [])]) wake();
    return { ok: true, op: "result", recorded: written > 0, command };
  }

  /** Queues a command for the machine; null when MAX_OPEN_COMMANDS are open already. */
  queue(command: NewCommand, now: number): CommandView | null {
    this.#table("agent_commands", true);
    const open = this.#sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM agent_commands WHERE state != 'done'`).one().n;
    if (open >= MAX_OPEN_COMMANDS) return null;
    const id = newId("cmd", now);
    const arg = command.kind === "exec" ? command.cmd : command.kind === "signal" ? command.signal : "";
    this.#sql.exec(
      `INSERT INTO agent_commands (id, n, kind, arg, state, created_at)
       VALUES (?, (SELECT COALESCE(MAX(n), 0) + 1 FROM agent_commands), ?, ?, 'queued', ?)`,
      id,
      command.kind,
      arg,
      now,
    );
    for (const wake of [...this.#waiters]) wake();
    return this.#commands(id)[0]!;
  }

  #commands(id?: string): CommandView[] {
    if (!this.#table("agent_commands")) return [];
    const rows = id
      ? this.#sql.exec<CommandRow & Record<string, SqlStorageValue>>(`SELECT * FROM agent_commands WHERE id = ?`, id)
      : this.#sql.exec<CommandRow & Record<string, SqlStorageValue>>(`SELECT * FROM agent_commands ORDER BY n`);
    return rows.toArray().map((r) => ({
      id: r.id,
      kind: r.kind,
      arg: r.arg,
      state: r.state,
      created_at: iso(r.created_at)!,
      exit_code: r.exit_code,
      output: r.output,
    }));
  }

  /**
   * A heartbeat without metrics: written when heartbeat.ts `beatWritten` says so, else held in
   * memory, where `facts` reads it.
   */
  #beat(now: number): void {
    const a = this.#row();
    this.#heardBeat = true;
    if (beatWritten(a.last_heartbeat_at, a.token_minted_at, now)) {
      this.#sql.exec(`UPDATE agent SET last_heartbeat_at = ? WHERE id = 1`, now);
      this.#heldBeat = null;
    } else this.#heldBeat = now;
  }

  /**
   * A heartbeat with one read of the model server's metrics, judged against the counters of the
   * read before. The read is written at every heartbeat (its counters are what the next is judged
   * against), and the heartbeat with it, in the same row write: the rules compare the two times
   * (decide.ts `unreadBeat`).
   */
  #metrics(text: string | null, now: number): ModelActivity {
    const a = this.#row();
    const read = readModelMetrics(text, a.metrics_counters === null ? null : (JSON.parse(a.metrics_counters) as ModelCounters));
    const counters = read.counters === null ? null : JSON.stringify(read.counters);
    if (read.observable) this.#sql.exec(`UPDATE agent SET last_heartbeat_at = ?, metrics_read_at = ?, metrics_counters = ? WHERE id = 1`, now, now, counters);
    else this.#sql.exec(`UPDATE agent SET last_heartbeat_at = ?, metrics_failed_at = ? WHERE id = 1`, now, now);
    this.#heardBeat = true;
    this.#heldBeat = null;
    return !read.observable ? "unobservable" : read.active ? "active" : "idle";
  }

  /** The agent's last heartbeat: the one held in memory when it is newer than the one stored. */
  #lastBeat(a: AgentRow): number | null {
    return this.#heldBeat !== null && this.#heldBeat > (a.last_heartbeat_at ?? 0) ? this.#heldBeat : a.last_heartbeat_at;
  }

  /**
   * What the lease's rules read of the agent (decide.ts): its last heartbeat (and, after a restart,
   * how late one lost with the object before may have come), last output and exit, its metrics reads.
   */
  facts(): AgentFacts {
    const a = this.#row();
    return {
      metrics_read_at: a.metrics_read_at,
      metrics_failed_at: a.metrics_failed_at,
      last_heartbeat_at: this.#lastBeat(a),
      beat_bound: beatBound(a.last_heartbeat_at, this.#startedAt, this.#heardBeat),
      last_output_at: a.last_output_at,
      exit: a.exit_at === null ? null : { code: a.exit_code, signal: a.exit_signal, at: a.exit_at },
      collects_at: a.collects_at,
      collected_at: a.collected_at,
    };
  }

  /** One command with its result, or null when the lease has no such command. */
  command(id: string): CommandView | null {
    this.#ensure();
    return this.#commands(id)[0] ?? null;
  }

  /** The command once it has a result, or as it is after `waitMs`; null: no such command. */
  async awaitCommand(id: string, waitMs: number): Promise<CommandView | null> {
    const now = this.command(id);
    if (!now || now.state === "done" || waitMs <= 0) return now;
    const waiting = this.#resultWaiters.get(id) ?? new Set<() => void>();
    this.#resultWaiters.set(id, waiting);
    await waitIn(waiting, waitMs);
    if (waiting.size === 0) this.#resultWaiters.delete(id);
    return this.command(id);
  }

  /** Resolves once an exit is recorded, or after `waitMs`, whichever comes first. */
  awaitExit(waitMs: number): Promise<void> {
    return waitIn(this.#exitWaiters, waitMs);
  }

  /**
   * The last `lines` lines of the log as text (the dropped-output marker counts as its first line).
   * Chunks are read newest first, only as far back as the lines asked for reach, and, with
   * `maxBytes`, no further back than that many bytes need (a log without newlines is one line:
   * an excerpt of it, src/lease/excerpt.ts, must not read all of it).
   */
  tail(lines: number | null, maxBytes: number | null = null): { text: string; log_bytes: number; dropped_bytes: number } {
    const a = this.#row();
    const parts: Uint8Array[] = [];
    let seen = 0;
    let bytes = 0;
    let all = true;
    for (const c of this.#logs<{ data: ArrayBuffer }>(`SELECT data FROM agent_logs ORDER BY seq DESC`)) {
      // One more newline than lines asked for: the last line may end with one. A few bytes more
      // than asked for: a character may begin before the cut.
      if ((lines !== null && seen > lines) || (maxBytes !== null && bytes >= maxBytes + 4)) {
        all = false;
        break;
      }
      const data = new Uint8Array(c.data);
      parts.push(data);
      seen += newlines(data);
      bytes += data.byteLength;
    }
    const joined = new Uint8Array(bytes);
    let at = bytes;
    for (const p of parts) {
      at -= p.byteLength;
      joined.set(p, at);
    }
    const marker = all && a.dropped_bytes > 0 ? droppedMarker(a.dropped_bytes) : "";
    const text = marker + new TextDecoder().decode(joined);
    return { text: lines === null ? text : tailLines(text, lines), log_bytes: a.log_bytes, dropped_bytes: a.dropped_bytes };
  }

  /** A new follow of the log after `cursor` (-1: from its start); `released` says whether the lease is released now. */
  follow(cursor: number, released: () => boolean, keepalive: () => void): ReadableStream<Uint8Array> {
    this.#ensure();
    this.#followers ??= logFollowers(
      {
        chunksAfter: (after, maxBytes) => this.#chunksAfter(after, maxBytes),
        dropped: () => {
          const a = this.#row();
          return { through: a.dropped_through, bytes: a.dropped_bytes };
        },
        ended: (): FollowEnd | null => {
          const a = this.#row();
          if (a.exit_at !== null) return { reason: "exited", exit: { code: a.exit_code, signal: a.exit_signal, at: iso(a.exit_at)! } };
          return released() ? { reason: "released" } : null;
        },
      },
      keepalive,
    );
    return this.#followers.open(cursor);
  }

  /** The lease was released: every follow ends. */
  released(): void {
    this.#followers?.end();
  }

  /** Rows of the log; none when no chunk was ever written (the first makes its table). */
  #logs<T extends Record<string, SqlStorageValue>>(query: string, ...bindings: unknown[]): Iterable<T> {
    return this.#table("agent_logs") ? this.#sql.exec<T>(query, ...bindings) : [];
  }

  #chunksAfter(after: number, maxBytes: number): StoredLogChunk[] {
    const out: StoredLogChunk[] = [];
    let bytes = 0;
    for (const c of this.#logs<{ seq: number; data: ArrayBuffer }>(`SELECT seq, data FROM agent_logs WHERE seq > ? ORDER BY seq`, after)) {
      out.push({ seq: c.seq, data: new Uint8Array(c.data) });
      bytes += c.data.byteLength;
      if (bytes >= maxBytes) break;
    }
    return out;
  }

  /** Deletes the log and the commands (a released lease's, past its retention) and records when; idempotent. */
  expire(now: number): void {
    this.#ensure();
    if (this.expiredAt() !== null) return;
    this.#storage.transactionSync(() => {
      if (this.#table("agent_logs")) this.#sql.exec(`DELETE FROM agent_logs`);
      if (this.#table("agent_commands")) this.#sql.exec(`DELETE FROM agent_commands`);
      this.#sql.exec(`UPDATE agent SET log_bytes = 0, log_chunks = 0, last_output_at = NULL WHERE id = 1`);
      setMeta(this.#sql, "agent_logs_expired_at", now);
    });
  }

  /** When the log was deleted (`expire`), or null. */
  expiredAt(): number | null {
    this.#ensure();
    const row = this.#sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'agent_logs_expired_at'`).toArray()[0];
    return row ? Number(row.value) : null;
  }

  /** What the agent has reported, for tests and the operator; never the token or its hash. */
  snapshot(): AgentSnapshot {
    const a = this.#row();
    const chunks = [...this.#logs<{ data: ArrayBuffer }>(`SELECT data FROM agent_logs ORDER BY seq`)];
    const bytes = new Uint8Array(a.log_bytes);
    let at = 0;
    for (const c of chunks) {
      bytes.set(new Uint8Array(c.data), at);
      at += c.data.byteLength;
    }
    // Decoded whole, so a character split across two chunks reads as one.
    const text = new TextDecoder().decode(bytes);
    return {
      token_minted_at: iso(a.token_minted_at),
      last_heartbeat_at: iso(this.#lastBeat(a)),
      exit: a.exit_at === null ? null : { code: a.exit_code, signal: a.exit_signal, at: iso(a.exit_at)! },
      log: (a.dropped_bytes > 0 ? droppedMarker(a.dropped_bytes) : "") + text,
      log_bytes: a.log_bytes,
      dropped_bytes: a.dropped_bytes,
      commands: this.#commands(),
    };
  }
}

/** An enroll's hashes and the lease token it would get, made before anything is checked (each hash is a wait). */
interface Enrolling {
  /** null: not an enrollment token at all. */
  token_hash: string | null;
  nonce_hash: string;
  next: string;
  next_hash: string;
}

async function enrollment(token: string, nonce: string): Promise<Enrolling> {
  const next = mintLeaseToken();
  return {
    token_hash: looksLikeEnrollToken(token) ? await hashLeaseToken(token) : null,
    nonce_hash: await sha256Hex(nonce),
    next,
    next_hash: await hashLeaseToken(next),
  };
}

/** Waits in `waiters` until one of its wakes is called, or `ms` pass. */
function waitIn(waiters: Set<() => void>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      waiters.delete(done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    waiters.add(done);
  });
}

function* rows(cursor: Iterable<{ seq: number; bytes: number }>): Generator<StoredChunk> {
  for (const r of cursor) yield { seq: r.seq, bytes: r.bytes };
}

function base64(text: string): string {
  let binary = "";
  for (const b of new TextEncoder().encode(text)) binary += String.fromCharCode(b);
  return btoa(binary);
}
