/**
 * End to end, data in and out (docs/artifacts.md): `lessor run --workdir REPO --out DIR` run as a
 * subprocess against a real `wrangler dev` (test/e2e/cli.test.ts's harness), with a real agent:
 * src/agent/agent.sh under /bin/sh on this machine, given the lease's token as
 * test/e2e/agent.test.ts gives it (the sim's own agent for the machine is cut off by the token's
 * rotation), running a real shell command. The repository directory holds `.git` (a real one),
 * `.env` files and `node_modules`: the working directory the agent unpacks holds none of them,
 * and the command checks so itself. The command writes 50 MiB of outputs in 200 files; `--out`
 * brings every one back byte-identical to what the command wrote. A second run loses its machine
 * mid-upload (the agent killed at its 120th file, through test/e2e/faulty-proxy.ts): `lessor end`
 * waits `--outputs-wait`, and every output is then in `--out` or named by `outputs_incomplete`.
 * Then `artifacts ls` pages and
 * `artifacts get` fetches a directory of them; a bundle over the server's limit is refused with
 * exit 2 before a lease is made. And the same `run --workdir --out` with the sim's own agent alone
 * (docs/sim.md "Data in and out"): no agent.sh, the sim unpacks and uploads through the routes.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { simFileBytes } from "../../src/providers/sim/files";
import { faultyProxy } from "./faulty-proxy";
import { bootstrapTokenFromDevVars, removeStateDir, repoRoot, runningServers, startServer, stopServer, type Server } from "./server";

const NOWHERE = "http://127.0.0.1:9";
const BIN = path.join(repoRoot, "cli", "bin", "lessor.mjs");
/** The server's bundle limit here: small, so a bundle over it is cheap to make. */
const UPLOAD_LIMIT = 4 * 1024 * 1024;
const FILES = 200;
const FILE_BYTES = 256 * 1024;

let server: Server;
let work: string;
let key: string;
const agents = new Set<ChildProcess>();

beforeAll(async () => {
  server = await startServer({
    env: {
      LESSOR_RUNPOD_BASE_URL: `${NOWHERE}/runpod`,
      LESSOR_VAST_BASE_URL: `${NOWHERE}/vast`,
      LESSOR_LAMBDA_BASE_URL: `${NOWHERE}/lambda`,
      LESSOR_UPLOAD_MAX_BYTES: String(UPLOAD_LIMIT),
    },
  });
  work = mkdtempSync(path.join(tmpdir(), "lessor-artifacts-e2e-"));
  const org = await fetch(`${server.base}/v1/orgs`, {
    method: "POST",
    headers: { authorization: `Bearer ${bootstrapTokenFromDevVars()}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "e2e-artifacts-cli" }),
  });
  expect(org.status).toBe(201);
  key = ((await org.json()) as { key: { secret: string } }).key.secret;
});

afterAll(async () => {
  for (const child of agents) {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // gone
    }
  }
  rmSync(work, { recursive: true, force: true });
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

const shown = (r: Run) => `exit ${r.code}\n--- stdout ---\n${r.stdout}\n--- stderr ---\n${r.stderr}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The CLI started, with a HOME of its own and the server's URL and the org's key. */
function started(args: string[]) {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("LESSOR_") && k !== "XDG_CONFIG_HOME") env[k] = v;
  Object.assign(env, { HOME: path.join(work, "cli-home"), NO_COLOR: "1", LESSOR_URL: server.base, LESSOR_API_KEY: key });
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  const out = { stdout: "", stderr: "" };
  child.stdout.on("data", (d) => (out.stdout += d));
  child.stderr.on("data", (d) => (out.stderr += d));
  const done = new Promise<Run>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, ...out }));
  });
  const until = async (pattern: RegExp, which: "stdout" | "stderr" = "stdout") => {
    const deadline = Date.now() + 60_000;
    while (!pattern.test(out[which])) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`never printed ${pattern}: exit ${child.exitCode}\n${out.stdout}\n${out.stderr}`);
      await sleep(100);
    }
  };
  return { child, out, done, until };
}

const lessor = (args: string[]) => started(args).done;

async function api(method: string, route: string, bearer: string, body?: unknown) {
  const res = await fetch(`${server.base}${route}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as any };
}

/** agent.sh on this machine for the lease, with its token, running `cmd` with HOME at `home`. */
function runAgent(lease: { id: string; token: string }, cmd: string, home: string, url = server.base) {
  const child = spawn("/bin/sh", [path.join(repoRoot, "src/agent/agent.sh")], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      TMPDIR: home,
      LESSOR_URL: url,
      LESSOR_LEASE_ID: lease.id,
      LESSOR_LEASE_TOKEN: lease.token,
      LESSOR_CMD: cmd,
      LESSOR_AGENT_HEARTBEAT_S: "2",
      LESSOR_AGENT_POLL_WAIT_S: "5",
      LESSOR_AGENT_BACKOFF_MAX_S: "1",
    },
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  agents.add(child);
  let err = "";
  child.stderr!.on("data", (d) => (err += String(d)));
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      agents.delete(child);
      resolve(code);
    }),
  );
  return { child, exited, stderr: () => err };
}

/** Once the lease's machine is ready, a token for the test's agent to take the sim's agent's place. */
async function agentToken(id: string): Promise<string> {
  for (let i = 0; ; i++) {
    const lease = await api("GET", `/v1/leases/${id}`, key);
    if (lease.json.state === "ready") break;
    if (i >= 300) throw new Error(`lease ${id} not ready: ${lease.json.state}`);
    await sleep(200);
  }
  const minted = await api("POST", `/v1/sim/leases/${id}/agent-token`, bootstrapTokenFromDevVars());
  expect(minted.status, JSON.stringify(minted.json)).toBe(201);
  return minted.json.token;
}

/** Every file under `dir`, relative and `/`-separated, sorted. */
function filesUnder(dir: string, rel = ""): string[] {
  return readdirSync(path.join(dir, rel), { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? filesUnder(dir, rel ? `${rel}/${d.name}` : d.name) : [rel ? `${rel}/${d.name}` : d.name]))
    .sort();
}

/** The job's command: it runs from the unpacked working directory and checks what is not there. */
const MAKE_OUTPUTS = `set -e
[ -f train.py ] || { echo "train.py is not in the working directory" >&2; exit 20; }
for f in .env .env.local .git .dev.vars node_modules __pycache__ run.log; do
  if [ -e "$f" ]; then echo "$f was shipped" >&2; exit 21; fi
done
i=1
while [ $i -le ${FILES} ]; do
  d="$LESSOR_OUT/batch-$((i % 10))"
  mkdir -p "$d"
  head -c ${FILE_BYTES} /dev/urandom > "$d/part-$i.bin"
  i=$((i + 1))
done
echo "wrote ${FILES} files"
`;

/** A repository directory: code, and what must never leave this machine. */
function repository(name = "repo"): string {
  const repo = path.join(work, name);
  mkdirSync(path.join(repo, "node_modules", "left-pad"), { recursive: true });
  mkdirSync(path.join(repo, "__pycache__"), { recursive: true });
  writeFileSync(path.join(repo, "train.py"), "print('train')\n");
  writeFileSync(path.join(repo, "make_outputs.sh"), MAKE_OUTPUTS);
  writeFileSync(path.join(repo, ".env"), "OPENAI_API_KEY=sk-never-shipped\n");
  writeFileSync(path.join(repo, ".env.local"), "SECRET=never\n");
  writeFileSync(path.join(repo, ".gitignore"), "*.log\n");
  writeFileSync(path.join(repo, "run.log"), "noise\n");
  writeFileSync(path.join(repo, "node_modules", "left-pad", "index.js"), "module.exports = 1;\n");
  writeFileSync(path.join(repo, "__pycache__", "train.cpython-311.pyc"), "\u0000");
  execFileSync("git", ["init", "-q", repo]);
  execFileSync("git", ["-C", repo, "-c", "user.name=t", "-c", "user.email=t@t.invalid", "add", "train.py", "make_outputs.sh", ".gitignore"]);
  execFileSync("git", ["-C", repo, "-c", "user.name=t", "-c", "user.email=t@t.invalid", "commit", "-qm", "init"]);
  return repo;
}

describe("lessor run --workdir --out against wrangler dev", () => {
  it("the repository goes up without .git and .env; 200 files, 50 MiB of outputs, come back byte-identical", { timeout: 300_000 }, async () => {
    const repo = repository();
    const out = path.join(work, "out");
    // The sim's machine runs `hang` (the sim's command language); the real work is agent.sh's, below.
    const job = started(["run", "--gpu", "l4", "--ttl", "20m", "--workdir", repo, "--out", out, "--", "hang"]);
    await job.until(/lease (ls_[0-9a-z]{26})/, "stderr");
    const id = /lease (ls_[0-9a-z]{26})/.exec(job.out.stderr)![1]!;

    // What was left out, and the size sent, were said before the lease was made.
    expect(job.out.stderr).toMatch(/^left out:$/m);
    expect(job.out.stderr).toMatch(/^ {2}\.git \(always\) +1 +\.git\/$/m);
    expect(job.out.stderr).toMatch(/^ {2}\.env\* \(always\) +2 +\.env, \.env\.local$/m);
    expect(job.out.stderr).toMatch(/^ {2}\*\.log \(\.gitignore\) +1 +run\.log$/m);
    expect(job.out.stderr).toMatch(/^workdir .+: 3 files, .+; sending [\d.]+ (B|KiB) \(gzip, sha256 [0-9a-f]{12}\)$/m);

    // The machine is ready: the test's agent takes its place with the lease's token.
    const token = await agentToken(id);
    const home = path.join(work, "agent-home");
    mkdirSync(home, { recursive: true });
    const agent = runAgent({ id, token }, "sh make_outputs.sh", home);

    const r = await job.done;
    expect(r.code, `${shown(r)}\n--- agent ---\n${agent.stderr()}`).toBe(0);
    expect(r.stdout).toContain(`wrote ${FILES} files\n`);
    expect(r.stderr).toMatch(new RegExp(`^outputs: got ${FILES} files \\(50\\.0 MiB\\) into ${out.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, "m"));

    // What the agent unpacked: the code, none of what must stay here.
    const unpacked = filesUnder(path.join(home, "lessor", "work"));
    expect(unpacked).toEqual([".gitignore", "make_outputs.sh", "train.py"]);

    // Byte-identical to what the command wrote.
    const wrote = path.join(home, "lessor", "out");
    const names = filesUnder(wrote);
    expect(names).toHaveLength(FILES);
    expect(filesUnder(out)).toEqual(names);
    let total = 0;
    for (const name of names) {
      const theirs = readFileSync(path.join(wrote, name));
      const ours = readFileSync(path.join(out, name));
      expect(ours.equals(theirs), name).toBe(true);
      total += ours.length;
    }
    expect(total).toBe(FILES * FILE_BYTES);
    await agent.exited;

    // The lease's artifacts, a page at a time and a directory of them.
    const ls = await lessor(["--json", "artifacts", "ls", id, "--limit", "50"]);
    expect(ls.code, shown(ls)).toBe(0);
    const page = JSON.parse(ls.stdout);
    expect(page.data).toHaveLength(50);
    expect(page.next_cursor).toEqual(expect.any(String));
    expect(page.data[0]).toMatchObject({ path: expect.stringMatching(/^batch-\d\/part-\d+\.bin$/), size: FILE_BYTES, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const human = await lessor(["artifacts", "ls", id, "--limit", "5"]);
    expect(human.stdout).toMatch(/^PATH +SIZE +SHA256 +CREATED$/m);
    expect(human.stderr).toMatch(new RegExp(`^more: lessor artifacts ls ${id} --cursor \\S+$`, "m"));

    const again = path.join(work, "again");
    const got = await lessor(["artifacts", "get", id, "batch-3/", "-o", again]);
    expect(got.code, shown(got)).toBe(0);
    const batch = filesUnder(again);
    expect(batch).toHaveLength(FILES / 10);
    for (const name of batch) expect(readFileSync(path.join(again, name)).equals(readFileSync(path.join(wrote, name))), name).toBe(true);
  });

  it("the machine killed mid-upload: `lessor end` waits --outputs-wait, then every output is in ./out or named missing", { timeout: 300_000 }, async () => {
    const repo = repository("repo-killed");
    const out = path.join(work, "out-killed");
    const job = started(["run", "--gpu", "l4", "--ttl", "20m", "--outputs-wait", "5s", "--workdir", repo, "--out", out, "--", "hang"]);
    await job.until(/lease (ls_[0-9a-z]{26})/, "stderr");
    const id = /lease (ls_[0-9a-z]{26})/.exec(job.out.stderr)![1]!;
    expect((await api("GET", `/v1/leases/${id}`, key)).json.policy.outputs_wait).toBe("5s");
    const token = await agentToken(id);
    const home = path.join(work, "agent-home-killed");
    mkdirSync(home, { recursive: true });

    // The machine dies (its agent killed, the request in flight lost) at the 120th output's upload.
    let agent: ReturnType<typeof runAgent> | null = null;
    let puts = 0;
    const proxy = await faultyProxy(server.base, (method, p) => {
      if (method !== "PUT" || !p.startsWith("/v1/agent/artifacts/")) return "pass";
      puts += 1;
      if (puts < 120) return "pass";
      if (agent) process.kill(-agent.child.pid!, "SIGKILL");
      return "lose_request";
    });
    let ended: number;
    try {
      agent = runAgent({ id, token }, "sh make_outputs.sh", home, proxy.url);
      expect(await Promise.race([agent.exited, sleep(120_000).then(() => "still running")]), agent.stderr()).toBe(null);
      expect(puts).toBe(120);
      // The user ends the lease; the release waits for outputs that never come, up to 5 s.
      ended = Date.now();
      const end = await lessor(["end", id]);
      expect(end.code, shown(end)).toBe(0);
    } finally {
      await proxy.close();
    }

    const r = await job.done;
    expect(Date.now() - ended).toBeGreaterThanOrEqual(4_000);
    const wrote = filesUnder(path.join(home, "lessor", "out"));
    expect(wrote).toHaveLength(FILES);
    const events = (await api("GET", `/v1/leases/${id}/events?limit=200`, key)).json.data as { type: string; detail: any }[];
    const types = events.map((e) => e.type);
    expect(types, JSON.stringify(types)).toContain("outputs_requested");
    const incomplete = events.find((e) => e.type === "outputs_incomplete");
    expect(incomplete, JSON.stringify(types)).toBeDefined();
    const got = filesUnder(out);
    const missing: string[] = incomplete!.detail.missing;
    expect(incomplete!.detail).toMatchObject({ missing_count: missing.length, files: FILES, bytes: FILES * FILE_BYTES });
    // Every file the command wrote is either back, byte-identical, or named missing; never both.
    expect([...got, ...missing].sort()).toEqual(wrote);
    expect(got.length).toBe(119);
    for (const name of got) expect(readFileSync(path.join(out, name)).equals(readFileSync(path.join(home, "lessor", "out", name))), name).toBe(true);
    // The CLI says what came back and what did not, and that the command never exited.
    expect(r.code, shown(r)).toBe(1);
    expect(r.stderr).toContain(`outputs: got 119 files (29.8 MiB) into ${out}\n`);
    expect(r.stderr).toMatch(new RegExp(`^outputs incomplete: ${FILES - 119} files the job left did not come back: batch-\\d/part-\\d+\\.bin, `, "m"));
    expect(r.stderr).toContain(`error: lease ${id} was released (user_end) before its command exited\n`);
  });

  it("with the sim's own agent alone: the workdir unpacked for `cat`, its `write`s (one in parts) back byte-identical", { timeout: 180_000 }, async () => {
    const repo = path.join(work, "sim-repo");
    mkdirSync(path.join(repo, "config"), { recursive: true });
    writeFileSync(path.join(repo, "config", "train.yaml"), "lr: 0.1\nepochs: 3\n");
    const out = path.join(work, "sim-out");
    const big = 9 * 1024 * 1024;
    const r = await lessor(["run", "--gpu", "l4", "--ttl", "10m", "--workdir", repo, "--out", out, "--", "cat config/train.yaml; write metrics.json 2K; write ckpt/model.bin 9M epoch-1"]);
    expect(r.code, shown(r)).toBe(0);
    expect(r.stdout).toContain("lr: 0.1\nepochs: 3\n");
    expect(filesUnder(out)).toEqual(["ckpt/model.bin", "metrics.json"]);
    expect(readFileSync(path.join(out, "metrics.json")).equals(Buffer.from(simFileBytes("metrics.json", 0, 2048)))).toBe(true);
    expect(readFileSync(path.join(out, "ckpt", "model.bin")).equals(Buffer.from(simFileBytes("epoch-1", 0, big)))).toBe(true);
  });

  it("a bundle over the server's limit is refused, exit 2, naming the limit, and no lease is made", async () => {
    const big = path.join(work, "big");
    mkdirSync(big, { recursive: true });
    // Random bytes do not compress: a bundle over the limit.
    writeFileSync(path.join(big, "weights.bin"), execFileSync("head", ["-c", String(UPLOAD_LIMIT + 1024 * 1024), "/dev/urandom"], { maxBuffer: 64 * 1024 * 1024 }));
    const before = (await api("GET", "/v1/leases?limit=200", key)).json.data.length;
    const r = await lessor(["run", "--json", "--gpu", "l4", "--workdir", big, "--", "echo never"]);
    expect(r.code, shown(r)).toBe(2);
    expect(r.stderr).toMatch(/^error: the workdir bundle is 5\.0 MiB, over lessor's limit of 4\.0 MiB for one upload; the largest entries of .+: weights\.bin 5\.0 MiB\. Leave more out with a \.lessorignore$/m);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: "upload_too_large", details: { limit_bytes: UPLOAD_LIMIT } }, exit_code: 2 });
    expect((await api("GET", "/v1/leases?limit=200", key)).json.data.length).toBe(before);
  });
});
