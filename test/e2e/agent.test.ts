/**
 * The machine agent end to end (docs/agent.md): src/agent/agent.sh run by /bin/sh (dash on
 * Debian) against a real `wrangler dev`, with real shell commands. Its output and exit arrive; its
 * heartbeat is recorded; an exec and a signal are carried out; it exits on 410 once the lease is
 * released; a kill and the runtime cap end a real command, by KILL where it ignores TERM; and through a proxy that loses some requests before lessor sees them and some answers
 * after lessor acted, no output is lost or doubled. It enrolls with the enrollment token a create
 * carries (docs/agent.md "The token"), even when the enrollment's answer is lost, and again after
 * it was killed and started anew; the command's environment holds neither token.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { faultyProxy } from "./faulty-proxy";
import { bootstrapTokenFromDevVars, removeStateDir, repoRoot, runningServers, startServer, stopServer, type Server } from "./server";

let server: Server;
let bootstrap: string;
let key: string;
const scratch = mkdtempSync(path.join(tmpdir(), "lessor-agent-e2e-"));
const agents = new Set<ChildProcess>();

beforeAll(async () => {
  server = await startServer();
  bootstrap = bootstrapTokenFromDevVars();
  const org = await api("POST", "/v1/orgs", bootstrap, { name: "agent-e2e" });
  expect(org.status, JSON.stringify(org.json)).toBe(201);
  key = org.json.key.secret;
});

afterAll(async () => {
  for (const child of agents) {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {}
  }
  rmSync(scratch, { recursive: true, force: true });
  for (const s of server ? [server] : runningServers()) {
    await stopServer(s);
    removeStateDir(s);
  }
});

async function api(method: string, route: string, bearer: string, body?: unknown) {
  const res = await fetch(`${server.base}${route}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as any };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

/** A lease (created once the cron has seeded the catalog) and its agent token, from the test-only route. */
async function leaseWithToken(policy: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
  const lease = await until("a lease to be created", async () => {
    const res = await api("POST", "/v1/leases", key, { kind: "job", cmd: "hang", spec: { gpu: "l40s:1" }, policy: { on_exit: "keep", ...policy } });
    return res.status === 202 ? res.json : null;
  });
  const minted = await api("POST", `/v1/sim/leases/${lease.id}/agent-token`, bootstrap);
  expect(minted.status, JSON.stringify(minted.json)).toBe(201);
  return { id: lease.id, token: minted.json.token };
}

/** A lease (created once the cron has seeded the catalog) and an enrollment token for it, as a create carries one, from the test-only route. */
async function leaseWithEnrollToken(): Promise<{ id: string; enroll_token: string }> {
  const lease = await until("a lease to be created", async () => {
    const res = await api("POST", "/v1/leases", key, { kind: "job", cmd: "hang", spec: { gpu: "l40s:1" }, policy: { on_exit: "keep" } });
    return res.status === 202 ? res.json : null;
  });
  const minted = await api("POST", `/v1/sim/leases/${lease.id}/enroll-token`, bootstrap);
  expect(minted.status, JSON.stringify(minted.json)).toBe(201);
  return { id: lease.id, enroll_token: minted.json.enroll_token };
}

const snapshot = async (id: string) => (await api("GET", `/v1/sim/leases/${id}/agent`, bootstrap)).json;

interface Agent {
  child: ChildProcess;
  exited: Promise<number | null>;
  stderr: () => string;
}

/** agent.sh with the lease's token, or with an enrollment token to exchange; `state`: where it keeps its nonce. */
function runAgent(url: string, lease: { id: string; token?: string; enroll_token?: string }, cmd: string | null, state?: string, extra: Record<string, string> = {}): Agent {
  const dir = mkdtempSync(path.join(scratch, "agent-"));
  const child = spawn("/bin/sh", [path.join(repoRoot, "src/agent/agent.sh")], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      TMPDIR: dir,
      LESSOR_URL: url,
      LESSOR_LEASE_ID: lease.id,
      ...(lease.token === undefined ? {} : { LESSOR_LEASE_TOKEN: lease.token }),
      ...(lease.enroll_token === undefined ? {} : { LESSOR_ENROLL_TOKEN: lease.enroll_token }),
      ...(state === undefined ? {} : { LESSOR_AGENT_STATE_DIR: state }),
      ...(cmd === null ? {} : { LESSOR_CMD: cmd }),
      // Small chunks, so a short command sends many; quick retries and heartbeats, so the test is short.
      LESSOR_AGENT_CHUNK_BYTES: "4096",
      LESSOR_AGENT_HEARTBEAT_S: "2",
      LESSOR_AGENT_POLL_WAIT_S: "5",
      LESSOR_AGENT_BACKOFF_MAX_S: "1",
      ...extra,
    },
    stdio: ["ignore", "ignore", "pipe"],
    // A group of its own, so that a test can kill the agent with its poller, as a crash would.
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

/** `count` numbered lines, a second apart in two halves, then a line on stderr: the command's whole output. */
const PRINTER = (count: number) =>
  `i=1; while [ $i -le ${count} ]; do echo "line $i of the agent's command"; [ $i -eq ${Math.floor(count / 2)} ] && sleep 1; i=$((i+1)); done; echo "to stderr" >&2; exit 3`;
const printed = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1} of the agent's command\n`).join("") + "to stderr\n";

async function release(id: string) {
  expect((await api("POST", `/v1/leases/${id}/end`, key, {})).status).toBe(200);
}

describe("agent.sh moves data in and out (docs/artifacts.md)", () => {
  /** What the command writes as its big output: above two part sizes, so it goes up in three parts. */
  const BIG = 17_000_000;
  const bigBytes = () => Buffer.from("lessor output line\n".repeat(Math.ceil(BIG / 19))).subarray(0, BIG);

  it("unpacks the workdir, runs the command in it, and brings LESSOR_OUT back byte for byte, resuming a multipart upload after the agent was killed", async () => {
    // The bundle: a tar.gz of one file, made with the machine's own tar.
    const src = mkdtempSync(path.join(scratch, "bundle-"));
    writeFileSync(path.join(src, "data.txt"), "the user's code and data\n");
    const bundle = path.join(scratch, "bundle.tgz");
    execFileSync("tar", ["-czf", bundle, "-C", src, "data.txt"]);
    const bytes = readFileSync(bundle);
    const uploaded = await fetch(`${server.base}/v1/uploads`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/gzip", "lessor-sha256": createHash("sha256").update(bytes).digest("hex") },
      body: bytes,
    });
    expect(uploaded.status).toBe(201);
    const upload = (await uploaded.json()) as { id: string };
    const lease = await until("a lease to be created", async () => {
      const res = await api("POST", "/v1/leases", key, { kind: "job", cmd: "hang", spec: { gpu: "l40s:1" }, policy: { on_exit: "keep" }, workdir: upload.id });
      return res.status === 202 ? res.json : null;
    });
    const minted = await api("POST", `/v1/sim/leases/${lease.id}/agent-token`, bootstrap);
    expect(minted.status).toBe(201);
    const token = { id: lease.id, token: minted.json.token as string };

    // The first agent is killed when it sends the big file's second part; the second resumes.
    let first: Agent | null = null;
    const proxy = await faultyProxy(server.base, (method, p, n) => {
      if (method === "PUT" && p.endsWith("/big.bin") && n === 2 && first) {
        process.kill(-first.child.pid!, "SIGKILL");
        return "lose_request";
      }
      return "pass";
    });
    const cmd = `mkdir -p "$LESSOR_OUT/copy" && cp data.txt "$LESSOR_OUT/copy/data.txt" && echo "in $(pwd)" >"$LESSOR_OUT/where.txt" && yes 'lessor output line' | head -c ${BIG} >"$LESSOR_OUT/big.bin"`;
    const state = mkdtempSync(path.join(scratch, "state-"));
    const out = mkdtempSync(path.join(scratch, "out-"));
    const work = mkdtempSync(path.join(scratch, "work-"));
    const extra = { LESSOR_OUT: path.join(out, "o"), LESSOR_WORKDIR: work };
    try {
      first = runAgent(proxy.url, token, cmd, state, extra);
      await Promise.race([first.exited, sleep(90_000)]);
      expect(proxy.seen.get("PUT /v1/agent/artifacts/big.bin")).toBe(2);
      const second = runAgent(proxy.url, token, cmd, state, extra);
      await until("the exit to be reported", async () => (await snapshot(lease.id)).exit, 90_000).catch((e) => {
        throw new Error(`${e}; first: ${first!.stderr()}; second: ${second.stderr()}; seen ${JSON.stringify([...proxy.seen])}`);
      });
      // Parts 2 and 3 only: part 1 was listed as stored.
      expect(proxy.seen.get("PUT /v1/agent/artifacts/big.bin"), second.stderr()).toBe(4);
    } finally {
      await proxy.close();
    }
    const list = await api("GET", `/v1/leases/${lease.id}/artifacts`, key);
    expect(list.json.data.map((a: { path: string }) => a.path)).toEqual(["big.bin", "copy/data.txt", "where.txt"]);
    const read = async (p: string) => Buffer.from(await (await fetch(`${server.base}/v1/leases/${lease.id}/artifacts/${p}`, { headers: { authorization: `Bearer ${key}` } })).arrayBuffer());
    expect((await read("copy/data.txt")).toString()).toBe("the user's code and data\n");
    expect((await read("where.txt")).toString()).toBe(`in ${work}\n`);
    expect((await read("big.bin")).equals(bigBytes())).toBe(true);
    const evs = await api("GET", `/v1/leases/${lease.id}/events`, key);
    expect(evs.json.data.find((e: { type: string }) => e.type === "outputs_uploaded")?.detail).toEqual({ files: 3, bytes: BIG + 25 + `in ${work}\n`.length });
    await release(lease.id);
  });
});

describe("a release waits for the outputs (docs/artifacts.md)", () => {
  const typesOf = async (id: string) => (await api("GET", `/v1/leases/${id}/events`, key)).json.data as { type: string; detail: any }[];

  it("an end while the command runs: the agent TERMs it, its outputs come back, then the lease is released", async () => {
    const lease = await leaseWithToken({ outputs_wait: "1m" });
    const out = mkdtempSync(path.join(scratch, "out-"));
    const cmd = `echo first >"$LESSOR_OUT/a.txt"; head -c 3000000 /dev/zero >"$LESSOR_OUT/b.bin"; trap 'echo late >"$LESSOR_OUT/late.txt"; exit 143' TERM; while :; do sleep 1; done`;
    const agent = runAgent(server.base, lease, cmd, undefined, { LESSOR_OUT: path.join(out, "o") });
    await until("the agent to heartbeat", async () => (await snapshot(lease.id)).last_heartbeat_at);
    await until("the lease to be ready", async () => (await api("GET", `/v1/leases/${lease.id}`, key)).json.state === "ready");
    await sleep(1_500); // its poller has said it collects
    await release(lease.id);
    await until("the lease to be released", async () => (await api("GET", `/v1/leases/${lease.id}`, key)).json.state === "released", 60_000).catch((e) => {
      throw new Error(`${e}; ${agent.stderr()}`);
    });
    const events = await typesOf(lease.id);
    const types = events.map((e) => e.type);
    expect(types.indexOf("outputs_requested"), JSON.stringify(types)).toBeGreaterThan(-1);
    expect(types.indexOf("outputs_uploaded")).toBeGreaterThan(types.indexOf("outputs_requested"));
    expect(types.indexOf("released")).toBeGreaterThan(types.indexOf("outputs_uploaded"));
    expect(events.find((e) => e.type === "outputs_uploaded")!.detail).toEqual({ files: 3, bytes: 6 + 3_000_000 + 5 });
    const list = await api("GET", `/v1/leases/${lease.id}/artifacts`, key);
    expect(list.json.data.map((a: { path: string }) => a.path)).toEqual(["a.txt", "b.bin", "late.txt"]);
    expect((await snapshot(lease.id)).exit).toMatchObject({ code: null, signal: "TERM" });
    expect(await Promise.race([agent.exited, sleep(30_000).then(() => "still running")])).toBe(0);
  });

  it("the machine killed mid-upload and never back: released at the bound, outputs_incomplete naming what is missing", async () => {
    const lease = await leaseWithToken({ outputs_wait: "5s" });
    let agent: Agent | null = null;
    const proxy = await faultyProxy(server.base, (method, p, n) => {
      if (method === "PUT" && p.endsWith("/big.bin") && n === 2 && agent) {
        process.kill(-agent.child.pid!, "SIGKILL");
        return "lose_request";
      }
      return "pass";
    });
    const out = mkdtempSync(path.join(scratch, "out-"));
    const cmd = `echo a >"$LESSOR_OUT/a.txt"; yes 'lessor output line' | head -c 17000000 >"$LESSOR_OUT/big.bin"; echo z >"$LESSOR_OUT/z.txt"; sleep 2`;
    try {
      agent = runAgent(proxy.url, lease, cmd, mkdtempSync(path.join(scratch, "state-")), { LESSOR_OUT: path.join(out, "o") });
      await Promise.race([agent.exited, sleep(90_000)]);
      expect(proxy.seen.get("PUT /v1/agent/artifacts/big.bin")).toBe(2);
    } finally {
      await proxy.close();
    }
    const ended = Date.now();
    await release(lease.id);
    await until("the lease to be released", async () => (await api("GET", `/v1/leases/${lease.id}`, key)).json.state === "released", 60_000);
    const events = await typesOf(lease.id);
    const requested = events.find((e) => e.type === "outputs_requested");
    expect(requested, JSON.stringify(events.map((e) => e.type))).toBeDefined();
    expect(Date.now() - ended).toBeGreaterThanOrEqual(4_000);
    const incomplete = await until("outputs_incomplete", async () => (await typesOf(lease.id)).find((e) => e.type === "outputs_incomplete"));
    expect(incomplete.detail).toEqual({ missing: ["big.bin", "z.txt"], missing_count: 2, files: 3, bytes: 2 + 17_000_000 + 2 });
    const list = await api("GET", `/v1/leases/${lease.id}/artifacts`, key);
    expect(list.json.data.map((a: { path: string }) => a.path)).toEqual(["a.txt"]);
  });
});

describe("agent.sh under /bin/sh against wrangler dev", () => {
  it("ships the command's output and exit 3, heartbeats, and exits 0 on 410 after release", async () => {
    const lease = await leaseWithToken();
    const agent = runAgent(server.base, lease, PRINTER(300));
    const done = await until("the exit to be reported", async () => {
      const s = await snapshot(lease.id);
      return s.exit ? s : null;
    });
    expect(done.exit).toMatchObject({ code: 3, signal: null });
    // Output is shipped before the exit is reported.
    expect(done.log).toBe(printed(300));
    await until("a heartbeat", async () => (await snapshot(lease.id)).last_heartbeat_at);
    await release(lease.id);
    expect(await Promise.race([agent.exited, sleep(60_000).then(() => "still running")]), agent.stderr()).toBe(0);
  });

  it("loses and doubles nothing when requests and answers are lost on the way, the enrollment's too", async () => {
    const proxy = await faultyProxy(server.base, (method, p, n) => {
      // lessor enrolled the agent, which never heard: it enrolls again with the same nonce.
      if (p === "/v1/agent/enroll") return n === 1 ? "lose_answer" : n === 2 ? "lose_request" : "pass";
      if (p === "/v1/agent/logs") return n % 4 === 1 ? "lose_request" : n % 4 === 3 ? "lose_answer" : "pass";
      if (p === "/v1/agent/exit" || p === "/v1/agent/heartbeat") return n === 1 ? "lose_answer" : n === 2 ? "lose_request" : "pass";
      return "pass";
    });
    try {
      const lease = await leaseWithEnrollToken();
      const agent = runAgent(proxy.url, lease, PRINTER(2000), mkdtempSync(path.join(scratch, "state-")));
      const done = await until("the exit to be reported", async () => {
        const s = await snapshot(lease.id);
        return s.exit ? s : null;
      }, 90_000);
      expect(done.exit).toMatchObject({ code: 3, signal: null });
      expect(done.log.length).toBe(printed(2000).length);
      expect(done.log).toBe(printed(2000));
      // Both kinds of loss happened to log chunks, and to the exit report.
      expect(proxy.injected["lose_request POST /v1/agent/logs"]).toBeGreaterThanOrEqual(3);
      expect(proxy.injected["lose_answer POST /v1/agent/logs"]).toBeGreaterThanOrEqual(3);
      expect(proxy.injected["lose_answer POST /v1/agent/exit"]).toBe(1);
      expect(proxy.injected["lose_answer POST /v1/agent/enroll"]).toBe(1);
      await release(lease.id);
      expect(await Promise.race([agent.exited, sleep(60_000).then(() => "still running")]), agent.stderr()).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it("enrolls with its enrollment token; the command's environment holds neither token; killed and started again, it enrolls again with its nonce", async () => {
    const lease = await leaseWithEnrollToken();
    const state = mkdtempSync(path.join(scratch, "state-"));
    const group = path.join(scratch, `${lease.id}.group`);
    const startedAt = Date.now();
    const first = runAgent(server.base, lease, `echo $$ > ${group}; env; echo started; sleep 600`, state);
    try {
      const seen = await until("the command to start", async () => {
        const s = await snapshot(lease.id);
        return s.log.includes("started\n") ? s : null;
      });
      expect(seen.log).toContain(`LESSOR_LEASE_ID=${lease.id}`);
      expect(seen.log).not.toMatch(/lse_|lsl_|LESSOR_ENROLL_TOKEN|LESSOR_LEASE_TOKEN/);
      const nonce = path.join(state, `${lease.id}.nonce`);
      expect(readFileSync(nonce, "utf8")).toMatch(/^[0-9A-Za-z]{43}$/);
      expect(statSync(nonce).mode & 0o777).toBe(0o600);
      await until("a heartbeat", async () => (await snapshot(lease.id)).last_heartbeat_at);
      // The enrollment is closed now: what the provider's records hold opens nothing.
      const stolen = await fetch(`${server.base}/v1/agent/enroll`, {
        method: "POST",
        headers: { authorization: `Bearer ${lease.enroll_token}`, "lessor-lease-id": lease.id, "content-type": "application/json" },
        body: JSON.stringify({ nonce: "x".repeat(43) }),
      });
      expect(stolen.status).toBe(401);
      process.kill(-first.child.pid!, "SIGKILL");
      await first.exited;
      // agent.sh numbers its chunks from its start time in whole seconds (times 1000): one started
      // again within the same second would number its chunks as the first did (docs/agent.md).
      while (Math.floor(Date.now() / 1000) <= Math.floor(startedAt / 1000) + 1) await sleep(100);
      const second = runAgent(server.base, lease, "echo again", state);
      await until("the second run's output", async () => (await snapshot(lease.id)).log.endsWith("again\n")).catch((e) => {
        throw new Error(`${(e as Error).message}; its stderr: ${second.stderr()}`);
      });
      await release(lease.id);
      expect(await Promise.race([second.exited, sleep(60_000).then(() => "still running")]), second.stderr()).toBe(0);
      // Released: no agent enrolls for it again, and the nonce is gone.
      expect(existsSync(nonce)).toBe(false);
    } finally {
      // The first run's command, which its killed agent left behind.
      try {
        process.kill(-Number(readFileSync(group, "utf8")), "SIGKILL");
      } catch {}
    }
  });

  it("without a command, heartbeats and carries out execs until the lease is released", async () => {
    const lease = await leaseWithToken();
    const agent = runAgent(server.base, lease, null);
    await until("a heartbeat", async () => (await snapshot(lease.id)).last_heartbeat_at);
    const exec = await api("POST", `/v1/sim/leases/${lease.id}/agent-commands`, bootstrap, { kind: "exec", cmd: "echo $((6 * 7))" });
    const ran = await until("the exec's result", async () => (await snapshot(lease.id)).commands.find((c: any) => c.id === exec.json.id && c.state === "done"));
    expect(ran).toMatchObject({ exit_code: 0, output: "42\n" });
    const s = await snapshot(lease.id);
    expect([s.exit, s.log]).toEqual([null, ""]);
    await release(lease.id);
    expect(await Promise.race([agent.exited, sleep(60_000).then(() => "still running")]), agent.stderr()).toBe(0);
  });

  it("carries out an exec, and a TERM to the command's process group, reported as the signal", async () => {
    const lease = await leaseWithToken();
    // The command leaves a child of its own; the signal must reach it too.
    const childPidFile = path.join(scratch, `${lease.id}.child`);
    const agent = runAgent(server.base, lease, `sleep 600 & echo $! > ${childPidFile}; echo started; sleep 600; echo never`);
    await until("the command to start", async () => (await snapshot(lease.id)).log === "started\n");
    const exec = await api("POST", `/v1/sim/leases/${lease.id}/agent-commands`, bootstrap, { kind: "exec", cmd: `printf 'from "exec"\\tdone\\n'; echo oops >&2; exit 5` });
    expect(exec.status).toBe(201);
    const ran = await until("the exec's result", async () => (await snapshot(lease.id)).commands.find((c: any) => c.id === exec.json.id && c.state === "done"));
    expect(ran).toMatchObject({ exit_code: 5, output: 'from "exec"\tdone\noops\n' });
    const term = await api("POST", `/v1/sim/leases/${lease.id}/agent-commands`, bootstrap, { kind: "signal", signal: "TERM" });
    expect(term.status).toBe(201);
    const done = await until("the exit to be reported", async () => {
      const s = await snapshot(lease.id);
      return s.exit ? s : null;
    });
    expect(done.exit).toMatchObject({ code: null, signal: "TERM" });
    expect(done.commands.find((c: any) => c.id === term.json.id)).toMatchObject({ state: "done", exit_code: 0 });
    expect(done.log).toBe("started\n");
    // The command's own child was in its process group, and is gone too.
    const child = Number(readFileSync(childPidFile, "utf8"));
    await until("the command's child to end", async () => {
      try {
        // A zombie has ended; it only waits for whoever adopted it to reap it.
        const stat = readFileSync(`/proc/${child}/stat`, "utf8");
        return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
      } catch {
        return true;
      }
    }, 5_000);
    await release(lease.id);
    expect(await Promise.race([agent.exited, sleep(60_000).then(() => "still running")]), agent.stderr()).toBe(0);
  });

  it("kills a command that ignores TERM: still_alive without escalation, stopped by KILL with it", async () => {
    const lease = await leaseWithToken();
    const agent = runAgent(server.base, lease, "trap '' TERM; echo started; while :; do sleep 1; done");
    await until("the command to start", async () => (await snapshot(lease.id)).log === "started\n");
    await until("a heartbeat", async () => (await snapshot(lease.id)).last_heartbeat_at);
    const gentle = await api("POST", `/v1/leases/${lease.id}/kill`, key, { timeout: "2s", escalate: false });
    expect(gentle.status, JSON.stringify(gentle.json)).toBe(200);
    expect(gentle.json.outcome).toBe("still_alive");
    expect((await api("GET", `/v1/leases/${lease.id}`, key)).json.exit).toBeNull();
    const hard = await api("POST", `/v1/leases/${lease.id}/kill`, key, { timeout: "2s", escalate: true });
    expect(hard.status, JSON.stringify(hard.json)).toBe(200);
    expect(hard.json.outcome).toBe("stopped");
    const shown = await until("the exit on the lease", async () => (await api("GET", `/v1/leases/${lease.id}`, key)).json.exit);
    expect(shown).toMatchObject({ code: null, signal: "KILL" });
    // Two TERMs (one per kill), then the escalation's KILL.
    const signals = (await snapshot(lease.id)).commands.filter((c: any) => c.kind === "signal").map((c: any) => c.arg);
    expect(signals).toEqual(["TERM", "TERM", "KILL"]);
    await release(lease.id);
    expect(await Promise.race([agent.exited, sleep(60_000).then(() => "still running")]), agent.stderr()).toBe(0);
  });

  it("ends a command at its runtime cap with TERM and releases the lease for max_runtime", async () => {
    // on_exit keep: an exit after lessor's own TERM releases with that cause whatever on_exit says.
    const lease = await leaseWithToken({ max_runtime: "3s", kill_grace: "2s", on_exit: "keep" });
    const agent = runAgent(server.base, lease, "echo started; sleep 600; echo never");
    await until("the command to start", async () => (await snapshot(lease.id)).log === "started\n");
    const ended = await until("the lease to be released", async () => {
      const l = (await api("GET", `/v1/leases/${lease.id}`, key)).json;
      return l.release_reason ? l : null;
    });
    expect(ended.release_reason).toBe("max_runtime");
    expect(ended.exit).toMatchObject({ code: null, signal: "TERM" });
    const s = await snapshot(lease.id);
    // The TERM reached the command (a KILL may follow only if the exit came after kill_grace).
    expect(s.commands.find((c: any) => c.kind === "signal")).toMatchObject({ arg: "TERM", state: "done" });
    expect(s.log).toBe("started\n");
    const events = (await api("GET", `/v1/leases/${lease.id}/events`, key)).json.data;
    expect(events.find((e: any) => e.type === "killed_by_runtime_cap")?.detail).toMatchObject({ signal: "TERM" });
    expect(await Promise.race([agent.exited, sleep(60_000).then(() => "still running")]), agent.stderr()).toBe(0);
  });
});
