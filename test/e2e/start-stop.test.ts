/**
 * `npm start` leaves nothing behind (docs/design.md "Operating rules") and refuses a setting the Worker would
 * refuse (item 10).
 *
 * start.mjs is started as a user's shell starts it: as its own process group. Every process that
 * descends from it (the migration step's wrangler and workerd, `wrangler dev` and its workerd) is
 * recorded while it runs, by pid and start time, so that a pid reused by an unrelated process is
 * never mistaken for a leftover. After one signal to start.mjs alone, as Ctrl-C in a terminal or
 * a supervisor's SIGTERM delivers it, none of them may be alive, and its process group is empty.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort, groupMembers, repoRoot } from "./server";

interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  start: string;
  state: string;
  cmd: string;
}

function readProc(pid: number): Proc | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    let cmd = "";
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
    } catch {
      // gone
    }
    // fields[0] is the state (field 3 of stat), so field N of stat is fields[N - 3].
    return { pid, state: fields[0]!, ppid: Number(fields[1]), pgid: Number(fields[2]), start: fields[19]!, cmd };
  } catch {
    return null;
  }
}

function allProcs(): Proc[] {
  return readdirSync("/proc")
    .filter((e) => /^\d+$/.test(e))
    .map((e) => readProc(Number(e)))
    .filter((p): p is Proc => p !== null);
}

/** Every live descendant of `root`. */
function descendants(root: number): Proc[] {
  const procs = allProcs();
  const out: Proc[] = [];
  const frontier = [root];
  while (frontier.length > 0) {
    const parent = frontier.pop()!;
    for (const p of procs) {
      if (p.ppid === parent && p.state !== "Z") {
        out.push(p);
        frontier.push(p.pid);
      }
    }
  }
  return out;
}

function stillAlive(p: Proc): boolean {
  const now = readProc(p.pid);
  return now !== null && now.start === p.start && now.state !== "Z";
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Started {
  child: ChildProcess;
  pid: number;
  log: () => string;
  seen: Map<string, Proc>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stateDir: string;
  stopWatching: () => void;
}

const started: Started[] = [];

async function start(env: Record<string, string> = {}): Promise<Started> {
  const stateDir = mkdtempSync(path.join(tmpdir(), "lessor-startstop-"));
  const logFile = path.join(stateDir, "start.log");
  const childEnv: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("LESSOR_")) childEnv[k] = v;
  Object.assign(childEnv, { PORT: String(await freePort()), LESSOR_STATE_DIR: stateDir, LESSOR_CRON_INTERVAL_S: "60" }, env);
  const fd = openSync(logFile, "a");
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, ["scripts/start.mjs"], { cwd: repoRoot, env: childEnv, detached: true, stdio: ["ignore", fd, fd] });
  } finally {
    closeSync(fd);
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const seen = new Map<string, Proc>();
  const watch = setInterval(() => {
    for (const p of descendants(child.pid!)) seen.set(`${p.pid}:${p.start}`, p);
  }, 50);
  const s: Started = {
    child,
    pid: child.pid!,
    log: () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : ""),
    seen,
    exited,
    stateDir,
    stopWatching: () => clearInterval(watch),
  };
  started.push(s);
  return s;
}

async function until(what: string, s: Started, ok: () => boolean, ms = 120_000) {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; start.mjs said:\n${s.log()}`);
    await sleep(50);
  }
}

/** Waits for start.mjs to exit, then answers what it started that is still alive. */
async function leftoversAfterExit(s: Started) {
  const exit = await Promise.race([s.exited, sleep(30_000).then(() => null)]);
  s.stopWatching();
  if (exit === null) throw new Error(`start.mjs did not exit within 30 s of the signal; it said:\n${s.log()}`);
  // Only what start.mjs recorded before it exited counts; give the kernel a moment to reap.
  let left: Proc[] = [];
  const deadline = Date.now() + 3_000;
  do {
    left = [...s.seen.values()].filter(stillAlive);
    if (left.length === 0) break;
    await sleep(100);
  } while (Date.now() < deadline);
  return { exit, left, group: groupMembers(s.pid) };
}

afterEach(() => {
  for (const s of started.splice(0)) {
    s.stopWatching();
    for (const p of [...s.seen.values()].filter(stillAlive)) {
      try {
        process.kill(p.pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    try {
      process.kill(-s.pid, "SIGKILL");
    } catch {
      // gone
    }
    rmSync(s.stateDir, { recursive: true, force: true });
  }
});

describe.runIf(existsSync("/proc"))("npm start's process tree", () => {
  it("refuses to start with a bootstrap token shorter than 32 characters, and says why", async () => {
    const s = await start({ LESSOR_BOOTSTRAP_TOKEN: "too-short-token" });
    const { exit, left } = await leftoversAfterExit(s);
    expect(exit.code).toBe(1);
    expect(s.log()).toMatch(/refusing to start:\s+LESSOR_BOOTSTRAP_TOKEN must be at least 32 characters/);
    expect(s.log()).not.toContain("too-short-token");
    expect([...s.seen.values()].map((p) => p.cmd)).toEqual([]);
    expect(left).toEqual([]);
  });

  it("stops the migration step's wrangler and workerd on SIGTERM", async () => {
    const s = await start({ LESSOR_BOOTSTRAP_TOKEN: "a-bootstrap-token-of-more-than-32-chars" });
    // The migration step is under way: its wrangler has started a workerd, and nothing says done.
    await until("the migration step's workerd", s, () => [...s.seen.values()].some((p) => /workerd/.test(p.cmd)) || /local D1 migrated/.test(s.log()));
    expect(s.log(), "the migration step ended before its workerd was seen").not.toContain("local D1 migrated");
    process.kill(s.pid, "SIGTERM");
    const { exit, left, group } = await leftoversAfterExit(s);
    expect(exit.code).toBe(0);
    expect(left.map((p) => `${p.pid} ${p.cmd}`)).toEqual([]);
    expect(group).toEqual([]);
    expect(s.log()).not.toContain("serving on");
  });

  it("stops wrangler dev and its workerd on Ctrl-C (SIGINT) once serving", async () => {
    const s = await start({ LESSOR_BOOTSTRAP_TOKEN: "a-bootstrap-token-of-more-than-32-chars" });
    await until("serving", s, () => s.log().includes("lessor: serving on "));
    const running = [...s.seen.values()].filter(stillAlive);
    expect(running.some((p) => /workerd/.test(p.cmd)), "wrangler dev's workerd").toBe(true);
    process.kill(s.pid, "SIGINT");
    const { exit, left, group } = await leftoversAfterExit(s);
    expect(exit.code).toBe(0);
    expect(left.map((p) => `${p.pid} ${p.cmd}`)).toEqual([]);
    expect(group).toEqual([]);
    // Both steps' processes were seen, so both were checked.
    expect([...s.seen.values()].filter((p) => /workerd/.test(p.cmd)).length).toBeGreaterThanOrEqual(2);
  });
});
