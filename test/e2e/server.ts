/**
 * Starts lessor the way a new user does, through `npm start`'s own script (`node scripts/start.mjs`),
 * and stops it again.
 *
 * - a free port (bound to port 0, then released), a fresh LESSOR_STATE_DIR, a short cron interval;
 * - no LESSOR_* variable from the test runner's environment reaches the child (in particular no
 *   LESSOR_BOOTSTRAP_TOKEN), so the token comes from the repository's `.dev.vars`, which
 *   start.mjs writes when it does not exist yet (a fresh clone) and leaves alone when it does;
 * - the child runs in its own process group (detached) and its output goes to a log file in the
 *   state dir, not to a pipe, so a test that keeps the event loop busy can never stall the server
 *   on a full pipe; the log is printed when something fails.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, closeSync, constants, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

const READY_LINE = "lessor: serving on ";
const START_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 15_000;

export interface Server {
  base: string;
  port: number;
  pid: number;
  stateDir: string;
  logFile: string;
  /** The process group of `wrangler dev` (start.mjs starts it detached), if it could be found. */
  wranglerPgid: number | null;
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  log(): string;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      if (addr === null || typeof addr === "string") return reject(new Error("no port"));
      srv.close(() => resolve(addr.port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every process's pid, state, parent and group (Linux /proc); empty where /proc is not available. */
function processes(): Array<{ pid: number; state: string; ppid: number; pgrp: number }> {
  if (!existsSync("/proc")) return [];
  const out = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses, so split after the last ")".
      const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.push({ pid: Number(entry), state: state!, ppid: Number(ppid), pgrp: Number(pgrp) });
    } catch {
      // the process went away while we looked
    }
  }
  return out;
}

/**
 * The process group of the `wrangler dev` start.mjs started: its one live child that leads a group
 * of its own (start.mjs starts it detached). Its other children are not: the console build's
 * esbuild stays in start.mjs's group, and an exited step not yet reaped is a zombie.
 */
function wranglerGroupOf(pid: number): number | null {
  const leaders = processes().filter((p) => p.ppid === pid && p.state !== "Z" && p.pgrp === p.pid);
  return leaders.length === 1 ? leaders[0]!.pid : null;
}

/** Pids of live processes in process group `pgid`: zombies (state Z) have exited already and only wait for their parent. */
export const groupMembers = (pgid: number): number[] => processes().filter((p) => p.pgrp === pgid && p.state !== "Z").map((p) => p.pid);

/** What a caller may change about the server it starts; nothing given starts it as before. */
export interface StartOptions {
  /** Seconds between the cron ticks start.mjs drives (default 2). */
  cronIntervalS?: number;
  /**
   * Extra settings for the child, e.g. `LESSOR_RATE_LIMIT_PER_MINUTE`: they override wrangler.toml's
   * [vars] (start.mjs passes every LESSOR_* variable through). The bootstrap token still comes from
   * `.dev.vars`, never from here.
   */
  env?: Record<string, string>;
}

/**
 * Starts the server; a port taken between `freePort()` and wrangler's bind (start.mjs then exits
 * with wrangler's "Address already in use") is retried on another port, twice at most.
 */
export async function startServer(options: StartOptions = {}): Promise<Server> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (e) {
      if (attempt >= 3 || !(e instanceof PortTakenError)) throw e;
    }
  }
}

class PortTakenError extends Error {}

/** Servers started and not stopped yet: what `stopAll` stops, and the exit hook's safety net. */
const running = new Set<Server>();

process.once("exit", () => {
  for (const server of running) {
    try {
      process.kill(-server.pid, "SIGTERM");
    } catch {
      // gone
    }
  }
});

/** Servers spawned and not stopped, including one still starting (e.g. when beforeAll timed out). */
export function runningServers(): Server[] {
  return [...running];
}

/**
 * Where a server's local state lives: `LESSOR_E2E_STATE_ROOT`, else a RAM-backed /dev/shm when
 * the machine has one, else the temp dir. The local runtime commits every Durable Object write,
 * every D1 write and every alarm to SQLite files with a sync each; on a shared virtual disk those
 * syncs, not lessor, set the latency of every alarm (measured with `npm run chaos`: the ttl
 * deadline to release p50 was 0.47 s with the state on disk and 0.002 s in RAM, same code). The
 * state is thrown away after the run either way.
 */
export function stateRoot(): string {
  const chosen = process.env.LESSOR_E2E_STATE_ROOT;
  if (chosen) return chosen;
  try {
    accessSync("/dev/shm", constants.W_OK);
    return "/dev/shm";
  } catch {
    return tmpdir();
  }
}

async function startOnce(options: StartOptions): Promise<Server> {
  const port = await freePort();
  const stateDir = mkdtempSync(path.join(stateRoot(), "lessor-e2e-"));
  const logFile = path.join(stateDir, "start.log");
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("LESSOR_")) env[k] = v;
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (k === "LESSOR_BOOTSTRAP_TOKEN") throw new Error("startServer: the bootstrap token comes from .dev.vars");
    env[k] = v;
  }
  Object.assign(env, { PORT: String(port), LESSOR_STATE_DIR: stateDir, LESSOR_CRON_INTERVAL_S: String(options.cronIntervalS ?? 2) });

  const fd = openSync(logFile, "a");
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, ["scripts/start.mjs"], {
      cwd: repoRoot,
      env,
      detached: true,
      stdio: ["ignore", fd, fd],
    });
  } finally {
    closeSync(fd);
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  const log = () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : "");

  const server: Server = {
    base: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    stateDir,
    logFile,
    wranglerPgid: null,
    child,
    exited,
    log,
  };
  running.add(server);

  const deadline = Date.now() + START_TIMEOUT_MS;
  let output: string;
  while (!(output = log()).includes(READY_LINE)) {
    // wrangler dev waits for a file change after a failed build; a test need not wait with it.
    const buildFailed = /Build failed with \d+ error/.test(output);
    if (hasExited || buildFailed || Date.now() > deadline) {
      const why = hasExited
        ? "exited before serving"
        : buildFailed
          ? "could not build the Worker"
          : `did not print "${READY_LINE}" within ${START_TIMEOUT_MS} ms`;
      server.wranglerPgid = wranglerGroupOf(server.pid);
      await stopServer(server).catch(() => {});
      output = log();
      removeStateDir(server);
      const message = `node scripts/start.mjs ${why}; its output:\n${output}`;
      throw hasExited && /Address already in use/.test(output) ? new PortTakenError(message) : new Error(message);
    }
    await sleep(200);
  }
  // start.mjs spawns `wrangler dev` detached: its pid is its process group.
  server.wranglerPgid = wranglerGroupOf(server.pid);
  return server;
}

/**
 * SIGTERM to start.mjs's process group, then wait for it to exit. Returns what is left of the
 * `wrangler dev` process group afterwards (killed here, so that nothing outlives the tests).
 */
export async function stopServer(server: Server): Promise<{ exit: { code: number | null; signal: NodeJS.Signals | null }; leftovers: number[] }> {
  running.delete(server);
  try {
    process.kill(-server.pid, "SIGTERM");
  } catch {
    // already gone
  }
  const timedOut = Symbol("timeout");
  let exit = await Promise.race([server.exited, sleep(STOP_TIMEOUT_MS).then(() => timedOut)]);
  if (exit === timedOut) {
    try {
      process.kill(-server.pid, "SIGKILL");
    } catch {
      // gone
    }
    await server.exited;
    exit = { code: null, signal: "SIGKILL" };
  }
  let leftovers: number[] = [];
  if (server.wranglerPgid !== null) {
    // workerd may take a moment after wrangler's own exit.
    const deadline = Date.now() + 5_000;
    while ((leftovers = groupMembers(server.wranglerPgid)).length > 0 && Date.now() < deadline) await sleep(100);
    if (leftovers.length > 0) {
      try {
        process.kill(-server.wranglerPgid, "SIGKILL");
      } catch {
        // gone
      }
    }
  }
  return { exit: exit as { code: number | null; signal: NodeJS.Signals | null }, leftovers };
}

export function removeStateDir(server: Server) {
  rmSync(server.stateDir, { recursive: true, force: true });
}

/** The bootstrap token as the README's walkthrough reads it: `sed -n 's/^LESSOR_BOOTSTRAP_TOKEN=//p' .dev.vars`. */
export function bootstrapTokenFromDevVars(): string {
  const text = readFileSync(path.join(repoRoot, ".dev.vars"), "utf8");
  const values = text
    .split("\n")
    .filter((line) => line.startsWith("LESSOR_BOOTSTRAP_TOKEN="))
    .map((line) => line.slice("LESSOR_BOOTSTRAP_TOKEN=".length));
  if (values.length !== 1 || !values[0]) {
    throw new Error(`.dev.vars should hold exactly one LESSOR_BOOTSTRAP_TOKEN= line, found ${values.length}`);
  }
  return values[0];
}

/** A JSON call to `server` with a bearer credential: its status and parsed body. */
export async function apiCall(server: Server, method: string, route: string, bearer: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server.base}${route}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as any };
}
