/**
 * The Python client's own tests (clients/python/tests, pytest) in `npm test`, against a real
 * `wrangler dev` started as `npm start` starts it: the workflows sync and async, the errors, a
 * follow that survives a dropped connection, the package checked as Python 3.10, and the README's
 * two notebook cells run in a Jupyter kernel, `openai` (Python) chatting with a deployment `up`
 * made. pytest's JUnit report is read back: every test must have run and passed, none skipped.
 *
 * The environment is clients/python/.venv (git-ignored), made once with `python3 -m venv` from
 * clients/python/requirements-test.txt and the package itself, and made again when either file
 * changes; the package is reinstalled from its source (not editable) on every run, as
 * `pip install ./clients/python` installs it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiCall, bootstrapTokenFromDevVars, removeStateDir, repoRoot, runningServers, startServer, stopServer, type Server } from "./server";

const CLIENT = path.join(repoRoot, "clients", "python");
const VENV = path.join(CLIENT, ".venv");
const PYTHON = path.join(VENV, "bin", "python");
const STAMP = path.join(VENV, ".lessor-inputs");
/** The venv is made at most once a checkout (about a minute from a local package mirror); pytest then takes about two. */
const VENV_TIMEOUT_MS = 600_000;
const PYTEST_TIMEOUT_MS = 900_000;

let server: Server;
let key: string;
let pytest: ChildProcess | null = null;
const work = mkdtempSync(path.join(tmpdir(), "lessor-pytest-"));

/** A fingerprint of what the venv is made from: when it changes, the venv is made again. */
function inputs(): string {
  const hash = createHash("sha256");
  for (const file of ["requirements-test.txt", "pyproject.toml"]) hash.update(readFileSync(path.join(CLIENT, file)));
  return hash.digest("hex");
}

/** Runs a setup step, its output into `log`; throws with that output when it fails. */
async function step(log: string, command: string, args: string[]) {
  const fd = openSync(log, "a");
  // pip asks every package's index once: where the main index is out of reach and a local mirror
  // is the extra one (this machine, CI), its retries would wait minutes for each package.
  const env = { ...process.env, PIP_RETRIES: process.env.PIP_RETRIES ?? "0", PIP_DISABLE_PIP_VERSION_CHECK: "1" };
  const exit = await new Promise<string | null>((resolve) => {
    const child = spawn(command, args, { cwd: repoRoot, env, stdio: ["ignore", fd, fd], timeout: VENV_TIMEOUT_MS });
    child.once("error", (e) => resolve(e.message));
    child.once("exit", (code, signal) => resolve(code === 0 ? null : `exit ${code ?? signal}`));
  }).finally(() => closeSync(fd));
  if (exit !== null) throw new Error(`${command} ${args.join(" ")} failed (${exit}):\n${readFileSync(log, "utf8").slice(-8000)}`);
}

async function ensureVenv() {
  const log = path.join(work, "setup.log");
  const want = inputs();
  if (!existsSync(PYTHON) || !existsSync(STAMP) || readFileSync(STAMP, "utf8") !== want) {
    rmSync(VENV, { recursive: true, force: true });
    // Debian's python3 needs python3-venv for this (.ci/run installs it where it is missing).
    await step(log, "python3", ["-m", "venv", VENV]);
    await step(log, PYTHON, ["-m", "pip", "install", "-r", path.join(CLIENT, "requirements-test.txt"), CLIENT]);
    writeFileSync(STAMP, want);
  }
  await step(log, PYTHON, ["-m", "pip", "install", "--no-deps", "--force-reinstall", CLIENT]);
}

beforeAll(async () => {
  await ensureVenv();
  server = await startServer();
  const org = await apiCall(server, "POST", "/v1/orgs", bootstrapTokenFromDevVars(), { name: "python-client-e2e" });
  expect(org.status, JSON.stringify(org.json)).toBe(201);
  key = org.json.key.secret;
}, VENV_TIMEOUT_MS + 120_000);

afterAll(async () => {
  if (pytest && pytest.exitCode === null && pytest.pid) {
    try {
      process.kill(-pytest.pid, "SIGKILL");
    } catch {
      // gone
    }
  }
  for (const s of server ? [server] : runningServers()) {
    await stopServer(s);
    removeStateDir(s);
  }
  rmSync(work, { recursive: true, force: true });
});

interface Case {
  name: string;
  outcome: "passed" | "failed" | "error" | "skipped";
  message: string;
}

const unescape = (s: string) =>
  s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&#10;/g, "\n").replace(/&amp;/g, "&");

/** The test cases of a pytest JUnit report: each one's name, whether it passed, failed, errored or was skipped, and why. */
function junitCases(xml: string): Case[] {
  return [...xml.matchAll(/<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)].map((m) => {
    const attr = (name: string) => unescape(new RegExp(`\\b${name}="([^"]*)"`).exec(m[1]!)?.[1] ?? "");
    const verdict = /<(failure|error|skipped)\b([^>]*)>([\s\S]*)/.exec(m[2] ?? "");
    const outcome = ({ failure: "failed", error: "error", skipped: "skipped" } as const)[verdict?.[1] as "failure" | "error" | "skipped"] ?? "passed";
    return { name: `${attr("classname")}::${attr("name")}`, outcome, message: verdict ? unescape(`${verdict[2]}\n${verdict[3]}`) : "" };
  });
}

/** The report's own totals (its `<testsuite>`), to check that every case was read. */
function junitTotals(xml: string): Record<"tests" | "failures" | "errors" | "skipped", number> {
  const attrs = /<testsuite\b([^>]*)>/.exec(xml)?.[1] ?? "";
  const count = (name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(attrs)?.[1] ?? NaN);
  return { tests: count("tests"), failures: count("failures"), errors: count("errors"), skipped: count("skipped") };
}

it("the Python client's tests pass against a real wrangler dev, none skipped", { timeout: PYTEST_TIMEOUT_MS + 60_000 }, async () => {
  const junit = path.join(work, "junit.xml");
  const log = path.join(work, "pytest.log");
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("LESSOR_")) env[k] = v;
  Object.assign(env, { LESSOR_URL: server.base, LESSOR_API_KEY: key, LESSOR_TEST_BOOTSTRAP_TOKEN: bootstrapTokenFromDevVars() });
  const fd = openSync(log, "a");
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    // Its own process group, stopped by its id in afterAll if the test times out.
    pytest = spawn(PYTHON, ["-m", "pytest", "-p", "no:cacheprovider", "-rA", `--junitxml=${junit}`], { cwd: CLIENT, env, detached: true, stdio: ["ignore", fd, fd] });
    pytest.once("error", reject);
    pytest.once("exit", (code, signal) => resolve({ code, signal }));
  }).finally(() => closeSync(fd));
  const output = () => `--- pytest's output (${log}) ---\n${readFileSync(log, "utf8").slice(-20_000)}\n--- lessor's (${server.logFile}) ---\n${server.log().slice(-5_000)}`;

  expect(existsSync(junit), `pytest wrote no report\n${output()}`).toBe(true);
  const report = readFileSync(junit, "utf8");
  const cases = junitCases(report);
  const notPassed = cases.filter((c) => c.outcome !== "passed").map((c) => `${c.outcome}: ${c.name}\n${c.message}`);
  expect(notPassed, output()).toEqual([]);
  expect(exit, output()).toEqual({ code: 0, signal: null });
  expect(junitTotals(report)).toEqual({ tests: cases.length, failures: 0, errors: 0, skipped: 0 });
  const names = cases.map((c) => c.name);
  for (const module of ["test_units", "test_client", "test_async", "test_static", "test_readme"]) {
    expect(names.some((n) => n.startsWith(`tests.${module}::`)), `no test of ${module} ran:\n${names.join("\n")}`).toBe(true);
  }
});
