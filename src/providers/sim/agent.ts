/**
 * The sim's stand-in for lessor's machine agent (docs/sim.md "The agent"), as pure functions: when
 * a machine's agent next has something to do, how its program's output is cut into log chunks,
 * and what an exec answers. No I/O and no clock (STYLE.md rule 1); the SimCloud object (cloud.ts)
 * stores the state, makes the calls and sets its one alarm from `agentDueAt`.
 */
import { COMMAND_OUTPUT_MAX } from "../../occupant/occupant";
import { SCRIPT_MAX_LINES, type DeliveredSignal, type ScriptRun } from "./script";
import type { SimStatus } from "./machines";

/** A log chunk holds at most this many bytes (agent.sh's LESSOR_AGENT_CHUNK_BYTES). */
export const SIM_AGENT_CHUNK_BYTES = 64 * 1024;
/** While a machine's program runs (or has output, an exit or an exec result to report), the agent acts this often. */
export const SIM_AGENT_TICK_MS = 1000;
/** The last line of a run that printed more than the interpreter keeps. */
export const TRUNCATED_LINE = `[sim: output past ${SCRIPT_MAX_LINES} lines was not kept]`;

/** What the agent knows of one machine when it plans its next call. */
export interface SimAgentState {
  status: SimStatus;
  /** When the machine's clock changes status by itself next (PROVISIONING/STARTING ends); null: never. */
  next_transition_at: number | null;
  /** It has a program still running, output or an exit not yet shipped, or an exec still running. */
  busy: boolean;
  /** When it last heartbeated; null: not yet. */
  heartbeat_at: number | null;
}

/**
 * When the agent of one machine should act next; null: not until something else changes (it is
 * stopped with nothing to report, failed, or gone). A busy machine acts every `tick_ms`; a machine
 * with nothing running only heartbeats (and asks for commands then) every `heartbeat_ms`.
 */
export function agentDueAt(m: SimAgentState, now: number, opts: { tick_ms: number; heartbeat_ms: number }): number | null {
  if (m.status === "TERMINATED") return null;
  if (m.status === "PROVISIONING" || m.status === "STARTING") return m.next_transition_at;
  if (m.busy) return now + opts.tick_ms;
  if (m.status !== "RUNNING") return null;
  return m.heartbeat_at === null ? now : Math.max(now, m.heartbeat_at + opts.heartbeat_ms);
}

/** Whether a heartbeat is due at `now`. */
export function heartbeatDue(heartbeatAt: number | null, now: number, heartbeatMs: number): boolean {
  return heartbeatAt === null || now >= heartbeatAt + heartbeatMs;
}

/** The lines a run has printed so far, with a last line saying so once a truncated run has ended. */
export function runLines(run: ScriptRun): string[] {
  const lines = run.output.map((l) => l.text);
  if (run.truncated && run.end) lines.push(TRUNCATED_LINE);
  return lines;
}

/**
 * Where the chunk that begins at line `from` ends (exclusive): as many whole lines as fit in
 * `maxBytes` (each with its newline), at least one, so a chunk is never empty while lines remain.
 */
export function chunkEnd(lines: readonly string[], from: number, maxBytes = SIM_AGENT_CHUNK_BYTES): number {
  const encoder = new TextEncoder();
  let bytes = 0;
  let to = from;
  while (to < lines.length) {
    const size = encoder.encode(lines[to]!).byteLength + 1;
    if (to > from && bytes + size > maxBytes) break;
    bytes += size;
    to++;
  }
  return to;
}

/** Lines as the bytes a chunk carries: each ends with a newline. */
export function chunkBytes(lines: readonly string[], from: number, to: number): Uint8Array {
  return new TextEncoder().encode(lines.slice(from, to).map((l) => `${l}\n`).join(""));
}

/**
 * An ended exec's result: its exit code (null when a signal ended it) and its output, the last
 * COMMAND_OUTPUT_MAX characters when it printed more.
 */
export function execResult(run: ScriptRun & { end: NonNullable<ScriptRun["end"]> }): { exit_code: number | null; output: string } {
  const text = runLines(run).map((l) => `${l}\n`).join("");
  return { exit_code: run.end.code, output: text.length > COMMAND_OUTPUT_MAX ? text.slice(text.length - COMMAND_OUTPUT_MAX) : text };
}

/** The signals stored for a run (JSON), or none. */
export function parseSignals(json: string): DeliveredSignal[] {
  const parsed: unknown = JSON.parse(json);
  return Array.isArray(parsed) ? (parsed as DeliveredSignal[]) : [];
}
