/**
 * End to end: the `lessor` CLI run as a subprocess (`node cli/bin/lessor.mjs`, what `npx lessor`
 * runs) against a real `wrangler dev` started through `npm start`'s own script. Every command once;
 * every `--json` answer parses and matches the OpenAPI document's schema for its route; each exit
 * code the API can produce today is produced on purpose; `login` writes a file only its owner can
 * read; and the committed API types are those the running Worker's document generates.
 *
 * RunPod, Vast and Lambda point at an address where nothing answers, so `providers set` never
 * reaches a real cloud: the key is stored with the verification `unreachable`.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OpenAPI3 } from "openapi-typescript";
import { CLI_TYPES_FILE, cliTypesOf } from "../../scripts/gen-cli-types";
import { ResponseChecker } from "../support/response-check";
import { bootstrapTokenFromDevVars, removeStateDir, repoRoot, runningServers, startServer, stopServer, type Server } from "./server";

const NOWHERE = "http://127.0.0.1:9";
const BIN = path.join(repoRoot, "cli", "bin", "lessor.mjs");

let server: Server;
let home: string;
let doc: OpenAPI3;
let checker: ResponseChecker;
let adminKey: string;

beforeAll(async () => {
  server = await startServer({
    env: { LESSOR_RUNPOD_BASE_URL: `${NOWHERE}/runpod`, LESSOR_VAST_BASE_URL: `${NOWHERE}/vast`, LESSOR_LAMBDA_BASE_URL: `${NOWHERE}/lambda` },
  });
  home = mkdtempSync(path.join(tmpdir(), "lessor-cli-home-"));
  doc = (await (await fetch(`${server.base}/v1/openapi.json`)).json()) as OpenAPI3;
  checker = new ResponseChecker(doc as never);
  const org = await fetch(`${server.base}/v1/orgs`, {
    method: "POST",
    headers: { authorization: `Bearer ${bootstrapTokenFromDevVars()}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "e2e-cli" }),
  });
  expect(org.status).toBe(201);
  adminKey = ((await org.json()) as { key: { secret: string } }).key.secret;
});

afterAll(async () => {
  rmSync(home, { recursive: true, force: true });
  for (const s of server ? [server] : runningServers()) {
    await stopServer(s);
    removeStateDir(s);
  }
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI with a HOME of its own (so no config of the machine's user is read) and no LESSOR_*
 * from the test runner; `env` adds to that, by default the server's URL and the org's admin key.
 */
function lessor(args: string[], options: { env?: Record<string, string>; stdin?: string; configured?: boolean } = {}): Promise<Run> {
  return started(args, options).done;
}

/** The CLI started and still running: its output so far, and its end. */
function started(args: string[], options: { env?: Record<string, string>; stdin?: string; configured?: boolean } = {}) {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("LESSOR_") && k !== "XDG_CONFIG_HOME") env[k] = v;
  Object.assign(env, { HOME: home, NO_COLOR: "1" });
  if (options.configured !== false) Object.assign(env, { LESSOR_URL: server.base, LESSOR_API_KEY: adminKey });
  Object.assign(env, options.env ?? {});
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
  const out = { stdout: "", stderr: "" };
  child.stdout.on("data", (d) => (out.stdout += d));
  child.stderr.on("data", (d) => (out.stderr += d));
  child.stdin.end(options.stdin ?? "");
  const done = new Promise<Run>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, ...out }));
  });
  /** Waits until the output so far matches `pattern`. */
  const until = async (pattern: RegExp, which: "stdout" | "stderr" = "stdout") => {
    const deadline = Date.now() + 60_000;
    while (!pattern.test(out[which])) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`never printed ${pattern}: exit ${child.exitCode}\n${out.stdout}\n${out.stderr}`);
      await sleep(100);
    }
  };
  return { child, out, done, until };
}

const shown = (r: Run) => `exit ${r.code}\n--- stdout ---\n${r.stdout}\n--- stderr ---\n${r.stderr}`;

/** `lessor --json ...args`: exit 0, one JSON document on stdout, matching the schema of `method path status`. */
async function json(args: string[], method: string, route: string, status: number, options: Parameters<typeof lessor>[1] = {}): Promise<any> {
  const r = await lessor(["--json", ...args], options);
  expect(r.code, shown(r)).toBe(0);
  const body = JSON.parse(r.stdout);
  expect(checker.problems(method, route, status, body), shown(r)).toEqual([]);
  return body;
}

/** A failure: the exit code, `error: ...` on stderr, and with --json one error document on stdout. */
async function fails(args: string[], code: number, options: Parameters<typeof lessor>[1] = {}): Promise<any> {
  const human = await lessor(args, options);
  expect(human.code, shown(human)).toBe(code);
  expect(human.stderr, shown(human)).toMatch(/^error: .+/m);
  expect(human.stdout, shown(human)).toBe("");
  const machine = await lessor([...args, "--json"], options);
  expect(machine.code, shown(machine)).toBe(code);
  const body = JSON.parse(machine.stdout);
  expect(body, shown(machine)).toMatchObject({ error: { code: expect.any(String), message: expect.any(String), details: expect.any(Object) }, exit_code: code });
  return body;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitForState(id: string, state: string): Promise<any> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const lease = await json(["status", id], "get", `/v1/leases/${id}`, 200);
    if (lease.state === state) return lease;
    if (Date.now() > deadline) throw new Error(`lease ${id} is ${lease.state}, not ${state}, after 60 s`);
    await sleep(500);
  }
}

async function createLease(name: string): Promise<string> {
  const res = await fetch(`${server.base}/v1/leases`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminKey}`, "content-type": "application/json" },
    body: JSON.stringify({ kind: "scratch", name, spec: { gpu: "l40s:1" }, policy: { ttl: "1h" } }),
  });
  const body = (await res.json()) as { id: string };
  expect(res.status, JSON.stringify(body)).toBe(202);
  return body.id;
}

describe("the lessor CLI against wrangler dev", () => {
  it("its committed API types are those the running Worker's document generates", async () => {
    expect(readFileSync(CLI_TYPES_FILE, "utf8") === (await cliTypesOf(doc)), "cli/api-types.d.ts is stale: run `npm run gen:cli-types`").toBe(true);
  });

  it("login checks the key, then writes it to a file only its owner can read", async () => {
    const xdg = path.join(home, "xdg");
    const file = path.join(xdg, "lessor", "config.json");
    const refused = await lessor(["login", "--url", server.base], { configured: false, env: { XDG_CONFIG_HOME: xdg }, stdin: "lsr_not_a_key\n" });
    expect(refused.code, shown(refused)).toBe(5);
    expect(() => statSync(file)).toThrow();

    const r = await lessor(["login", "--url", server.base], { configured: false, env: { XDG_CONFIG_HOME: xdg }, stdin: `${adminKey}\n` });
    expect(r.code, shown(r)).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(adminKey);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ url: server.base, api_key: adminKey });

    // The file alone is enough now; the environment still wins over it.
    const gpus = await json(["gpus"], "get", "/v1/catalog/gpus", 200, { configured: false, env: { XDG_CONFIG_HOME: xdg } });
    expect(gpus.data.length).toBeGreaterThan(0);
    await fails(["gpus"], 5, { configured: false, env: { XDG_CONFIG_HOME: xdg, LESSOR_API_KEY: "lsr_not_a_key" } });
  });

  it("catalog: gpus, offers, quote", async () => {
    // The first cron tick fills the offers; it may still be running.
    const deadline = Date.now() + 30_000;
    while (!(await json(["gpus"], "get", "/v1/catalog/gpus", 200)).data.some((g: any) => g.name === "l40s" && g.offers > 0)) {
      if (Date.now() > deadline) throw new Error("no l40s offers after 30 s");
      await sleep(500);
    }
    const human = await lessor(["gpus"]);
    expect(human.code, shown(human)).toBe(0);
    expect(human.stdout).toMatch(/^GPU +VRAM +OFFERS +FROM$/m);
    expect(human.stdout).toMatch(/^l40s +48 GB +\d+ +\$\d+\.\d\d\/h$/m);

    const offers = await json(["offers", "--gpu", "l40s", "--max-hourly", "50", "--spot", "--limit", "3"], "get", "/v1/catalog/offers", 200);
    expect(offers.data.length).toBeGreaterThan(0);
    expect(offers.data.length).toBeLessThanOrEqual(3);
    for (const o of offers.data) expect(o).toMatchObject({ gpu: "l40s", spot: true });
    expect(offers.data[0].hourly_usd).toBeLessThanOrEqual(50);
    const page = await lessor(["offers", "--gpu", "l40s", "--limit", "2"]);
    expect(page.code, shown(page)).toBe(0);
    expect(page.stdout.trim().split("\n")).toHaveLength(3);
    expect(page.stderr).toMatch(/^more: lessor offers --cursor \S+$/m);

    const quote = await json(["quote", "--gpu", "l40s:1", "--ttl", "2h"], "post", "/v1/quotes", 201);
    expect(quote).toMatchObject({ id: expect.stringMatching(/^qt_/), offer: { gpu: "l40s" }, policy: { ttl: "2h" }, ceiling_basis: "ttl" });
    const text = await lessor(["quote", "--gpu", "l40s:1", "--ttl", "2h"]);
    expect(text.stdout).toMatch(/^quote: +qt_\S+ \(expires in [45] min\)$/m);
    // The sim bills a stopped machine's disk, so the worst case holds what it may bill while stopped,
    // and what the ttl's release may bill while it waits for the outputs.
    expect(text.stdout).toMatch(/^ceiling: +\$\d+\.\d\d \(by ttl; \$\d+\.\d\d of it stopped disk; \$\d+\.\d\d waiting for outputs; \$\d+\.\d\d price drift\)$/m);
  });

  it("catalog: models", async () => {
    const models = await json(["models"], "get", "/v1/catalog/models", 200);
    expect(models.data.length).toBeGreaterThanOrEqual(12);
    const human = await lessor(["models"]);
    expect(human.code, shown(human)).toBe(0);
    expect(human.stdout).toMatch(/^MODEL +VARIANT +VRAM +HOST RAM +CONTEXT +CPU +FITS$/m);
    const rows = human.stdout.trim().split("\n").slice(1);
    expect(rows.map((r) => r.split(/ +/)[0])).toEqual(models.data.map((m: any) => m.id));
    const first = models.data[0];
    expect(rows[0]).toContain(`${first.min_vram_gb} GB`);
    expect(rows[0]).toContain(first.fits[0]);
  });

  it("leases: ls, status, events, lock, unlock, extend, stop, start, end; by id and by name", async () => {
    const id = await createLease("cli-e2e");
    const listed = await json(["ls", "--name", "cli-e2e"], "get", "/v1/leases", 200);
    expect(listed.data.map((l: any) => l.id)).toEqual([id]);
    const all = await lessor(["ls"]);
    expect(all.stdout).toMatch(new RegExp(`^${id} +cli-e2e +scratch +\\w+ +l40s x1 +sim `, "m"));

    await waitForState("cli-e2e", "ready");
    const status = await lessor(["status", "cli-e2e"]);
    expect(status.code, shown(status)).toBe(0);
    expect(status.stdout).toMatch(/^state: +ready since /m);
    expect(status.stdout).toMatch(/^cost: +(\$\d+\.\d\d|<\$0\.01) so far \(estimate, accruing\)$/m);
    expect(status.stdout).toMatch(/^ttl: +ends in (\d+ min|1 h) \(20\d\d-/m);
    // What the guard does next and when (a scratch lease has no idle timeout by default: the
    // next deadline is the agent's heartbeat watch, or the ttl).
    expect(status.stdout).toMatch(/^guard: +[a-z_]+ in \d+ (min|h)( \([a-z_]+\))?$/m);

    const events = await json(["events", id], "get", `/v1/leases/${id}/events`, 200);
    expect(events.data.length).toBeGreaterThan(0);
    expect((await lessor(["events", "cli-e2e"])).stdout).toMatch(/^SEQ +WHEN +EVENT +STATE +REASON$/m);

    const locked = await json(["lock", id, "--for", "30m"], "post", `/v1/leases/${id}/lock`, 200);
    expect(locked.lock_until).not.toBeNull();
    const unlocked = await json(["unlock", "cli-e2e"], "post", `/v1/leases/${id}/unlock`, 200);
    expect(unlocked.lock_until).toBeNull();
    const extended = await json(["extend", id, "--by", "30m"], "post", `/v1/leases/${id}/extend`, 200);
    expect(Date.parse(extended.ttl_expires_at) - Date.now()).toBeGreaterThan(85 * 60_000);
    const extendText = await lessor(["extend", id, "--by", "1m"]);
    expect(extendText.stdout).toMatch(new RegExp(`^${id}: ready, ttl ends in 1 h( \\d+ min)?$`, "m"));

    await json(["stop", id], "post", `/v1/leases/${id}/stop`, 200);
    await waitForState(id, "stopped");
    await json(["start", id], "post", `/v1/leases/${id}/start`, 200);
    await waitForState(id, "ready");
    const ended = await json(["end", "cli-e2e"], "post", `/v1/leases/${id}/end`, 200);
    expect(ended.state).toMatch(/^releas/);
    // Ending again is harmless.
    const again = await lessor(["end", id]);
    expect(again.code, shown(again)).toBe(0);
    // A state the action does not apply to: the API's invalid_state, a usage error.
    await fails(["stop", id], 2);
  });

  it("run: a job's output streamed and its exit code as the CLI's, on the sim", async () => {
    const r = await lessor(["run", "--gpu", "l4", "--ttl", "10m", "--", "echo hi; exit 3"]);
    expect(r.code, shown(r)).toBe(3);
    expect(r.stdout).toBe("hi\n");
    expect(r.stderr).toMatch(/^lease ls_[0-9a-z]{26} \(sim l4 x1, .+\): following its output; Ctrl-C detaches$/m);

    // --json: one document per line, the chunks and then the exit; the job's words after `--`
    // are its own (the sim's `echo` prints its words as given; a real shell's quoting is unit-tested).
    const j = await lessor(["run", "--json", "--gpu", "l4", "--ttl", "10m", "--", "echo", "--json", "words"]);
    expect(j.code, shown(j)).toBe(0);
    const docs = j.stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(docs.map((d) => d.data).join("")).toBe("--json words\n");
    expect(docs.at(-1)).toMatchObject({ lease_id: expect.stringMatching(/^ls_/), exit: { code: 0, signal: null }, exit_code: 0 });
  });

  it("run --spot --recover: follows the job across a machine taken back, says the restart, exits with the last attempt's code", async () => {
    // A class the sim sells spot, once the cron has read its market.
    let gpu: string | undefined;
    for (let i = 0; i < 120 && gpu === undefined; i++) {
      const offers = (await (await fetch(`${server.base}/v1/catalog/offers?provider=sim&spot=true&limit=200`, { headers: { authorization: `Bearer ${adminKey}` } })).json()) as { data?: Array<{ gpu: string; gpu_count: number }> };
      gpu = offers.data?.find((o) => o.gpu !== "cpu" && o.gpu_count === 1)?.gpu;
      if (gpu === undefined) await new Promise((r) => setTimeout(r, 500));
    }
    if (gpu === undefined) throw new Error("the sim sells no one-GPU spot offer");
    const job = started(["run", "--gpu", gpu, "--spot", "--recover", "preempted", "--restart-backoff", "1s", "--ttl", "10m", "--", "echo attempt $LESSOR_RESTART; sleep 4; echo done"]);
    await job.until(/^attempt 0$/m);
    const id = /lease (ls_[0-9a-z]{26})/.exec(job.out.stderr)![1]!;
    const lease = (await (await fetch(`${server.base}/v1/leases/${id}`, { headers: { authorization: `Bearer ${adminKey}` } })).json()) as { machine: { id: string } };
    const taken = await fetch(`${server.base}/v1/sim/machines/${lease.machine.id}/preempt`, { method: "POST", headers: { authorization: `Bearer ${bootstrapTokenFromDevVars()}` } });
    expect(taken.status).toBe(200);
    const ran = await job.done;
    expect(ran.code, shown(ran)).toBe(0);
    expect(ran.stdout).toBe("attempt 0\nattempt 1\ndone\n");
    expect(ran.stderr).toMatch(/^attempt 1 lost its machine \(preempted\) after \d+ s; restart 1 on sim:\S+ at \d\d:\d\d:\d\d$/m);
    expect(ran.stderr).toMatch(/^restart 1: running again \d+\.\d s after the loss$/m);
  });

  // Hardening item 15 (docs/security.md).
  it("a machine's control sequences reach the terminal escaped unless --raw; a key is never sent over plain http:// to another host", async () => {
    // The sim's command language prints no control character, so the test takes the agent's place
    // (the sim's test route mints its token) and sends the log as a machine's agent would.
    const hostile = "\u001b]0;owned\u0007\u001b[31mred\u009b2J\r";
    const created = await fetch(`${server.base}/v1/leases`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminKey}`, "content-type": "application/json" },
      body: JSON.stringify({ kind: "job", cmd: "hang", spec: { gpu: "l4:1" }, policy: { ttl: "10m", on_exit: "keep" } }),
    });
    expect(created.status).toBe(202);
    const { id } = (await created.json()) as { id: string };
    // Provisioning mints the machine's own token: the test's is minted once the machine is ready.
    for (let i = 0; ; i++) {
      const lease = (await (await fetch(`${server.base}/v1/leases/${id}`, { headers: { authorization: `Bearer ${adminKey}` } })).json()) as { state: string };
      if (lease.state === "ready") break;
      if (i >= 300) throw new Error(`lease ${id} not ready: ${lease.state}`);
      await sleep(200);
    }
    const minted = await fetch(`${server.base}/v1/sim/leases/${id}/agent-token`, { method: "POST", headers: { authorization: `Bearer ${bootstrapTokenFromDevVars()}` } });
    expect(minted.status).toBe(201);
    const { token } = (await minted.json()) as { token: string };
    const sent = await fetch(`${server.base}/v1/agent/logs`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "lessor-lease-id": id, "lessor-log-seq": "0", "content-type": "text/plain" },
      body: `${hostile}\n`,
    });
    expect(sent.status).toBe(200);

    const escaped = await lessor(["logs", id]);
    expect(escaped.code, shown(escaped)).toBe(0);
    expect(escaped.stdout).toBe("\\x1b]0;owned\\x07\\x1b[31mred\\x9b2J\\x0d\n");
    const raw = await lessor(["--raw", "logs", id]);
    expect(raw.stdout).toBe(`${hostile}\n`);
    const json = await lessor(["--json", "logs", id]);
    expect(json.stdout).not.toMatch(/[\u001b\u0007\u009b\r]/);
    expect(JSON.parse(json.stdout).text).toBe(`${hostile}\n`);
    expect((await lessor(["end", id])).code).toBe(0);

    const plain = await lessor(["gpus"], { env: { LESSOR_URL: "http://lessor.invalid:8787" } });
    expect(plain.code, shown(plain)).toBe(2);
    expect(plain.stderr).toBe("error: refusing to send the API key over plain http:// to lessor.invalid:8787: use https://, or pass --insecure to send it anyway\n");
  });

  it("run, logs -f, kill, events -f: a killed job exits 128 + TERM; Ctrl-C detaches, or ends the lease with --rm", async () => {
    const job = started(["run", "--gpu", "l4", "--ttl", "10m", "--name", "cli-long", "--", "echo started; sleep 600"]);
    await job.until(/^started$/m);
    const id = /lease (ls_[0-9a-z]{26})/.exec(job.out.stderr)![1]!;
    const follower = started(["logs", "cli-long", "-f"]);
    await follower.until(/^started$/m);
    const events = started(["events", id, "-f", "--json"]);
    await events.until(/"type":"ready"/);

    const killed = await json(["kill", "cli-long", "--timeout", "5s"], "post", `/v1/leases/${id}/kill`, 200);
    expect(killed.outcome).toBe("stopped");
    const ran = await job.done;
    expect(ran.code, shown(ran)).toBe(143);
    expect(ran.stderr).toMatch(/ended by SIGTERM/);
    const followed = await follower.done;
    expect(followed.code, shown(followed)).toBe(0);
    expect(followed.stdout).toBe("started\n");
    // The job's lease is released once its command exits; the event follow ends there.
    const evented = await events.done;
    expect(evented.code, shown(evented)).toBe(0);
    const types = evented.stdout.trim().split("\n").map((line) => JSON.parse(line).type);
    expect(types[0]).toBe("created");
    expect(types.at(-1)).toBe("released");
    const tail = await lessor(["logs", id, "--tail", "1"]);
    expect(tail.stdout).toBe("started\n");
    // Killing what has ended answers stopped again.
    expect((await lessor(["kill", id])).code).toBe(0);

    // Ctrl-C: detached, the job goes on; then with --rm, the lease ends.
    const detached = started(["run", "--gpu", "l4", "--ttl", "10m", "--", "echo up; hang"]);
    await detached.until(/^up$/m);
    detached.child.kill("SIGINT");
    const d = await detached.done;
    expect(d.code, shown(d)).toBe(130);
    const detachedId = /lease (ls_[0-9a-z]{26})/.exec(d.stderr)![1]!;
    expect(d.stderr).toContain(`lessor logs ${detachedId} -f`);
    expect((await json(["status", detachedId], "get", `/v1/leases/${detachedId}`, 200)).state).toBe("ready");
    await json(["end", detachedId], "post", `/v1/leases/${detachedId}/end`, 200);

    const removed = started(["run", "--rm", "--gpu", "l4", "--ttl", "10m", "--", "echo up; hang"]);
    await removed.until(/^up$/m);
    removed.child.kill("SIGINT");
    const rm = await removed.done;
    expect(rm.code, shown(rm)).toBe(130);
    const removedId = /lease (ls_[0-9a-z]{26})/.exec(rm.stderr)![1]!;
    expect(rm.stderr).toContain(`ended lease ${removedId}`);
    expect((await json(["status", removedId], "get", `/v1/leases/${removedId}`, 200)).state).toMatch(/^releas/);
  });

  it("scratch: run waits for the machine, exec answers the command's output and exit code, ls, logs, end", async () => {
    const lease = await json(["scratch", "run", "--gpu", "l40s:1", "--ttl", "30m", "--name", "cli-scratch"], "get", "/v1/leases/{id}", 200);
    expect(lease.state).toBe("ready");
    const ran = await lessor(["scratch", "exec", "cli-scratch", "--", "echo there; exit 4"]);
    expect(ran.code, shown(ran)).toBe(4);
    expect(ran.stdout).toBe("there\n");
    const execJson = await json(["scratch", "exec", lease.id, "--", "echo again"], "post", `/v1/leases/${lease.id}/exec`, 200);
    expect(execJson).toMatchObject({ state: "done", exit_code: 0, output: "again\n" });
    const listed = await json(["scratch", "ls"], "get", "/v1/leases", 200);
    expect(listed.data.every((l: any) => l.kind === "scratch")).toBe(true);
    expect(listed.data.map((l: any) => l.id)).toContain(lease.id);
    expect((await lessor(["scratch", "logs", lease.id])).code).toBe(0);
    const ended = await json(["scratch", "end", "cli-scratch"], "post", `/v1/leases/${lease.id}/end`, 200);
    expect(ended.state).toMatch(/^releas/);
  });

  it("deployments: up waits until the model answers and prints base_url, api_key and model; env; down; a model too big for the GPU exits 6", { timeout: 240_000 }, async () => {
    const model = "Qwen/Qwen2.5-0.5B-Instruct";
    const up = await json(["up", "cli-dep", "--model", model, "--gpu", "l40s:1"], "get", "/v1/deployments/{name}", 200);
    expect(up).toMatchObject({ name: "cli-dep", state: "ready", model });
    expect(up.base_url).toMatch(/\/v1\/gateway\/[^/]+\/v1$/);
    expect(up.api_key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Found as it is: the same deployment, printed for a person.
    const again = await lessor(["up", "cli-dep", "--model", model, "--gpu", "l40s:1"]);
    expect(again.code, shown(again)).toBe(0);
    expect(again.stdout).toContain(up.base_url);
    expect(again.stdout).toContain(up.api_key);
    // env's lines, evaluated by a real shell.
    const env = await lessor(["env", "cli-dep"]);
    expect(env.code, shown(env)).toBe(0);
    const shell = spawnSync("sh", ["-c", `${env.stdout}\nprintf '%s|%s|%s' "$OPENAI_BASE_URL" "$OPENAI_API_KEY" "$LESSOR_MODEL_ID"`], { encoding: "utf8" });
    expect(shell.stdout).toBe(`${up.base_url}|${up.api_key}|${model}`);
    const down = await json(["down", "cli-dep"], "delete", "/v1/deployments/{name}", 200);
    expect(down.name).toBe("cli-dep");
    await fails(["up", "cli-big", "--model", "Qwen/Qwen2.5-72B-Instruct", "--gpu", "l4:1"], 6);
  });

  it("money: usage, receipts, budget", async () => {
    const usage = await json(["usage"], "get", "/v1/usage", 200);
    expect(usage.group_by).toBe("provider");
    const byDay = await json(["usage", "--by", "day", "--from", "2026-01-01"], "get", "/v1/usage", 200);
    expect(byDay.group_by).toBe("day");
    expect((await lessor(["usage"])).stdout).toMatch(/^total +/m);
    await json(["receipts"], "get", "/v1/receipts", 200);
    const budget = await json(["budget"], "get", "/v1/budget", 200);
    expect(budget.monthly_usd).toBeNull();
    const set = await json(["budget", "set", "--monthly", "1000", "--concurrent-hourly", "50"], "put", "/v1/budget", 200);
    expect(set).toMatchObject({ monthly_usd: 1000, concurrent_hourly_usd: 50 });
    expect((await lessor(["budget"])).stdout).toMatch(/^monthly cap: +\$1000\.00$/m);
    const cleared = await json(["budget", "set", "--monthly", "none", "--concurrent-hourly", "none"], "put", "/v1/budget", 200);
    expect(cleared).toMatchObject({ monthly_usd: null, concurrent_hourly_usd: null });
  });

  it("admin: keys ls, create, revoke; providers ls, set, verify, rm", async () => {
    const created = await json(["keys", "create", "cli-read", "--scope", "read"], "post", "/v1/keys", 201);
    expect(created.secret).toMatch(/^lsr_/);
    const listed = await json(["keys", "ls"], "get", "/v1/keys", 200);
    expect(listed.data.map((k: any) => k.id)).toContain(created.id);
    expect((await lessor(["keys", "ls"])).stdout).not.toContain(created.secret);
    // A read key may not set the budget: scope, exit 5.
    const scope = await fails(["budget", "set", "--monthly", "10"], 5, { env: { LESSOR_API_KEY: created.secret } });
    expect(scope.error.code).toBe("insufficient_scope");
    const revoked = await json(["keys", "revoke", created.id], "delete", `/v1/keys/${created.id}`, 200);
    expect(revoked.revoked_at).not.toBeNull();
    await fails(["gpus"], 5, { env: { LESSOR_API_KEY: created.secret } });

    const providers = await json(["providers", "ls"], "get", "/v1/providers", 200);
    expect(providers.data.map((p: any) => p.name)).toContain("sim");
    // RunPod's address answers nothing here: stored, `unreachable`.
    const stored = await json(["providers", "set", "runpod"], "put", "/v1/providers/runpod", 200, { stdin: "rp_test_key_0123456789\n" });
    expect(stored).toMatchObject({ name: "runpod", configured: true, verification: { status: "unreachable" } });
    expect(JSON.stringify(stored)).not.toContain("rp_test_key_0123456789");
    const verified = await json(["providers", "verify", "runpod"], "post", "/v1/providers/runpod/verify", 200);
    expect(verified.verification.status).toBe("unreachable");
    const removed = await json(["providers", "rm", "runpod"], "delete", "/v1/providers/runpod", 200);
    expect(removed.configured).toBe(false);
    await fails(["providers", "rm", "runpod"], 3);
    // The simulated cloud needs no key: not something this installation does.
    await fails(["providers", "set", "sim"], 9, { stdin: "k\n" });
  });

  it("exit codes: bad key 5, nothing fits 6, over budget 10, unknown id 3, bad flag 2", async () => {
    const bad = await fails(["ls"], 5, { env: { LESSOR_API_KEY: "lsr_not_a_key" } });
    expect(bad.error.code).toBe("unauthenticated");
    const none = await fails(["quote", "--gpu", "l40s:1", "--max-hourly", "0.0001"], 6);
    expect(none.error.code).toBe("no_capacity");
    expect(await fails(["status", "ls_00000000000000000000000000"], 3)).toMatchObject({ error: { code: "not_found" } });
    expect(await fails(["status", "no-such-lease"], 3)).toMatchObject({ error: { code: "not_found" } });
    expect(await fails(["events", "ls_nope"], 3)).toMatchObject({ error: { code: "not_found" } });
    expect(await fails(["ls", "--bogus"], 2)).toMatchObject({ error: { code: "usage" } });
    expect(await fails(["lock", "ls_00000000000000000000000000", "--for", "forever"], 2)).toMatchObject({ error: { code: "invalid_duration" } });

    const id = await createLease("cli-budget");
    await json(["budget", "set", "--monthly", "0.01"], "put", "/v1/budget", 200);
    try {
      const over = await fails(["extend", id, "--by", "100h"], 10);
      expect(over.error.code).toBe("over_budget");
    } finally {
      await json(["budget", "set", "--monthly", "none"], "put", "/v1/budget", 200);
      await json(["end", id], "post", `/v1/leases/${id}/end`, 200);
    }

    const help = await lessor(["help", "exit-codes"], { configured: false });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^ +10 +over budget/m);
    const table = await lessor(["help", "exit-codes", "--json"], { configured: false });
    expect(JSON.parse(table.stdout).exit_codes[10]).toMatchObject({ code: 10, meaning: expect.stringMatching(/^over budget/) });
  });
});
