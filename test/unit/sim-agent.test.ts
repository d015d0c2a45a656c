/** The sim's agent's pure rules (src/providers/sim/agent.ts): when it acts, how output is cut, what an exec answers. */
import { describe, expect, it } from "vitest";
import { COMMAND_OUTPUT_MAX } from "../../src/occupant/occupant";
import { agentDueAt, chunkBytes, chunkEnd, execResult, heartbeatDue, parseSignals, runLines, TRUNCATED_LINE, type SimAgentState } from "../../src/providers/sim/agent";
import { parseScript, runScript, SCRIPT_MAX_LINES } from "../../src/providers/sim/script";

const OPTS = { tick_ms: 1000, heartbeat_ms: 30_000 };
const state = (over: Partial<SimAgentState>): SimAgentState => ({ status: "RUNNING", next_transition_at: null, busy: false, heartbeat_at: null, ...over });

function run(source: string, now: number, signals: { signal: "TERM" | "KILL"; at: number }[] = []) {
  const parsed = parseScript(source);
  if (!parsed.ok) throw new Error("does not parse");
  return runScript(parsed.program, 0, signals, now);
}

describe("agentDueAt", () => {
  it("waits for a provisioning or booting machine's next status", () => {
    expect(agentDueAt(state({ status: "PROVISIONING", next_transition_at: 500 }), 100, OPTS)).toBe(500);
    expect(agentDueAt(state({ status: "STARTING", next_transition_at: 2000, busy: true }), 100, OPTS)).toBe(2000);
  });

  it("acts every tick while busy, in any status but TERMINATED", () => {
    expect(agentDueAt(state({ busy: true, heartbeat_at: 100 }), 100, OPTS)).toBe(1100);
    expect(agentDueAt(state({ status: "EXITED", busy: true }), 100, OPTS)).toBe(1100);
    expect(agentDueAt(state({ status: "TERMINATED", busy: true }), 100, OPTS)).toBeNull();
  });

  it("an idle running machine heartbeats at once, then every period", () => {
    expect(agentDueAt(state({}), 100, OPTS)).toBe(100);
    expect(agentDueAt(state({ heartbeat_at: 100 }), 200, OPTS)).toBe(30_100);
    // Overdue: now, never in the past.
    expect(agentDueAt(state({ heartbeat_at: 100 }), 40_000, OPTS)).toBe(40_000);
  });

  it("an idle stopped or failed machine needs nothing", () => {
    expect(agentDueAt(state({ status: "EXITED" }), 100, OPTS)).toBeNull();
    expect(agentDueAt(state({ status: "ERROR" }), 100, OPTS)).toBeNull();
  });
});

describe("heartbeatDue", () => {
  it("is due first, then at exactly one period after the last", () => {
    expect(heartbeatDue(null, 0, 30_000)).toBe(true);
    expect(heartbeatDue(1000, 30_999, 30_000)).toBe(false);
    expect(heartbeatDue(1000, 31_000, 30_000)).toBe(true);
  });
});

describe("log chunks", () => {
  it("a chunk holds whole lines up to the byte limit, each with its newline", () => {
    const lines = ["aaa", "bbb", "ccc"];
    expect(chunkEnd(lines, 0, 8)).toBe(2);
    expect(chunkEnd(lines, 0, 7)).toBe(1);
    expect(chunkEnd(lines, 1, 100)).toBe(3);
    expect(new TextDecoder().decode(chunkBytes(lines, 0, 2))).toBe("aaa\nbbb\n");
  });

  it("a line longer than the limit is a chunk alone, never an empty one", () => {
    expect(chunkEnd(["x".repeat(10), "y"], 0, 4)).toBe(1);
    expect(chunkEnd(["a"], 1, 4)).toBe(1);
  });

  it("counts bytes, not characters", () => {
    expect(chunkEnd(["é", "é"], 0, 5)).toBe(1);
    expect(chunkEnd(["é", "é"], 0, 6)).toBe(2);
  });
});

describe("runLines", () => {
  it("says so at the end of a truncated run, only once it has ended", () => {
    const big = `lines ${SCRIPT_MAX_LINES} a; echo more; hang`;
    expect(runLines(run(big, 0)).at(-1)).toBe(`a ${SCRIPT_MAX_LINES}`);
    const killed = runLines(run(big, 10, [{ signal: "KILL", at: 5 }]));
    expect(killed).toHaveLength(SCRIPT_MAX_LINES + 1);
    expect(killed.at(-1)).toBe(TRUNCATED_LINE);
  });
});

describe("execResult", () => {
  it("answers the output and the code, or a null code when a signal ended it", () => {
    const exited = run("echo a; exit 4", 0);
    expect(execResult({ ...exited, end: exited.end! })).toEqual({ exit_code: 4, output: "a\n" });
    const killed = run("echo b; hang", 10, [{ signal: "KILL", at: 5 }]);
    expect(execResult({ ...killed, end: killed.end! })).toEqual({ exit_code: null, output: "b\n" });
  });

  it("keeps the last COMMAND_OUTPUT_MAX characters of a longer output", () => {
    const long = run(`lines 2000 ${"z".repeat(1000)}; exit 0`, 0);
    const { output } = execResult({ ...long, end: long.end! });
    expect(output).toHaveLength(COMMAND_OUTPUT_MAX);
    expect(output.endsWith(`${"z".repeat(1000)} 2000\n`)).toBe(true);
  });
});

describe("parseSignals", () => {
  it("reads what was stored", () => {
    expect(parseSignals("[]")).toEqual([]);
    expect(parseSignals('[{"signal":"TERM","at":5}]')).toEqual([{ signal: "TERM", at: 5 }]);
  });
});
