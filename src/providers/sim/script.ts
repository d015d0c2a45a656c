/**
 * The sim's command language: what a simulated machine runs for a lease's `cmd` (and for an
 * exec), so that a lease shows output, exit codes and signals without a real machine. The
 * language is documented in docs/sim.md; this file is its parser and a pure interpreter.
 *
 * The interpreter is a pure function of (program, start, signals delivered, now): no I/O and no
 * clock (STYLE.md rule 1). Asked again later with more time or more signals, it answers the same
 * prefix and more, so the sim can store only the program, its start and the signals. `cat` reads
 * the machine's workdir through a `ScriptFiles` the caller hands in; `write` only records what it
 * wrote (files.ts makes the bytes), so the files never change when or how a run ends. `save` and
 * `read` use the files of the machine's volumes as they were when the run began, handed in as a map,
 * and the run's own saves; the saves are answered, for the sim to keep.
 */
import { pathProblem } from "../../artifacts/limits";

/** `lines N` prints at most this many lines, and a whole run records at most this many. */
export const SCRIPT_MAX_LINES = 10_000;
/** One `sleep` lasts at most this many seconds (30 days). */
export const SCRIPT_MAX_SLEEP_S = 30 * 86_400;
/** An `echo`'s or `lines`'s text, and a `serve`'s model, hold at most this many characters. */
export const SCRIPT_MAX_TEXT = 1_024;
/** One `write` makes a file of at most this many bytes (1 GiB): the sim generates and hashes it in its own CPU time. */
export const SCRIPT_MAX_WRITE_BYTES = 1024 ** 3;
/** A run's outputs (the last `write` of each path) hold at most this many files... */
export const SCRIPT_MAX_OUTPUT_FILES = 1_000;
/** ...and this many bytes together (4 GiB): a write past either is refused, as a full disk refuses it. */
export const SCRIPT_MAX_OUTPUT_BYTES = 4 * 1024 ** 3;
/**
 * `cat` prints a line of at most this many characters, the rest of a longer line dropped: a log
 * chunk holds whole lines and is at most 1 MiB, and a file need not have newlines at all.
 */
export const SCRIPT_CAT_LINE_MAX = 4_096;
/** A `save`'s or `read`'s path holds at most this many characters. */
export const SCRIPT_MAX_PATH = 256;

export type ScriptStatement =
  | { op: "echo"; text: string }
  | { op: "lines"; count: number; text: string }
  | { op: "sleep"; ms: number }
  | { op: "exit"; code: number }
  | { op: "hang" }
  | { op: "trap-term" }
  | { op: "serve"; model: string }
  | { op: "cat"; path: string }
  | { op: "write"; path: string; size: number; seed: string }
  | { op: "save"; path: string; text: string }
  | { op: "read"; path: string };

export type ScriptProgram = readonly ScriptStatement[];

/** Where a statement that does not parse begins, 1-based, and what is wrong with it. */
export interface ScriptError {
  line: number;
  column: number;
  message: string;
}

export type ParseResult = { ok: true; program: ScriptProgram } | { ok: false; error: ScriptError };

const STATEMENTS = ["echo", "lines", "sleep", "exit", "hang", "trap-term", "serve", "cat", "write", "save", "read"] as const;
/** An absolute path of letters, digits and `. _ - /`, with no `.` or `..` segment and no empty one. */
const ABSOLUTE_PATH = /^(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)+$/;
const INTEGER = /^\d+$/;
const DECIMAL = /^\d+(\.\d+)?$/;
const MODEL = /^[A-Za-z0-9][A-Za-z0-9._:/@-]*$/;
/** A `write`'s size: bytes, or with K, M or G (KiB, MiB, GiB). */
const SIZE = /^(\d+)([KMG]?)$/i;
const SIZE_UNIT: Record<string, number> = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/** The error's position and message as one line: `line 2, column 5: ...`. */
export function scriptErrorText(e: ScriptError): string {
  return `line ${e.line}, column ${e.column}: ${e.message}`;
}

/**
 * Parses a script: statements separated by `;` or newlines; blank statements are skipped; a
 * statement that begins with `#` is a comment to the end of its line.
 */
export function parseScript(source: string): ParseResult {
  const program: ScriptStatement[] = [];
  const lines = source.split(/\r?\n/);
  for (let l = 0; l < lines.length; l++) {
    let offset = 0;
    for (const piece of lines[l]!.split(";")) {
      const lead = piece.length - piece.trimStart().length;
      const text = piece.trim();
      const column = offset + lead + 1;
      offset += piece.length + 1;
      if (text === "") continue;
      if (text.startsWith("#")) break;
      const parsed = parseStatement(text);
      if (typeof parsed === "string") return { ok: false, error: { line: l + 1, column, message: parsed } };
      program.push(parsed);
    }
  }
  return { ok: true, program };
}

/** One statement (trimmed, not empty), or what is wrong with it. */
function parseStatement(text: string): ScriptStatement | string {
  const space = text.search(/\s/);
  const word = space < 0 ? text : text.slice(0, space);
  const rest = space < 0 ? "" : text.slice(space).trim();
  const args = rest === "" ? [] : rest.split(/\s+/);
  const noArgs = () => (args.length === 0 ? null : `${word} takes no arguments`);
  const textArg = (t: string) => (t.length > SCRIPT_MAX_TEXT ? `${word}: text is longer than ${SCRIPT_MAX_TEXT} characters` : null);
  switch (word) {
    case "echo":
      return textArg(rest) ?? { op: "echo", text: rest };
    case "lines": {
      const n = args[0];
      if (n === undefined || !INTEGER.test(n) || Number(n) > SCRIPT_MAX_LINES) return `lines takes a count from 0 to ${SCRIPT_MAX_LINES}${n === undefined ? "" : `, not ${quote(n)}`}`;
      const label = rest.slice(n.length).trim();
      return textArg(label) ?? { op: "lines", count: Number(n), text: label === "" ? "line" : label };
    }
    case "sleep": {
      const s = args[0];
      if (args.length !== 1 || !DECIMAL.test(s!) || Number(s) > SCRIPT_MAX_SLEEP_S) {
        return `sleep takes one number of seconds from 0 to ${SCRIPT_MAX_SLEEP_S}${args.length === 0 ? "" : `, not ${quote(rest)}`}`;
      }
      return { op: "sleep", ms: Math.round(Number(s) * 1000) };
    }
    case "exit": {
      const c = args[0];
      if (args.length !== 1 || !INTEGER.test(c!) || Number(c) > 255) return `exit takes one code from 0 to 255${args.length === 0 ? "" : `, not ${quote(rest)}`}`;
      return { op: "exit", code: Number(c) };
    }
    case "hang":
    case "trap-term":
      return noArgs() ?? { op: word };
    case "serve": {
      const m = args[0];
      if (args.length !== 1 || !MODEL.test(m!) || m!.length > SCRIPT_MAX_TEXT) return `serve takes one model name${args.length === 0 ? "" : `, not ${quote(rest)}`}`;
      return { op: "serve", model: m! };
    }
    case "cat": {
      if (args.length !== 1) return `cat takes one path in the workdir${args.length === 0 ? "" : `, not ${quote(rest)}`}`;
      const p = args[0]!.replace(/^(\.\/)+/, "");
      const problem = pathProblem(p);
      return problem === null ? { op: "cat", path: p } : `cat: ${problem}, not ${quote(args[0]!)}`;
    }
    case "write": {
      const [p, size, seed] = args;
      const usage = `write takes a path under $LESSOR_OUT, a size from 0 to ${SCRIPT_MAX_WRITE_BYTES} bytes (or with K, M, G) and a seed word`;
      if (args.length < 2 || args.length > 3) return `${usage}${args.length === 0 ? "" : `, not ${quote(rest)}`}`;
      const problem = pathProblem(p!);
      if (problem !== null) return `write: ${problem}, not ${quote(p!)}`;
      const m = SIZE.exec(size!);
      const bytes = m ? Number(m[1]) * SIZE_UNIT[m[2]!.toLowerCase()]! : NaN;
      if (!(bytes <= SCRIPT_MAX_WRITE_BYTES)) return `write: the size is from 0 to ${SCRIPT_MAX_WRITE_BYTES} bytes (or with K, M, G), not ${quote(size!)}`;
      if (seed !== undefined && (!MODEL.test(seed) || seed.length > SCRIPT_MAX_TEXT)) return `write: the seed is one word of letters, digits and . _ : / @ -, not ${quote(seed)}`;
      return { op: "write", path: p!, size: bytes, seed: seed ?? p! };
    }
    case "save":
    case "read": {
      const path = args[0];
      const bad = path === undefined || path.length > SCRIPT_MAX_PATH || !ABSOLUTE_PATH.test(path) || path.split("/").some((seg) => seg === "." || seg === "..");
      if (bad) return `${word} takes an absolute path of letters, digits and . _ - /${path === undefined ? "" : `, not ${quote(path)}`}`;
      if (word === "read") return args.length === 1 ? { op: "read", path } : "read takes one path";
      const text = rest.slice(path.length).trim();
      return textArg(text) ?? { op: "save", path, text };
    }
  }
  return `unknown statement ${quote(word)}; a statement is one of ${STATEMENTS.join(", ")}`;
}

/** A fragment of the user's text in an error, short enough to read. */
function quote(s: string): string {
  return JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}...` : s);
}

export type ScriptSignal = "TERM" | "KILL";

export interface DeliveredSignal {
  signal: ScriptSignal;
  at: number;
}

export interface OutputLine {
  at: number;
  text: string;
}

/** How a run ended: an exit code, or the signal that ended it (code null). */
export interface ScriptEnd {
  code: number | null;
  signal: ScriptSignal | null;
  at: number;
}

/** A file a `write` made under $LESSOR_OUT: its bytes are files.ts `simFileBytes(seed, ...)`. */
export interface ScriptWrite {
  path: string;
  size: number;
  seed: string;
  at: number;
}

/** The workdir a run's `cat` reads: a file's bytes, or null when there is none. */
export interface ScriptFiles {
  read(path: string): Uint8Array | null;
}

/** A line a `save` put in a file at an absolute path (a volume's, docs/volumes.md), in the order saved. */
export interface ScriptSave {
  at: number;
  path: string;
  text: string;
}

export interface ScriptRun {
  /** Every line printed up to `now`, oldest first (at most SCRIPT_MAX_LINES). */
  output: OutputLine[];
  /** The files written up to `now`, one per path (the last write of it), in the order first written. */
  writes: ScriptWrite[];
  /** Every file saved up to `now`, oldest first. */
  saves: ScriptSave[];
  /** Lines were printed beyond SCRIPT_MAX_LINES and are not in `output`. */
  truncated: boolean;
  /** null: still running at `now`. */
  end: ScriptEnd | null;
}

/**
 * What `program`, started at `start`, has done by `now` given the signals delivered so far.
 *
 * Statements other than `sleep`, `hang` and `serve` take no time. A signal delivered at the same
 * millisecond as a statement runs is handled after it (and after every other statement of that
 * millisecond), so `trap-term` at t ignores a TERM at t, and `exit 3` at t wins over a KILL at t.
 * A TERM ends the run unless `trap-term` ran before it; a KILL always ends it. Signals delivered
 * after `now` are not yet delivered; signals after the end change nothing.
 */
export function runScript(
  program: ScriptProgram,
  start: number,
  signals: readonly DeliveredSignal[],
  now: number,
  files: ScriptFiles | null = null,
  volumeFiles: ReadonlyMap<string, string> = new Map(),
): ScriptRun {
  const output: OutputLine[] = [];
  const written = new Map<string, ScriptWrite>();
  let writtenBytes = 0;
  const saves: ScriptSave[] = [];
  if (now < start) return { output, writes: [], saves, truncated: false, end: null };
  // What `read` sees: the volumes' files when the run began, and the run's own saves.
  const seen = new Map(volumeFiles);
  let truncated = false;
  const print = (at: number, text: string) => {
    if (output.length < SCRIPT_MAX_LINES) output.push({ at, text });
    else truncated = true;
  };
  const delivered = signals.filter((s) => s.at <= now).sort((a, b) => a.at - b.at);
  let next = 0;
  let trapped = false;
  /** Handles the signals delivered before `t` (and by `now`): the end one of them causes, or null. */
  const signalsBefore = (t: number): ScriptEnd | null => {
    for (; next < delivered.length && delivered[next]!.at < t; next++) {
      const s = delivered[next]!;
      if (s.signal === "KILL" || !trapped) return { code: null, signal: s.signal, at: Math.max(s.at, start) };
    }
    return null;
  };
  const ended = (end: ScriptEnd | null): ScriptRun => ({ output, writes: [...written.values()], saves, truncated, end });

  let t = start;
  for (const s of program) {
    const bySignal = signalsBefore(t);
    if (bySignal) return ended(bySignal);
    if (t > now) return ended(null);
    switch (s.op) {
      case "echo":
        print(t, s.text);
        break;
      case "lines":
        for (let i = 1; i <= s.count; i++) print(t, `${s.text} ${i}`);
        break;
      case "sleep":
        t += s.ms;
        break;
      case "exit":
        return ended({ code: s.code, signal: null, at: t });
      case "trap-term":
        trapped = true;
        break;
      case "serve":
        print(t, `ready: serving ${s.model}`);
        t = Infinity;
        break;
      case "hang":
        t = Infinity;
        break;
      case "cat": {
        // As `cat` in sh: a missing file is said and the run goes on.
        const data = files?.read(s.path) ?? null;
        if (data === null) print(t, `cat: ${s.path}: No such file or directory`);
        else for (const line of fileLines(data)) print(t, line);
        break;
      }
      case "write": {
        const before = written.get(s.path);
        const bytes = writtenBytes - (before?.size ?? 0) + s.size;
        if ((before === undefined && written.size >= SCRIPT_MAX_OUTPUT_FILES) || bytes > SCRIPT_MAX_OUTPUT_BYTES) {
          print(t, `write: ${s.path}: No space left on device`);
          break;
        }
        writtenBytes = bytes;
        // A path written again keeps its place: what matters is its last content.
        written.set(s.path, { path: s.path, size: s.size, seed: s.seed, at: t });
        break;
      }
      case "save":
        saves.push({ at: t, path: s.path, text: s.text });
        seen.set(s.path, s.text);
        break;
      case "read": {
        const text = seen.get(s.path);
        if (text === undefined) {
          // As `cat` of a missing file: a line on what is wrong, and code 1.
          print(t, `read: ${s.path}: no such file`);
          return ended({ code: 1, signal: null, at: t });
        }
        print(t, text);
        break;
      }
    }
  }
  const bySignal = signalsBefore(t);
  if (bySignal) return ended(bySignal);
  return ended(t > now ? null : { code: 0, signal: null, at: t });
}

/** A file's lines as `cat` prints them: UTF-8 (bad bytes replaced), no last empty line, each cut to SCRIPT_CAT_LINE_MAX. */
export function fileLines(data: Uint8Array): string[] {
  if (data.byteLength === 0) return [];
  const lines = new TextDecoder().decode(data).split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map((l) => (l.length > SCRIPT_CAT_LINE_MAX ? l.slice(0, SCRIPT_CAT_LINE_MAX) : l));
}

/**
 * The model a run serves at `now` (docs/sim.md "The model server"): the run has reached a `serve`
 * statement and has not ended; null before (a `sleep` still waits), after its end, or when it
 * ended or hangs without serving. Time alone moves a run forward, so where it is follows from
 * `runScript`'s end and the sleeps before `now`.
 */
export function servingAt(program: ScriptProgram, start: number, signals: readonly DeliveredSignal[], now: number): string | null {
  if (now < start || runScript(program, start, signals, now).end !== null) return null;
  let t = start;
  for (const s of program) {
    if (t > now) return null;
    if (s.op === "serve") return s.model;
    if (s.op === "hang" || s.op === "exit") return null;
    if (s.op === "sleep") t += s.ms;
  }
  return null;
}
