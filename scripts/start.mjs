#!/usr/bin/env node
/**
 * `npm start`: lessor on http://127.0.0.1:$PORT (default 8787), fully local.
 *
 * 1. Finds the bootstrap token in the environment or `.dev.vars`; where neither has one, generates
 *    one, writes it to `.dev.vars` (git-ignored) and prints it once. LESSOR_MASTER_KEY, which
 *    encrypts orgs' provider keys, and LESSOR_INGRESS_TOKEN, under which providers' webhooks (the
 *    sim's too) come in, are found or generated the same way (and not printed).
 * 2. Builds the browser console into dist/ (scripts/build-console.mjs) and applies the D1
 *    migrations to the local database.
 * 3. Runs `wrangler dev --test-scheduled` and, because wrangler dev never fires cron triggers by
 *    itself, drives the cron handler through `/__scheduled` at start (which seeds the offer cache
 *    from the simulated cloud) and then every LESSOR_CRON_INTERVAL_S seconds (default 60).
 * 4. On SIGINT/SIGTERM, at any step, stops the ticker and the process group of whichever wrangler
 *    it started (the migration step's, which runs a workerd of its own, or `wrangler dev`'s), by
 *    pid, and exits once that group is empty: nothing it started outlives it (docs/design.md "Operating rules").
 *
 * It refuses to start, with the reason, when a setting would make the Worker refuse to serve: the
 * rules are src/config.ts's (a bootstrap token or master key shorter than 32 characters, a
 * malformed installation id).
 *
 * Settings: PORT, LESSOR_STATE_DIR (local D1/Durable Object state, default .wrangler/state),
 * LESSOR_PUBLIC_URL (where machines reach lessor; default http://127.0.0.1:$PORT),
 * LESSOR_CRON_INTERVAL_S, and any LESSOR_* variable, which overrides wrangler.toml's [vars].
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildConsole } from "./build-console.mjs";

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
/** Appends `name=value` to `.dev.vars` (made if missing, readable by this user only) and uses it. */
function keepGenerated(name, value) {
  const prefix = existsSync(devVarsPath) ? readFileSync(devVarsPath, "utf8").replace(/\n?$/, "\n") : "";
  writeFileSync(devVarsPath, `${prefix}${name}=${value}\n`, { mode: 0o600 });
  vars[name] = value;
}
if (!vars.LESSOR_BOOTSTRAP_TOKEN) {
  keepGenerated("LESSOR_BOOTSTRAP_TOKEN", `lsrb_${randomBytes(32).toString("base64url")}`);
  log(`generated a bootstrap token and wrote it to .dev.vars (git-ignored):\n\n  LESSOR_BOOTSTRAP_TOKEN=${vars.LESSOR_BOOTSTRAP_TOKEN}\n`);
}
if (!vars.LESSOR_MASTER_KEY) {
  // Provider keys are encrypted under it. Not printed: nobody needs to type it, only to keep it.
  keepGenerated("LESSOR_MASTER_KEY", randomBytes(32).toString("base64url"));
  log("generated LESSOR_MASTER_KEY (encrypts provider keys) and wrote it to .dev.vars (git-ignored)");
}
if (!vars.LESSOR_INGRESS_TOKEN) {
  // Providers' webhooks come in under it (docs/ingress.md); the sim signs its own with a key
  // derived from it, so the sim's webhooks run the whole ingress path. Not printed: locally only
  // the sim uses it.
  keepGenerated("LESSOR_INGRESS_TOKEN", randomBytes(32).toString("hex"));
  log("generated LESSOR_INGRESS_TOKEN (provider webhooks, docs/ingress.md) and wrote it to .dev.vars (git-ignored)");
}

// Where machines reach lessor (src/env.ts): this local URL unless one is given, so that the sim's
// machines are told where their agent lives. A machine of a real provider cannot reach it: give
// LESSOR_PUBLIC_URL (a tunnel's https URL, say) to rent real ones against a local lessor.
if (!vars.LESSOR_PUBLIC_URL) vars.LESSOR_PUBLIC_URL = `http://127.0.0.1:${port}`;

// A webhook receiver on this machine (http://127.0.0.1:...) is a valid target under `npm start`
// only: src/outbound/target.ts refuses loopback addresses otherwise, and production refuses the
// setting itself (src/config.ts). Set it to 0 to try the guard locally.
if (vars.LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP === undefined) vars.LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP = "1";

// The same rules as src/config.ts's configProblems, for the settings a local run can get wrong:
// the Worker would answer every request with 503 `misconfigured`, so say it here, before starting.
const problems = [];
if (vars.LESSOR_BOOTSTRAP_TOKEN.length < 32) problems.push("LESSOR_BOOTSTRAP_TOKEN must be at least 32 characters (remove it from .dev.vars and the environment to have one generated)");
if (vars.LESSOR_MASTER_KEY.length < 32) problems.push("LESSOR_MASTER_KEY must be at least 32 characters (remove it from .dev.vars and the environment to have one generated)");
if (!/^[A-Za-z0-9._~-]{32,}$/.test(vars.LESSOR_INGRESS_TOKEN)) problems.push("LESSOR_INGRESS_TOKEN must be at least 32 characters of A-Z, a-z, 0-9, '-', '_', '.', '~' (remove it from .dev.vars and the environment to have one generated)");
if (vars.LESSOR_INSTALLATION_ID !== undefined && !/^[a-z0-9]{1,24}$/.test(vars.LESSOR_INSTALLATION_ID)) problems.push("LESSOR_INSTALLATION_ID must be 1 to 24 lowercase letters and digits");
if (!/^https?:\/\/[^/?#@\s]+\/?$/.test(vars.LESSOR_PUBLIC_URL)) problems.push("LESSOR_PUBLIC_URL must be an http or https origin (scheme, host, port), e.g. https://lessor.example.com");
const ports = vars.LESSOR_OUTBOUND_PORTS;
if (ports && !ports.split(",").every((p) => /^\s*\d{1,5}\s*$/.test(p) && Number(p) >= 1 && Number(p) <= 65535)) problems.push("LESSOR_OUTBOUND_PORTS must be ports separated by commas (e.g. `8443,9443`)");
const resolver = vars.LESSOR_DNS_RESOLVER;
const resolverUrl = resolver && resolver !== "off" && URL.canParse(resolver) ? new URL(resolver) : null;
if (resolver && resolver !== "off" && !(resolverUrl?.protocol === "https:" && !resolverUrl.username && !resolverUrl.password && !resolverUrl.hash)) {
  problems.push("LESSOR_DNS_RESOLVER must be `off` or the https URL of a DNS-over-HTTPS JSON resolver");
}
if (problems.length > 0) fail(`refusing to start:\n  ${problems.join("\n  ")}`);

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

// Whatever wrangler runs now (the migration step's, then `wrangler dev`) runs in its own process
// group, so that stopping the group stops the workerd it starts too. A signal at any step stops
// that group and waits until it is empty before exiting.
let child = null;
let ticker = null;
let stopping = false;

function spawnGroup(args, stdio, env = process.env) {
  return spawn(wrangler, args, { cwd: root, stdio, detached: true, env });
}

function killGroup(proc, signal) {
  try {
    process.kill(-proc.pid, signal);
  } catch {
    // the group is already gone
  }
}

/** Whether process group `pgid` still has a live member (Linux /proc; elsewhere, the leader). */
function groupAlive(pgid) {
  if (existsSync("/proc")) {
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (Number(fields[2]) === pgid && fields[0] !== "Z") return true;
      } catch {
        // gone while we looked
      }
    }
    return false;
  }
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  if (ticker) clearInterval(ticker);
  const proc = child;
  if (proc) {
    killGroup(proc, "SIGTERM");
    // wrangler stops its workerd on SIGTERM; whatever is left after 5 s is killed.
    const deadline = Date.now() + 5_000;
    while (groupAlive(proc.pid) && Date.now() < deadline) await sleep(100);
    if (groupAlive(proc.pid)) {
      killGroup(proc, "SIGKILL");
      const hard = Date.now() + 2_000;
      while (groupAlive(proc.pid) && Date.now() < hard) await sleep(50);
    }
  }
  process.exit(code);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

process.on("SIGINT", () => void stop(0));
process.on("SIGTERM", () => void stop(0));
process.on("SIGHUP", () => void stop(0));

// The browser console's assets (docs/console.md), which `wrangler dev` serves from dist/.
try {
  buildConsole();
} catch (e) {
  fail(`building the console failed: ${e.message}`);
}

// 2. Local D1 migrations.
{
  let output = "";
  // CI=true: wrangler asks no question before applying.
  child = spawnGroup(["d1", "migrations", "apply", "DB", "--local", "--persist-to", stateDir], ["ignore", "pipe", "pipe"], { ...process.env, CI: "true" });
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const status = await new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  if (stopping) await new Promise(() => {}); // stop() exits once the group is empty
  // The step's workerd may outlive its wrangler for a moment: none is left behind.
  killGroup(child, "SIGTERM");
  child = null;
  if (status !== 0) fail(`applying D1 migrations failed:\n${output}`);
  log("local D1 migrated");
}

// 3. wrangler dev, in its own process group so that stopping it stops workerd too.
child = spawnGroup(
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
  ["ignore", "inherit", "inherit"],
);

const base = `http://127.0.0.1:${port}`;
child.on("exit", (code) => {
  if (!stopping) {
    log(`wrangler dev exited (${code}); stopping`);
    void stop(code ?? 1);
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

const serving = await waitUntilServing(Date.now() + 90_000);
if (stopping) {
  // a signal came while starting: stop() exits once wrangler's group is empty
} else if (!serving) {
  log("wrangler dev did not start serving within 90 s");
  void stop(1);
} else {
  await tick();
  ticker = setInterval(tick, cronIntervalS * 1000);
  log(`serving on ${base} (cron every ${cronIntervalS} s; Ctrl-C stops)`);
}
