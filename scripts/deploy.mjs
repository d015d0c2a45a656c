#!/usr/bin/env node
/**
 * `npm run deploy`: deploys wrangler.toml's `[env.production]` to the Cloudflare account wrangler
 * is logged in to (`npx wrangler login`). Safe to run again: each step does only what is missing.
 *
 * 1. Checks that wrangler is logged in.
 * 2. The first time, creates the production D1 database (`wrangler d1 create lessor`) and writes
 *    its id into wrangler.toml's `[env.production]` (commit that change).
 * 3. Applies the D1 migrations to it, and creates the webhook queues `[env.production]` names
 *    (`wrangler queues create`) that the account does not have yet.
 * 4. Uploads, with the deploy, the Worker secrets it does not have yet (scripts/deploy-lib.mjs
 *    SECRETS): LESSOR_INSTALLATION_ID and LESSOR_PUBLIC_URL must be given in the environment the first time;
 *    LESSOR_MASTER_KEY and LESSOR_BOOTSTRAP_TOKEN are generated when not given, and a generated
 *    bootstrap token is printed once. Values given in the environment replace the Worker's.
 * 5. Builds the browser console (scripts/build-console.mjs) and deploys it with the Worker, then prints the Worker's URL and a first request.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildConsole } from "./build-console.mjs";
import { parseCreatedD1Id, PLACEHOLDER_D1_ID, productionD1Id, productionQueues, queueCreated, SECRETS, secretsToUpload, withProductionD1Id } from "./deploy-lib.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const wranglerBin = path.join(root, "node_modules", ".bin", "wrangler");
const tomlPath = path.join(root, "wrangler.toml");
const ENV = ["--env", "production"];

function fail(message) {
  console.error(`lessor deploy: ${message}`);
  process.exit(1);
}

function log(message) {
  console.log(`lessor deploy: ${message}`);
}

/** Runs wrangler; its output is returned (and shown when `show`). CI=true: it asks nothing. */
function wrangler(args, { show = false } = {}) {
  const r = spawnSync(wranglerBin, args, { cwd: root, encoding: "utf8", env: { ...process.env, CI: "true" }, stdio: ["ignore", "pipe", "pipe"] });
  const output = `${r.stdout ?? ""}${r.stderr ?? ""}`;
  if (show) process.stdout.write(output);
  return { ok: r.status === 0, output };
}

// 1. Logged in?
const who = wrangler(["whoami"]);
if (!who.ok || /not authenticated/i.test(who.output)) fail("wrangler is not logged in: run `npx wrangler login` first");

// 2. The production database.
let toml = readFileSync(tomlPath, "utf8");
const d1 = productionD1Id(toml);
if (d1 === null) fail("wrangler.toml's [env.production] names no D1 database");
if (d1 === PLACEHOLDER_D1_ID) {
  log("creating the production D1 database `lessor`");
  const created = wrangler(["d1", "create", "lessor"], { show: true });
  const id = parseCreatedD1Id(created.output);
  if (!created.ok || !id) fail("`wrangler d1 create lessor` did not print a database id (if it exists already, put its id in wrangler.toml's [env.production])");
  toml = withProductionD1Id(toml, id);
  writeFileSync(tomlPath, toml);
  log(`wrote the database id ${id} into wrangler.toml's [env.production]; commit it`);
}

// 3. Migrations.
log("applying D1 migrations");
const migrated = wrangler(["d1", "migrations", "apply", "DB", "--remote", ...ENV], { show: true });
if (!migrated.ok) fail("applying the D1 migrations failed (see above)");

// The webhook queues (docs/events.md): a Worker that consumes a queue the account lacks does not deploy.
for (const queue of productionQueues(toml)) {
  const created = wrangler(["queues", "create", queue]);
  const outcome = queueCreated(created.ok, created.output);
  if (outcome === "failed") {
    process.stdout.write(created.output);
    fail(`creating the queue ${queue} failed (see above)`);
  }
  if (outcome === "created") log(`created the queue ${queue}`);
}

// 4. Secrets: which the Worker has (none before its first deploy).
const listed = wrangler(["secret", "list", "--format", "json", ...ENV]);
let existing = [];
try {
  existing = listed.ok ? JSON.parse(listed.output.slice(listed.output.indexOf("["))).map((s) => s.name) : [];
} catch {
  existing = [];
}
const given = {};
for (const { name } of SECRETS) if (process.env[name]) given[name] = process.env[name];
let plan;
try {
  plan = secretsToUpload(existing, given, (name) => (name === "LESSOR_BOOTSTRAP_TOKEN" ? `lsrb_${randomBytes(32).toString("base64url")}` : randomBytes(32).toString("base64url")));
} catch (e) {
  fail(e.message);
}

// The browser console's assets (docs/console.md), uploaded with the Worker from dist/.
buildConsole();

// 5. Deploy, with the secrets in a file only this user can read, removed at once.
const dir = mkdtempSync(path.join(tmpdir(), "lessor-deploy-"));
const secretsFile = path.join(dir, "secrets.json");
let deployed;
try {
  writeFileSync(secretsFile, JSON.stringify(plan.upload), { mode: 0o600 });
  const args = ["deploy", ...ENV];
  if (Object.keys(plan.upload).length > 0) args.push("--secrets-file", secretsFile);
  log(`deploying${Object.keys(plan.upload).length ? ` with secrets ${Object.keys(plan.upload).join(", ")}` : ""}`);
  deployed = wrangler(args, { show: true });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (!deployed.ok) fail("`wrangler deploy --env production` failed (see above)");

const url = /https:\/\/[a-z0-9.-]+\.workers\.dev/.exec(deployed.output)?.[0] ?? "https://<your Worker's URL>";
if (plan.generated.includes("LESSOR_MASTER_KEY")) log("generated LESSOR_MASTER_KEY; it is held only by the Worker");
if (plan.generated.includes("LESSOR_BOOTSTRAP_TOKEN")) {
  log(`generated LESSOR_BOOTSTRAP_TOKEN; shown this once:\n\n  ${plan.upload.LESSOR_BOOTSTRAP_TOKEN}\n`);
}
log(`deployed: ${url}\n\nfirst request:\n  curl -s ${url}/v1/healthz\n  curl -s -X POST ${url}/v1/orgs -H "Authorization: Bearer $LESSOR_BOOTSTRAP_TOKEN" -H 'Content-Type: application/json' -d '{"name": "acme"}'`);
