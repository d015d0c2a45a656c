/**
 * The user's side of a lease's agent in the Workers pool (docs/agent.md "The user's side"): the
 * log as text (`tail`), followed as Server-Sent Events (pushed, resumable, ended by the exit or
 * the release, by 100 followers at once), and exec (done, failed, timeout then read later, output
 * cut at 1 MiB); another org's lease is 404 and bad input a 4xx. The agent's side is driven by
 * hand through /v1/agent with a token minted by the test-only sim route.
 */
import { env, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EXEC_CMD_MAX_BYTES, EXEC_OUTPUT_MAX_BYTES } from "../../src/occupant/exec";
import { LOG_RETENTION_MS } from "../../src/occupant/logs";
import { BASE, BOOTSTRAP, call, createKey, createOrg, expectError, json, refreshCatalog, type TestOrg } from "./helpers";
import { createLease, events, fastSim, getLease, waitFor, waitForState } from "./lease-helpers";

let org: TestOrg;
let key: string;
let readKey: string;
let other: TestOrg;

beforeAll(async () => {
  org = await createOrg();
  key = (await createKey(org, "write")).secret;
  readKey = (await createKey(org, "read")).secret;
  other = await createOrg();
  await refreshCatalog();
});

beforeEach(async () => {
  await fastSim();
});

interface Lease {
  id: string;
  token: string;
}

/** A ready lease with a fresh agent token (minted once the machine exists: provisioning mints its own first). */
async function readyLease(kind: "scratch" | "job" = "scratch", policy: Record<string, unknown> = {}): Promise<Lease> {
  // A job needs its command; the sim's `hang` prints nothing, so the test's own posts are the log.
  const job = kind === "job" ? { cmd: "hang", policy: { on_exit: "keep", ...policy } } : { policy };
  const lease = await createLease(key, { kind, spec: { gpu: "l40s:1" }, ...job });
  await waitForState(key, lease.id, "ready");
  const res = await call("POST", `/v1/sim/leases/${lease.id}/agent-token`, { key: BOOTSTRAP });
  expect(res.status).toBe(201);
  return { id: lease.id, token: (await json(res)).token };
}

function agent(method: string, path: string, lease: Lease, opts: { body?: unknown; raw?: string; headers?: Record<string, string> } = {}) {
  return call(method, `/v1/agent${path}`, { key: lease.token, ...opts, headers: { "lessor-lease-id": lease.id, ...opts.headers } });
}

async function logChunk(lease: Lease, seq: number, text: string) {
  const res = await agent("POST", "/logs", lease, { raw: text, headers: { "content-type": "text/plain", "lessor-log-seq": String(seq) } });
  expect(res.status).toBe(200);
}

async function exit(lease: Lease, code: number) {
  expect((await agent("POST", "/exit", lease, { body: { code, signal: null } })).status).toBe(200);
}

const logs = (lease: Lease, query = "", k = key) => call("GET", `/v1/leases/${lease.id}/logs${query}`, { key: k });

interface SseEvent {
  event: string;
  id: string | null;
  data: string;
}

/** Reads a Server-Sent Events stream event by event (comments skipped); null when it has ended. */
class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = "";

  constructor(res: Response) {
    this.#reader = res.body!.getReader();
  }

  async next(): Promise<SseEvent | null> {
    for (;;) {
      const end = this.#buffer.indexOf("\n\n");
      if (end >= 0) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        const lines = block.split("\n").filter((l) => !l.startsWith(":"));
        // As an EventSource does: a frame without data (`retry:`, a comment) dispatches nothing.
        if (!lines.some((l) => l.startsWith("data:"))) continue;
        const field = (name: string) => lines.filter((l) => l.startsWith(`${name}: `)).map((l) => l.slice(name.length + 2));
        return { event: field("event")[0] ?? "message", id: field("id")[0] ?? null, data: field("data").join("\n") };
      }
      const { done, value } = await this.#reader.read();
      if (done) return null;
      this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }

  cancel() {
    return this.#reader.cancel();
  }
}

async function follow(lease: Lease, headers: Record<string, string> = {}, query = "?follow=1"): Promise<SseReader> {
  const res = await call("GET", `/v1/leases/${lease.id}/logs${query}`, { key, headers, unchecked: "a stream: read event by event below" });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  return new SseReader(res);
}

describe("GET /v1/leases/:id/logs as text", () => {
  let lease: Lease;

  beforeAll(async () => {
    await fastSim();
    lease = await readyLease();
  });

  it("answers an empty log before any output", async () => {
    const res = await logs(lease);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    expect(await res.text()).toBe("");
    expect(res.headers.get("lessor-log-bytes")).toBe("0");
  });

  it("answers the whole log, or its last N lines, with a read key", async () => {
    await logChunk(lease, 0, "a\nb\n");
    await logChunk(lease, 1, "c\nd");
    await logChunk(lease, 2, "\ne\n");
    const all = await logs(lease, "", readKey);
    expect(await all.text()).toBe("a\nb\nc\nd\ne\n");
    expect(all.headers.get("lessor-log-bytes")).toBe("10");
    expect(all.headers.get("lessor-log-dropped-bytes")).toBe("0");
    expect(await (await logs(lease, "?tail=2")).text()).toBe("d\ne\n");
    expect(await (await logs(lease, "?tail=1")).text()).toBe("e\n");
    expect(await (await logs(lease, "?tail=0")).text()).toBe("");
    expect(await (await logs(lease, "?tail=5")).text()).toBe("a\nb\nc\nd\ne\n");
    expect(await (await logs(lease, "?tail=6")).text()).toBe("a\nb\nc\nd\ne\n");
  });

  it("refuses a bad tail and Last-Event-ID with 400, another org's lease and a malformed id with 404", async () => {
    for (const q of ["?tail=-1", "?tail=x", "?tail=1.5", `?tail=${2 ** 40}`, "?follow=yes"]) await expectError(await logs(lease, q), 400);
    await expectError(await call("GET", `/v1/leases/${lease.id}/logs?follow=1`, { key, headers: { "last-event-id": "x" } }), 400);
    await expectError(await logs(lease, "", other.adminKey), 404, "not_found");
    await expectError(await call("GET", `/v1/leases/${lease.id}/logs?follow=1`, { key: other.adminKey }), 404, "not_found");
    await expectError(await call("GET", "/v1/leases/ls_nope/logs", { key }), 404, "not_found");
    await expectError(await call("GET", `/v1/leases/${lease.id}/logs`), 401);
  });
});

describe("following the log", () => {
  it("sends the log, then each new chunk as it is posted, and ends with the exit; a resume sends only what came after", async () => {
    const lease = await readyLease("job");
    await logChunk(lease, 10, "one\n");
    await logChunk(lease, 11, "two\nthree\n");
    const stream = await follow(lease);
    expect(await stream.next()).toEqual({ event: "message", id: "10", data: "one\n" });
    expect(await stream.next()).toEqual({ event: "message", id: "11", data: "two\nthree\n" });
    await logChunk(lease, 12, "four");
    expect(await stream.next()).toEqual({ event: "message", id: "12", data: "four" });
    await logChunk(lease, 12, "four again"); // a retried chunk is not sent twice
    await logChunk(lease, 13, "\n");
    expect(await stream.next()).toMatchObject({ id: "13", data: "\n" });
    await exit(lease, 3);
    const end = await stream.next();
    expect(end).toMatchObject({ event: "end", id: null });
    expect(JSON.parse(end!.data)).toMatchObject({ reason: "exited", exit: { code: 3, signal: null } });
    expect(await stream.next()).toBeNull();

    // Resumed after chunk 11 (what EventSource sends): chunks 12 and 13, then the end at once.
    const resumed = await follow(lease, { "last-event-id": "11" });
    expect((await resumed.next())?.id).toBe("12");
    expect((await resumed.next())?.id).toBe("13");
    expect((await resumed.next())?.event).toBe("end");
    expect(await resumed.next()).toBeNull();
    // Asked for by Accept rather than `follow`.
    const accepted = await follow(lease, { accept: "text/event-stream", "last-event-id": "13" }, "");
    expect((await accepted.next())?.event).toBe("end");
  });

  it("ends when the lease is released", async () => {
    const lease = await readyLease();
    const stream = await follow(lease);
    await logChunk(lease, 0, "hello\n");
    expect((await stream.next())?.data).toBe("hello\n");
    expect((await call("POST", `/v1/leases/${lease.id}/end`, { key })).status).toBe(200);
    const end = await stream.next();
    expect(end?.event).toBe("end");
    expect(JSON.parse(end!.data)).toEqual({ reason: "released" });
    expect(await stream.next()).toBeNull();
    // Opened after the release: the log, then the end.
    const late = await follow(lease);
    expect((await late.next())?.data).toBe("hello\n");
    expect((await late.next())?.event).toBe("end");
  });

  it("serves 100 followers of one lease, each pushed every chunk", async () => {
    const lease = await readyLease("job");
    const streams = await Promise.all(Array.from({ length: 100 }, () => follow(lease)));
    await logChunk(lease, 0, "to all\n");
    const got = await Promise.all(streams.map((s) => s.next()));
    expect(got.every((e) => e?.id === "0" && e.data === "to all\n")).toBe(true);
    await exit(lease, 0);
    const ends = await Promise.all(streams.map((s) => s.next()));
    expect(ends.every((e) => e?.event === "end")).toBe(true);
  });

  it("is not the lease's use: a lease whose log is followed idles out; a follower that goes away is let go", async () => {
    // 6 s of grace and idle: longer than an exec's use is throttled to (USE_EVERY_MS), so a follow
    // that counted as use would keep it ready.
    const lease = await readyLease("scratch", { idle_timeout: "5s", heartbeat_grace: "1s" });
    const before = (await getLease(key, lease.id)).last_activity_at;
    // Followed the whole time, as a log left open in a browser tab, and opened again every second.
    let stream = await follow(lease);
    let now = await getLease(key, lease.id);
    for (const started = Date.now(); now.state === "ready" && Date.now() - started < 20_000; ) {
      expect(now.last_activity_at).toBe(before);
      await new Promise((r) => setTimeout(r, 1_000));
      await stream.cancel();
      stream = await follow(lease);
      now = await getLease(key, lease.id);
    }
    expect(now.state).toMatch(/^(stopping|stopped)$/);
    expect((await events(key, lease.id)).some((e) => e.type === "stop_requested" && e.reason === "idle_timeout")).toBe(true);
    await stream.cancel();
    await logChunk(lease, 0, "nobody reads this\n");
    expect(await (await logs(lease)).text()).toBe("nobody reads this\n");
  });
});

describe("POST /v1/leases/:id/exec", () => {
  let lease: Lease;

  beforeAll(async () => {
    await fastSim();
    lease = await readyLease();
  });

  /** The agent takes the commands queued (waiting for one) and answers each with `result`. */
  async function agentAnswers(result: (cmd: string) => { exit_code: number | null; output: string }) {
    const res = await agent("GET", "/commands?wait=10", lease);
    const { commands } = await json(res);
    for (const c of commands) {
      expect((await agent("POST", `/commands/${c.id}`, lease, { body: result(atob(c.cmd_base64)) })).status).toBe(200);
    }
    return commands.length as number;
  }

  const exec = (body: unknown, k = key, id = lease.id) => call("POST", `/v1/leases/${id}/exec`, { key: k, body });

  it("answers done with the output when the command exits 0, failed otherwise", async () => {
    const [res] = await Promise.all([exec({ cmd: "echo hi", timeout: "10s" }), agentAnswers((cmd) => ({ exit_code: 0, output: `${cmd}: hi\n` }))]);
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ state: "done", exit_code: 0, output: "echo hi: hi\n", output_truncated: false });
    const [failed] = await Promise.all([exec({ cmd: "exit 3" }), agentAnswers(() => ({ exit_code: 3, output: "" }))]);
    expect(await json(failed)).toMatchObject({ state: "failed", exit_code: 3 });
  });

  it("answers 504 exec_timeout with the exec_id after its timeout; GET answers it later, pending, running, then done", async () => {
    const started = Date.now();
    const res = await exec({ cmd: "sleep 100", timeout: "1s" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    const body = await expectError(res, 504, "exec_timeout");
    const id = body.details.exec_id as string;
    expect(id).toMatch(/^cmd_/);
    const get = (k = key) => call("GET", `/v1/leases/${lease.id}/exec/${id}`, { key: k });
    expect(await json(await get(readKey))).toMatchObject({ exec_id: id, state: "pending", exit_code: null, output: null });
    const { commands } = await json(await agent("GET", "/commands", lease));
    expect(commands.map((c: { id: string }) => c.id)).toContain(id);
    expect((await json(await get())).state).toBe("running");
    await agent("POST", `/commands/${id}`, lease, { body: { exit_code: 0, output: "late\n" } });
    expect(await json(await get())).toMatchObject({ state: "done", exit_code: 0, output: "late\n" });
    await expectError(await get(other.adminKey), 404, "not_found");
    await expectError(await call("GET", `/v1/leases/${lease.id}/exec/cmd_nope`, { key }), 404, "not_found");
  });

  it("cuts an output over 1 MiB to its last bytes after a marker; 1 MiB exactly is whole", async () => {
    const stub = env.LEASE.get(env.LEASE.idFromName(lease.id));
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await exec({ cmd: `big ${i}`, timeout: "1s" });
      ids.push((await expectError(res, 504, "exec_timeout")).details.exec_id);
    }
    // Stored through the object: an agent's HTTP body is itself limited to 1 MiB.
    const exact = "x".repeat(EXEC_OUTPUT_MAX_BYTES);
    const over = "é".repeat(EXEC_OUTPUT_MAX_BYTES / 2) + "THE END";
    expect(await stub.agentCall(lease.token, { op: "result", id: ids[0]!, exit_code: 0, output: exact })).toMatchObject({ ok: true });
    expect(await stub.agentCall(lease.token, { op: "result", id: ids[1]!, exit_code: 0, output: over })).toMatchObject({ ok: true });
    const whole = await json(await call("GET", `/v1/leases/${lease.id}/exec/${ids[0]}`, { key }));
    expect(whole).toMatchObject({ output_truncated: false });
    expect(whole.output).toBe(exact);
    const cut = await json(await call("GET", `/v1/leases/${lease.id}/exec/${ids[1]}`, { key }));
    expect(cut.output_truncated).toBe(true);
    expect(new TextEncoder().encode(cut.output).byteLength).toBeLessThanOrEqual(EXEC_OUTPUT_MAX_BYTES);
    expect(cut.output).toMatch(/^\[lessor: \d+ bytes of earlier output were cut/);
    expect(cut.output.endsWith("ééTHE END")).toBe(true);
    expect(cut.output).not.toContain("\uFFFD");
  });

  it("refuses bad input with 400, a read key with 403, another org with 404", async () => {
    await expectError(await exec({}), 400);
    await expectError(await exec({ cmd: "" }), 400);
    await expectError(await exec({ cmd: "x".repeat(EXEC_CMD_MAX_BYTES + 1) }), 400);
    await expectError(await exec({ cmd: "é".repeat(EXEC_CMD_MAX_BYTES / 2 + 1) }), 400);
    await expectError(await exec({ cmd: "a\u0000b" }), 400);
    await expectError(await exec({ cmd: "ls", timeout: "soon" }), 400, "invalid_duration");
    await expectError(await exec({ cmd: "ls", extra: 1 }), 400);
    await expectError(await exec({ cmd: 5 }), 400);
    await expectError(await exec({ cmd: "ls" }, readKey), 403, "insufficient_scope");
    await expectError(await exec({ cmd: "ls" }, other.adminKey), 404, "not_found");
    await expectError(await exec({ cmd: "ls" }, key, "ls_nope"), 404, "not_found");
    // 8 KiB exactly is accepted (queued; nothing answers it here).
    await expectError(await exec({ cmd: "x".repeat(EXEC_CMD_MAX_BYTES), timeout: "1s" }), 504, "exec_timeout");
  });

  it("refuses a released lease with 409 invalid_state", async () => {
    const gone = await readyLease();
    expect((await call("POST", `/v1/leases/${gone.id}/end`, { key })).status).toBe(200);
    await waitForState(key, gone.id, "released");
    const body = await expectError(await exec({ cmd: "ls" }, key, gone.id), 409, "invalid_state");
    expect(body.details).toEqual({ state: "released" });
  });
});

describe("the OpenAPI document", () => {
  it("describes the logs' text and event-stream answers and the exec routes", async () => {
    const doc = await json(await SELF.fetch(`${BASE}/v1/openapi.json`));
    const logsGet = doc.paths["/v1/leases/{id}/logs"].get;
    expect(Object.keys(logsGet.responses["200"].content).sort()).toEqual(["text/event-stream", "text/plain"]);
    expect(doc.paths["/v1/leases/{id}/exec"].post.responses["504"]).toBeDefined();
    expect(doc.paths["/v1/leases/{id}/exec/{exec_id}"].get.responses["200"]).toBeDefined();
  });
});

describe("retention", () => {
  it("keeps a released lease's log 7 days, then its alarm deletes it: 410 logs_expired, the lease still answers", async () => {
    const lease = await readyLease();
    await logChunk(lease, 0, "kept a week\n");
    expect((await call("POST", `/v1/leases/${lease.id}/end`, { key })).status).toBe(200);
    const released = await waitForState(key, lease.id, "released");
    const releasedAt = Date.parse(released.released_at);
    const stub = env.LEASE.get(env.LEASE.idFromName(lease.id));
    // The released lease's one alarm: its log's deletion, once the release's last run has set it
    // (the state reads released a moment before that run ends and moves the alarm from its backstop).
    await waitFor("the alarm at the log's deletion", async () => (await runInDurableObject(stub, (_i, state) => state.storage.getAlarm())) === releasedAt + LOG_RETENTION_MS);
    // Not yet due: the alarm deletes nothing.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await (await logs(lease)).text()).toBe("kept a week\n");
    // Released a week and a second ago, as the lease's record would say then.
    await runInDurableObject(stub, (_i, state) => {
      state.storage.sql.exec(`UPDATE lease SET record = json_set(record, '$.released_at', ?)`, Date.now() - LOG_RETENTION_MS - 1000);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const gone = await expectError(await logs(lease), 410, "logs_expired");
    expect(typeof gone.details.expired_at).toBe("string");
    await expectError(await call("GET", `/v1/leases/${lease.id}/logs?follow=1`, { key }), 410, "logs_expired");
    expect((await getLease(key, lease.id)).state).toBe("released");
    expect(await runInDurableObject(stub, (_i, state) => state.storage.getAlarm())).toBeNull();
    await expectError(await logs(lease, "", other.adminKey), 404, "not_found");
  });
});
