#!/usr/bin/env node
/**
 * `npm start`: lessor on http://127.0.0.1:$PORT (default 8787), fully local.
 *
 * 1. Finds the bootstrap token in the environment or `.dev.vars`; where neither has one, generates
 *    one, writes it to `.dev.vars` (git-ignored) and prints it once. LESSOR_MASTER_KEY, which
 *    encrypts orgs' provider keys, is found or generated the same way (and not printed).
 * 2. Applies the D1 migrations to the local database.
 * 3. Runs `wrangler dev --test-scheduled` and, because wrangler dev never fires cron triggers by
 *    itself, drives the cron handler through `/__scheduled` at start (which seeds the offer cache
 *    from the simulated cloud) and then every LESSOR_CRON_INTERVAL_S seconds (default 60).
 * 4. On SIGINT/SIGTERM stops the ticker and the wrangler process group it started, by pid.
 *
 * Settings: PORT, LESSOR_STATE_DIR (local D1/Durable Object state, default .wrangler/state),
 * LESSOR_CRON_INTERVAL_S, and any LESSOR_* variable, which overrides wrangler.toml's [vars].
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// An empty setting means the default: an empty LESSOR_STATE_DIR would otherwise resolve to the
// repository's root and put the local database and lessor.env (with the bootstrap token) there.
const port = Number(process.env.PORT || 8787);
const stateDir = path.resolve(root, process.env.LESSOR_STATE_DIR || ".wrangler/state");
const cronIntervalS = Number(process.env.LESSOR_CRON_INTERVAL_S || 60);
const CRON = "* * * * *";
const wrangler = path.join(root, "node_modules", ".bin", "wrangler");
const devVarsPath = path.join(root, ".dev.vars");

if (!Number.isInteger(port) || port < 1 || port > 65535) fail(`PORT must be a TCP port, not "${process.env.PORT}"`);
if (!(cronIntervalS > 0)) fail(`LESSOR_CRON_INTERVAL_S must be a positive number of seconds`);

function fail(message) {
  console.error(`lessor: ${message}`);
  process.exit(1);
}

function log(message) {
  console.log(`lessor: ${message}`);
}

/** KEY=VALUE lines; blank lines and # comments skipped; surrounding quotes removed. */
function parseEnvFile(text) {
  const vars = {};
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!m || line.trim().startsWith("#")) continue;
    vars[m[1]] = m[2].replace(/^(['"])(.*)\1$/, "$2");
  }
  return vars;
}

// 1. The bootstrap token and the variables the Worker sees.
const devVars = existsSync(devVarsPath) ? parseEnvFile(readFileSync(devVarsPath, "utf8")) : {};
const vars = { ...devVars };
for (const [k, v] of Object.entries(process.env)) if (k.startsWith("LESSOR_") && v !== undefined) vars[k] = v;
delete vars.LESSOR_STATE_DIR;
delete vars.LESSOR_CRON_INTERVAL_S;
if (!vars.LESSOR_BOOTSTRAP_TOKEN) {
  const token = `lsrb_${randomBytes(32).toString("base64url")}`;
  const prefix = existsSync(devVarsPath) ? readFileSync(devVarsPath, "utf8").replace(/\n?$/, "\n") : "";
  writeFileSync(devVarsPath, `${prefix}LESSOR_BOOTSTRAP_TOKEN=${token}\n`, { mode: 0o600 });
  vars.LESSOR_BOOTSTRAP_TOKEN = token;
  log(`generated a bootstrap token and wrote it to .dev.vars (git-ignored):\n\n  LESSOR_BOOTSTRAP_TOKEN=${token}\n`);
}
if (!vars.LESSOR_MASTER_KEY) {
  // Provider keys are encrypted under it. Not printed: nobody needs to type it, only to keep it.
  const key = randomBytes(32).toString("base64url");
  const prefix = existsSync(devVarsPath) ? readFileSync(devVarsPath, "utf8").replace(/\n?$/, "\n") : "";
  writeFileSync(devVarsPath, `${prefix}LESSOR_MASTER_KEY=${key}\n`, { mode: 0o600 });
  vars.LESSOR_MASTER_KEY = key;
  log("generated LESSOR_MASTER_KEY (encrypts provider keys) and wrote it to .dev.vars (git-ignored)");
}

// The Worker reads its variables from one env file, written where only this user can read it.
mkdirSync(stateDir, { recursive: true });
const envFile = path.join(stateDir, "lessor.env");
writeFileSync(
  envFile,
  Object.entries(vars)
    .map(([k, v]) => `${k}=${v}`)
    .join("\n") + "\n",
  { mode: 0o600 },
);

// 2. Local D1 migrations.
const migrate = spawnSync(
  wrangler,
  ["d1", "migrations", "apply", "DB", "--local", "--persist-to", stateDir],
  { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, CI: "true" }, encoding: "utf8" },
);
if (migrate.status !== 0) fail(`applying D1 migrations failed:\n${migrate.stdout}\n${migrate.stderr}`);
log("local D1 migrated");

// 3. wrangler dev, in its own process group so that stopping it stops workerd too.
const child = spawn(
  wrangler,
  [
    "dev",
    "--ip", "127.0.0.1",
    "--port", String(port),
    "--persist-to", stateDir,
    "--env-file", envFile,
    "--test-scheduled",
    "--show-interactive-dev-session=false",
    "--log-level", process.env.LESSOR_LOG_LEVEL ?? "log",
  ],
  { cwd: root, stdio: ["ignore", "inherit", "inherit"], detached: true },
);

const base = `http://127.0.0.1:${port}`;
let ticker = null;
let stopping = false;

function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  if (ticker) clearInterval(ticker);
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    // already gone
  }
  const hard = setTimeout(() => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
    process.exit(code);
  }, 5_000);
  hard.unref();
  child.once("exit", () => process.exit(code));
}

process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));
child.on("exit", (code) => {
  if (!stopping) {
    log(`wrangler dev exited (${code}); stopping`);
    stop(code ?? 1);
  }
});

async function tick() {
  try {
    const res = await fetch(`${base}/__scheduled?cron=${encodeURIComponent(CRON)}`);
    if (!res.ok) log(`cron tick answered ${res.status}`);
  } catch (e) {
    log(`cron tick failed: ${e.message}`);
  }
}

async function waitUntilServing(deadline) {
  while (Date.now() < deadline && !stopping) {
    try {
      const res = await fetch(`${base}/v1/healthz`);
      if (res.ok) return true;
    } catch {
      // not yet listening
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

if (!(await waitUntilServing(Date.now() + 90_000))) {
  log("wrangler dev did not start serving within 90 s");
  stop(1);
} else {
  await tick();
  ticker = setInterval(tick, cronIntervalS * 1000);
  log(`serving on ${base} (cron every ${cronIntervalS} s; Ctrl-C stops)`);
}
