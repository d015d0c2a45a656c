/**
 * The command's side of a lease that the object carries out through the machine's agent
 * (docs/design.md "The command"): what a kill answers, and the diagnostics a stall collects.
 * Pure, like decide.ts: the object reads the agent's facts and passes them in.
 */
import { agentSilentSince, exitOf } from "./decide";
import { EXCERPTS } from "./excerpt";
import { hasMachine, type AgentFacts, type LeaseRecord } from "./state";

/** `stopped`: it ended (or never ran); `unknown`: the agent cannot be reached, assume nothing stopped; `still_alive`: no exit came. */
export const KILL_OUTCOMES = ["stopped", "unknown", "still_alive"] as const;
export type KillOutcome = (typeof KILL_OUTCOMES)[number];

/** The longest a kill waits for the exit, after its TERM and again after its KILL. */
export const KILL_TIMEOUT_MAX_MS = 120_000;
export const KILL_TIMEOUT_DEFAULT_MS = 10_000;

/**
 * What a kill answers before it signals anything, or `signal` when it must: a lease without a
 * running machine, without a command, or whose command exited, is stopped (a kill is idempotent,
 * and nothing runs that could be ended); an agent that never beat this session, or went silent,
 * cannot be reached.
 */
export function killStart(l: LeaseRecord, agent: AgentFacts, now: number): KillOutcome | "signal" {
  if (!hasMachine(l) || l.state === "stopped" || l.cmd === null || exitOf(l, agent) !== null) return "stopped";
  const beat = agent.last_heartbeat_at;
  if (beat === null || beat < (l.session_started_at ?? 0) || agentSilentSince(l, agent, now) !== null) return "unknown";
  return "signal";
}

/**
 * What a stall runs on the machine: the process list and, where present, `nvidia-smi`, cut at the
 * bytes the `diagnostics` event keeps (excerpt.ts `EXCERPTS.diagnostics`, which the event applies
 * again: the machine's word on it is not taken).
 */
export const DIAGNOSTICS_CMD =
  `{ ps -eo pid,ppid,stat,etime,pcpu,rss,args 2>/dev/null || ps; ` +
  `if command -v nvidia-smi >/dev/null 2>&1; then nvidia-smi; fi; } 2>&1 | head -c ${EXCERPTS.diagnostics.bytes}`;
