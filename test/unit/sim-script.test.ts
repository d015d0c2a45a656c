import { describe, expect, it } from "vitest";
import {
  parseScript,
  runScript,
  SCRIPT_MAX_LINES,
  SCRIPT_MAX_SLEEP_S,
  SCRIPT_MAX_TEXT,
  scriptErrorText,
  type DeliveredSignal,
  type ScriptProgram,
} from "../../src/providers/sim/script";

const T0 = Date.UTC(2026, 0, 1, 10, 0, 0);

function program(source: string): ScriptProgram {
  const parsed = parseScript(source);
  if (!parsed.ok) throw new Error(scriptErrorText(parsed.error));
  return parsed.program;
}

/** Runs `source` from T0 to T0 + `after` ms, signals given as offsets from T0. */
function run(source: string, after: number, signals: Array<[DeliveredSignal["signal"], number]> = []) {
  return runScript(program(source), T0, signals.map(([signal, at]) => ({ signal, at: T0 + at })), T0 + after);
}

const texts = (r: ReturnType<typeof run>) => r.output.map((l) => l.text);
const endOf = (r: ReturnType<typeof run>) => (r.end ? { ...r.end, at: r.end.at - T0 } : null);

describe("parseScript accepts", () => {
  it.each([
    ["echo hello world", [{ op: "echo", text: "hello world" }]],
    ["echo", [{ op: "echo", text: "" }]],
    ["echo   spaced\tout  ", [{ op: "echo", text: "spaced\tout" }]],
    ["lines 3", [{ op: "lines", count: 3, text: "line" }]],
    ["lines 0 none", [{ op: "lines", count: 0, text: "none" }]],
    [`lines ${SCRIPT_MAX_LINES} step`, [{ op: "lines", count: SCRIPT_MAX_LINES, text: "step" }]],
    ["sleep 0", [{ op: "sleep", ms: 0 }]],
    ["sleep 1.5", [{ op: "sleep", ms: 1500 }]],
    ["sleep 0.0004", [{ op: "sleep", ms: 0 }]],
    [`sleep ${SCRIPT_MAX_SLEEP_S}`, [{ op: "sleep", ms: SCRIPT_MAX_SLEEP_S * 1000 }]],
    ["exit 0", [{ op: "exit", code: 0 }]],
    ["exit 255", [{ op: "exit", code: 255 }]],
    ["hang", [{ op: "hang" }]],
    ["trap-term", [{ op: "trap-term" }]],
    ["serve meta-llama/Llama-3.1-8B-Instruct", [{ op: "serve", model: "meta-llama/Llama-3.1-8B-Instruct" }]],
    ["echo a; echo b\necho c", [{ op: "echo", text: "a" }, { op: "echo", text: "b" }, { op: "echo", text: "c" }]],
    ["", []],
    ["  ;; \n\n ; ", []],
    ["# a comment; exit 9\n  # another\necho after", [{ op: "echo", text: "after" }]],
    ["echo a # not a comment", [{ op: "echo", text: "a # not a comment" }]],
    ["echo a; # the rest; exit 3\necho b", [{ op: "echo", text: "a" }, { op: "echo", text: "b" }]],
    ["echo windows\r\necho line", [{ op: "echo", text: "windows" }, { op: "echo", text: "line" }]],
  ])("%j", (source, expected) => {
    expect(parseScript(source)).toEqual({ ok: true, program: expected });
  });
});

describe("parseScript refuses, saying where", () => {
  it.each([
    ["ech hi", 1, 1, 'unknown statement "ech"'],
    ["echo a\n  reboot now", 2, 3, 'unknown statement "reboot"'],
    ["echo a;  Exit 1", 1, 10, 'unknown statement "Exit"'],
    ["exit 256", 1, 1, 'exit takes one code from 0 to 255, not "256"'],
    ["exit -1", 1, 1, "exit takes one code from 0 to 255"],
    ["exit", 1, 1, "exit takes one code from 0 to 255"],
    ["exit 1 2", 1, 1, 'not "1 2"'],
    ["exit 1.5", 1, 1, "exit takes one code"],
    ["sleep -1", 1, 1, 'sleep takes one number of seconds from 0 to 2592000, not "-1"'],
    ["sleep", 1, 1, "sleep takes one number of seconds"],
    ["sleep 1e3", 1, 1, "sleep takes one number"],
    ["sleep .5", 1, 1, "sleep takes one number"],
    [`sleep ${SCRIPT_MAX_SLEEP_S + 1}`, 1, 1, "sleep takes one number"],
    ["sleep 1 2", 1, 1, "sleep takes one number"],
    ["lines", 1, 1, `lines takes a count from 0 to ${SCRIPT_MAX_LINES}`],
    [`lines ${SCRIPT_MAX_LINES + 1}`, 1, 1, `not "${SCRIPT_MAX_LINES + 1}"`],
    ["lines -2", 1, 1, "lines takes a count"],
    ["lines many", 1, 1, "lines takes a count"],
    ["hang 5", 1, 1, "hang takes no arguments"],
    ["trap-term now", 1, 1, "trap-term takes no arguments"],
    ["serve", 1, 1, "serve takes one model name"],
    ["serve two models", 1, 1, 'not "two models"'],
    [`echo ${"x".repeat(SCRIPT_MAX_TEXT + 1)}`, 1, 1, `longer than ${SCRIPT_MAX_TEXT} characters`],
  ])("%j", (source, line, column, words) => {
    const parsed = parseScript(source);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect({ line: parsed.error.line, column: parsed.error.column }).toEqual({ line, column });
    expect(parsed.error.message).toContain(words);
    expect(scriptErrorText(parsed.error)).toBe(`line ${line}, column ${column}: ${parsed.error.message}`);
  });

  it("keeps a long fragment of the user's text short in the message", () => {
    const parsed = parseScript(`${"z".repeat(500)} go`);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error.message).toContain(`"${"z".repeat(40)}..."`);
    expect(parsed.error.message).not.toContain("z".repeat(41));
  });

  it("accepts text of exactly the limit", () => {
    expect(parseScript(`echo ${"x".repeat(SCRIPT_MAX_TEXT)}`).ok).toBe(true);
  });
});

describe("runScript", () => {
  it("an empty script exits 0 at once", () => {
    expect(run("", 0)).toEqual({ output: [], writes: [], saves: [], truncated: false, end: { code: 0, signal: null, at: T0 } });
  });

  it("runs off its end with exit 0, after its output", () => {
    const r = run("echo one; echo two", 10);
    expect(r.output).toEqual([
      { at: T0, text: "one" },
      { at: T0, text: "two" },
    ]);
    expect(endOf(r)).toEqual({ code: 0, signal: null, at: 0 });
  });

  it("has done nothing before it starts", () => {
    expect(run("echo early", -1)).toEqual({ output: [], writes: [], saves: [], truncated: false, end: null });
  });

  it("lines N prints N numbered lines at once", () => {
    expect(texts(run("lines 3 row", 0))).toEqual(["row 1", "row 2", "row 3"]);
    expect(texts(run("lines 0", 0))).toEqual([]);
  });

  it("records at most SCRIPT_MAX_LINES lines over a whole run, and says it dropped some", () => {
    const exact = run(`lines ${SCRIPT_MAX_LINES}`, 0);
    expect(exact.output).toHaveLength(SCRIPT_MAX_LINES);
    expect(exact.truncated).toBe(false);
    const over = run(`lines ${SCRIPT_MAX_LINES}; echo one more; exit 4`, 0);
    expect(over.output).toHaveLength(SCRIPT_MAX_LINES);
    expect(over.truncated).toBe(true);
    expect(over.end?.code).toBe(4);
  });

  it.each([
    ["sleep 0", 0, { code: 0, signal: null, at: 0 }],
    ["sleep 1.5", 1499, null],
    ["sleep 1.5", 1500, { code: 0, signal: null, at: 1500 }],
    ["sleep 0.25; sleep 0.25", 500, { code: 0, signal: null, at: 500 }],
  ])("%j at +%i ms", (source, after, end) => {
    expect(endOf(run(source, after))).toEqual(end);
  });

  it("prints what follows a sleep only once the sleep is over", () => {
    const source = "echo before; sleep 2; echo after";
    expect(texts(run(source, 1999))).toEqual(["before"]);
    const r = run(source, 2000);
    expect(r.output).toEqual([
      { at: T0, text: "before" },
      { at: T0 + 2000, text: "after" },
    ]);
  });

  it.each([
    ["exit 0", 0],
    ["exit 255", 255],
    ["echo x; exit 7; echo never", 7],
  ])("%j ends with its code", (source, code) => {
    const r = run(source, 0);
    expect(endOf(r)).toEqual({ code, signal: null, at: 0 });
    expect(texts(r)).not.toContain("never");
  });

  it("hang never ends and prints nothing", () => {
    const r = run("hang; echo never", 365 * 86_400_000);
    expect(r).toEqual({ output: [], writes: [], saves: [], truncated: false, end: null });
  });

  it("serve prints a ready line and never ends", () => {
    const r = run("echo loading; sleep 3; serve org/model-7b", 10 * 86_400_000);
    expect(r.output).toEqual([
      { at: T0, text: "loading" },
      { at: T0 + 3000, text: "ready: serving org/model-7b" },
    ]);
    expect(r.end).toBeNull();
    expect(texts(run("sleep 3; serve m", 2999))).toEqual([]);
  });

  describe("signals", () => {
    it("TERM ends a running script with signal TERM at its time", () => {
      expect(endOf(run("sleep 10", 5000, [["TERM", 1234]]))).toEqual({ code: null, signal: "TERM", at: 1234 });
    });

    it("KILL ends it with signal KILL", () => {
      expect(endOf(run("hang", 5000, [["KILL", 3000]]))).toEqual({ code: null, signal: "KILL", at: 3000 });
    });

    it("a signal not yet delivered at now changes nothing yet", () => {
      expect(run("hang", 999, [["KILL", 1000]]).end).toBeNull();
      expect(endOf(run("hang", 1000, [["KILL", 1000]]))).toEqual({ code: null, signal: "KILL", at: 1000 });
    });

    it("output stops at the signal", () => {
      const r = run("echo a; sleep 1; echo b; sleep 1; echo c", 5000, [["TERM", 1500]]);
      expect(texts(r)).toEqual(["a", "b"]);
      expect(endOf(r)).toEqual({ code: null, signal: "TERM", at: 1500 });
    });

    it("a signal at the same millisecond as a statement is handled after it", () => {
      expect(texts(run("sleep 1; echo b; sleep 1", 5000, [["TERM", 1000]]))).toEqual(["b"]);
      expect(endOf(run("sleep 1; exit 3", 5000, [["KILL", 1000]]))).toEqual({ code: 3, signal: null, at: 1000 });
      expect(endOf(run("sleep 1", 5000, [["KILL", 1000]]))).toEqual({ code: 0, signal: null, at: 1000 });
      expect(endOf(run("sleep 1", 5000, [["KILL", 999]]))).toEqual({ code: null, signal: "KILL", at: 999 });
    });

    it("signals after the end change nothing", () => {
      expect(endOf(run("exit 2", 5000, [["KILL", 1]]))).toEqual({ code: 2, signal: null, at: 0 });
    });

    it("signals are read in time order, whatever order they are given in", () => {
      expect(endOf(run("hang", 5000, [["KILL", 3000], ["TERM", 2000]]))).toEqual({ code: null, signal: "TERM", at: 2000 });
    });

    it("a signal delivered before the start ends the run at its start", () => {
      expect(endOf(run("echo x", 10, [["TERM", -5]]))).toEqual({ code: null, signal: "TERM", at: 0 });
    });

    it("trap-term before a TERM ignores it", () => {
      const r = run("trap-term; sleep 5; echo survived", 6000, [["TERM", 1000]]);
      expect(texts(r)).toEqual(["survived"]);
      expect(endOf(r)).toEqual({ code: 0, signal: null, at: 5000 });
    });

    it("trap-term at the TERM's millisecond ignores it", () => {
      expect(run("sleep 1; trap-term; hang", 5000, [["TERM", 1000]]).end).toBeNull();
    });

    it("trap-term after a TERM is too late", () => {
      expect(endOf(run("sleep 1; trap-term; hang", 5000, [["TERM", 999]]))).toEqual({ code: null, signal: "TERM", at: 999 });
    });

    it("KILL after trap-term still ends it", () => {
      const r = run("trap-term; hang", 9000, [["TERM", 1000], ["KILL", 8000]]);
      expect(endOf(r)).toEqual({ code: null, signal: "KILL", at: 8000 });
    });

    it("serve ends on TERM like anything else", () => {
      expect(endOf(run("serve m", 9000, [["TERM", 10]]))).toEqual({ code: null, signal: "TERM", at: 10 });
    });
  });

  it("answers the same prefix when asked again later", () => {
    const p = program("echo a; sleep 1; lines 2; sleep 1; exit 1");
    const early = runScript(p, T0, [], T0 + 1500);
    const late = runScript(p, T0, [], T0 + 5000);
    expect(late.output.slice(0, early.output.length)).toEqual(early.output);
    expect(early.end).toBeNull();
    expect(late.end).toEqual({ code: 1, signal: null, at: T0 + 2000 });
  });
});

describe("save and read (docs/sim.md \"Volumes\")", () => {
  it("parse a path and text; refuse a relative path, a dot segment or a missing path", () => {
    expect(program("save /data/a b c; read /data/a")).toEqual([
      { op: "save", path: "/data/a", text: "b c" },
      { op: "read", path: "/data/a" },
    ]);
    for (const bad of ["save data/a x", "read /data/../etc", "read", "save", "read /a b", "read /a//b"]) expect(parseScript(bad).ok, bad).toBe(false);
  });

  it("read prints what the machine had at the start or what the run wrote since; a missing file exits 1", () => {
    const r = runScript(program("read /v/old; save /v/new n1; sleep 1; read /v/new; read /v/none; echo never"), T0, [], T0 + 5000, null, new Map([["/v/old", "o1"]]));
    expect(r.output.map((l) => l.text)).toEqual(["o1", "n1", "read: /v/none: no such file"]);
    expect(r.saves).toEqual([{ at: T0, path: "/v/new", text: "n1" }]);
    expect(r.end).toEqual({ code: 1, signal: null, at: T0 + 1000 });
  });
});
