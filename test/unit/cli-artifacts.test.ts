/**
 * The CLI's data in and out (docs/artifacts.md) over real HTTP: a node:http server on 127.0.0.1
 * speaks the contract's routes (`POST /v1/uploads`, a lease's artifacts listed page by page and
 * read whole or by Range, its events and log), and the CLI runs through `main` against it, so
 * what is tested is the CLI's own fetch, streaming, hashing and file writing. The server can lie:
 * bytes that do not match their digest, paths that leave the directory, a connection cut in the
 * middle of a file, a bundle over its limit.
 */
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { list as tarList } from "tar";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { artifactTarget, isArtifactPath, outputsVerdict, PARTIAL_SUFFIX } from "../../cli/artifacts.mjs";
import { stallError, transfer } from "../../cli/client.mjs";
import { context } from "../../cli/commands.mjs";
import { EXIT } from "../../cli/exit-codes.mjs";
import { main } from "../../cli/main.mjs";
import { captureIo } from "../support/cli-io";

const LEASE = "ls_01m8rjha6f67yss1ky0ptedt9t";
const KEY = "lsr_test_key";
const sha = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");

interface Stored {
  path: string;
  bytes: Buffer;
  /** What the server says the digest is, when it lies. */
  claimed?: string;
  /** Sends this many bytes, then cuts the connection (once). */
  cutAfter?: number;
}

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
}

/** What the fake lessor holds and what it was asked. */
const state = {
  seen: [] as Seen[],
  uploads: new Map<string, Buffer>(),
  uploadLimit: 50 * 1024 * 1024,
  /** The API's general body limit answers this code, with `max_bytes`, instead of the contract's. */
  generalLimit: false,
  leaseBodies: [] as any[],
  artifacts: [] as Stored[],
  events: [] as any[],
  /** Events the events route answers only from its Nth call on (a verdict that comes later). */
  lateEvents: { from: 0, events: [] as any[] },
  eventCalls: 0,
  released: true,
  pageSize: 3,
  exit: { code: 0, signal: null as string | null, at: "2026-12-01T12:00:00.000Z" },
};

function reset() {
  state.seen = [];
  state.uploads.clear();
  state.uploadLimit = 50 * 1024 * 1024;
  state.generalLimit = false;
  state.leaseBodies = [];
  state.artifacts = [];
  state.events = [];
  state.lateEvents = { from: 0, events: [] };
  state.eventCalls = 0;
  state.released = true;
  state.pageSize = 3;
  state.exit = { code: 0, signal: null, at: "2026-12-01T12:00:00.000Z" };
}

const envelope = (res: ServerResponse, status: number, code: string, details: Record<string, unknown> = {}) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: { code, message: `${code} (fake lessor)`, details }, request_id: "req_fake" }));
};
const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

const event = (seq: number, type: string, detail: Record<string, unknown> = {}) => ({ seq, at: "2026-12-01T12:00:00.000Z", type, from: null, to: null, reason: null, detail });

async function handle(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url!, "http://fake");
  state.seen.push({ method: req.method!, url: req.url!, headers: req.headers });
  if (req.headers.authorization !== `Bearer ${KEY}`) return envelope(res, 401, "unauthenticated");

  if (req.method === "POST" && url.pathname === "/v1/uploads") {
    const length = Number(req.headers["content-length"]);
    if (req.headers["content-type"] !== "application/gzip" || !/^[0-9a-f]{64}$/.test(String(req.headers["lessor-sha256"]))) return envelope(res, 400, "invalid_request");
    // Refused from its length alone, before a byte of the body is read.
    if (length > state.uploadLimit) {
      return state.generalLimit ? envelope(res, 413, "payload_too_large", { max_bytes: state.uploadLimit }) : envelope(res, 413, "upload_too_large", { limit_bytes: state.uploadLimit });
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    if (body.length !== length || sha(body) !== req.headers["lessor-sha256"]) return envelope(res, 400, "checksum_mismatch");
    const id = `upl_${String(state.uploads.size).padStart(26, "0")}`;
    state.uploads.set(id, body);
    return json(res, 201, { id, size: body.length, sha256: sha(body), created_at: "2026-12-01T12:00:00.000Z", expires_at: "2026-12-02T12:00:00.000Z" });
  }

  if (req.method === "POST" && url.pathname === "/v1/leases") {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (body.workdir !== undefined && !state.uploads.has(body.workdir)) return envelope(res, 404, "not_found", { field: "workdir" });
    state.leaseBodies.push(body);
    return json(res, 202, { id: LEASE, provider: "sim", offer: { gpu: "l4", gpu_count: 1, region: "us-east" }, hourly_usd: 0.5, state: "pending" });
  }

  if (req.method === "GET" && url.pathname === `/v1/leases/${LEASE}/logs`) {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("retry: 1000\n\nid: 1\ndata: hi\n\n");
    res.end(`event: end\ndata: ${JSON.stringify({ reason: "exited", exit: state.exit })}\n\n`);
    return;
  }

  if (req.method === "GET" && url.pathname === `/v1/leases/${LEASE}/events`) {
    const after = Number(url.searchParams.get("after") ?? 0);
    const calls = ++state.eventCalls;
    const all = [...state.events, ...(calls >= state.lateEvents.from ? state.lateEvents.events : [])];
    // Two events a page, so a verdict may sit on a later page.
    const page = all.filter((e) => e.seq > after).slice(0, 2);
    const more = all.some((e) => e.seq > (page.at(-1)?.seq ?? after));
    return json(res, 200, { data: page, next_after: more ? page.at(-1)!.seq : null, released: state.released });
  }

  if (req.method === "GET" && url.pathname === "/stall") {
    res.writeHead(200, { "content-type": "application/octet-stream" });
    res.write("a little, then nothing");
    return;
  }

  if (req.method === "GET" && url.pathname === `/v1/leases/${LEASE}/artifacts`) {
    const from = Number(url.searchParams.get("cursor") ?? 0);
    const size = Math.min(state.pageSize, Number(url.searchParams.get("limit") ?? 100));
    const page = state.artifacts.slice(from, from + size);
    const next = from + size < state.artifacts.length ? String(from + size) : null;
    const data = page.map((a) => ({ path: a.path, size: a.bytes.length, sha256: a.claimed ?? sha(a.bytes), created_at: "2026-12-01T11:59:00.000Z", expires_at: null }));
    return json(res, 200, { data, next_cursor: next });
  }

  const prefix = `/v1/leases/${LEASE}/artifacts/`;
  if (req.method === "GET" && url.pathname.startsWith(prefix)) {
    const p = url.pathname.slice(prefix.length).split("/").map(decodeURIComponent).join("/");
    const a = state.artifacts.find((x) => x.path === p);
    if (!a) return envelope(res, 404, "not_found");
    const headers = { "lessor-sha256": a.claimed ?? sha(a.bytes), etag: `"${sha(a.bytes)}"`, "accept-ranges": "bytes", "content-type": "application/octet-stream" };
    const range = /^bytes=(\d+)-$/.exec(String(req.headers.range ?? ""));
    if (range) {
      const start = Number(range[1]);
      if (start >= a.bytes.length) return envelope(res, 416, "range_not_satisfiable");
      res.writeHead(206, { ...headers, "content-range": `bytes ${start}-${a.bytes.length - 1}/${a.bytes.length}`, "content-length": a.bytes.length - start });
      return res.end(a.bytes.subarray(start));
    }
    res.writeHead(200, { ...headers, "content-length": a.bytes.length });
    if (a.cutAfter !== undefined) {
      const cut = a.cutAfter;
      delete a.cutAfter;
      res.write(a.bytes.subarray(0, cut), () => setTimeout(() => res.socket?.destroy(), 20));
      return;
    }
    return res.end(a.bytes);
  }
  return envelope(res, 404, "not_found");
}

let server: Server;
let base: string;
let work: string;

beforeAll(async () => {
  server = createServer((req, res) => void handle(req, res).catch((e) => envelope(res, 500, `internal: ${e}`)));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no address");
  base = `http://127.0.0.1:${address.port}`;
  work = mkdtempSync(path.join(tmpdir(), "lessor-artifacts-test-"));
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(work, { recursive: true, force: true });
});

afterEach(reset);

async function lessor(argv: string[]) {
  const io = captureIo({ env: { LESSOR_URL: base, LESSOR_API_KEY: KEY } });
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

/** A fresh directory under the test's own. */
let n = 0;
const fresh = (name: string) => {
  const dir = path.join(work, `${name}-${n++}`);
  mkdirSync(dir, { recursive: true });
  return dir;
};

/** Every file under `dir`, relative, `/`-separated. */
function filesUnder(dir: string, rel = ""): string[] {
  return readdirSync(path.join(dir, rel), { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? filesUnder(dir, rel ? `${rel}/${d.name}` : d.name) : [rel ? `${rel}/${d.name}` : d.name]))
    .sort();
}

const bytes = (size: number, seed: number) => {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * 31 + seed * 7 + (i >> 8)) & 0xff;
  return b;
};

describe("paths an artifact may have", () => {
  it("relative, /-separated, no empty, . or .. segment, no control character or backslash, at most 1024 bytes", () => {
    for (const ok of ["a", "a/b.txt", "ckpt/epoch-1/model.safetensors", "ünï/çødé", ".hidden", "a..b", "x".repeat(1024)]) expect(isArtifactPath(ok), ok).toBe(true);
    for (const bad of ["", "/etc/passwd", "../x", "a/../../x", "a/./b", "a//b", "a/", ".", "..", "a\\b", "a\u0000b", "a\nb", "a\u009bb", "x".repeat(1025), "é".repeat(513)]) {
      expect(isArtifactPath(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it("a target stays inside the directory, or is refused", () => {
    const dir = path.join(work, "out");
    expect(artifactTarget(dir, "a/b.txt")).toBe(path.join(dir, "a", "b.txt"));
    for (const bad of ["../escape", "/abs", "a/../../b", "..\\x"]) expect(() => artifactTarget(dir, bad)).toThrow(expect.objectContaining({ code: "unsafe_path", exitCode: EXIT.UNEXPECTED }));
  });
});

describe("lessor run --workdir --out", () => {
  it("uploads the bundle once (raw gzip, its digest named), names it in the lease, then brings every output back byte for byte", async () => {
    const repo = fresh("repo");
    mkdirSync(path.join(repo, ".git"));
    writeFileSync(path.join(repo, ".git", "HEAD"), "ref\n");
    writeFileSync(path.join(repo, ".env"), "SECRET=1\n");
    writeFileSync(path.join(repo, "train.py"), "print('hi')\n");
    writeFileSync(path.join(repo, ".gitignore"), "*.log\n");
    writeFileSync(path.join(repo, "run.log"), "noise\n");
    state.artifacts = [
      { path: "metrics.json", bytes: Buffer.from('{"loss": 0.1}\n') },
      { path: "ckpt/epoch-1/model.bin", bytes: bytes(300_000, 1) },
      { path: "ckpt/epoch-2/model.bin", bytes: bytes(200_001, 2) },
      { path: "samples/ünïcode name.txt", bytes: Buffer.from("ok\n") },
      { path: "empty.txt", bytes: Buffer.alloc(0) },
      { path: "z/last.bin", bytes: bytes(70_000, 3) },
      { path: "z/very/deep/file", bytes: bytes(10, 4) },
    ];
    state.events = [event(1, "created"), event(7, "exited"), event(8, "outputs_uploaded", { files: 7, bytes: 570_029 })];
    const out = path.join(fresh("run"), "out");

    const r = await lessor(["run", "--gpu", "l4", "--workdir", repo, "--out", out, "--", "python", "train.py"]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe("hi");

    // One upload, its body the bundle; the lease names it.
    const uploads = state.seen.filter((s) => s.url === "/v1/uploads");
    expect(uploads).toHaveLength(1);
    const [id, bundle] = [...state.uploads.entries()][0]!;
    expect(uploads[0]!.headers["lessor-sha256"]).toBe(sha(bundle));
    expect(uploads[0]!.headers["content-length"]).toBe(String(bundle.length));
    expect(state.leaseBodies).toEqual([expect.objectContaining({ kind: "job", cmd: "python train.py", workdir: id })]);
    const file = path.join(work, "got.tar.gz");
    writeFileSync(file, bundle);
    const names: string[] = [];
    await tarList({ file, onReadEntry: (e) => void names.push(e.path) });
    expect(names.sort()).toEqual([".gitignore", "train.py"]);

    // What was left out, and the size sent, on stderr.
    expect(r.err).toMatch(/^left out:$/m);
    expect(r.err).toMatch(/^ {2}\.git \(always\) +1 +\.git\/$/m);
    expect(r.err).toMatch(/^ {2}\*\.log \(\.gitignore\) +1 +run\.log$/m);
    expect(r.err).toMatch(new RegExp(`^workdir .+: 2 files, \\d+ B; sending ${bundle.length} B \\(gzip, sha256 ${sha(bundle).slice(0, 12)}\\)$`, "m"));

    // Every output, byte for byte, listed over three pages.
    expect(filesUnder(out)).toEqual(state.artifacts.map((a) => a.path).sort());
    for (const a of state.artifacts) expect(readFileSync(path.join(out, ...a.path.split("/"))).equals(a.bytes), a.path).toBe(true);
    expect(state.seen.filter((s) => s.url.startsWith(`/v1/leases/${LEASE}/artifacts?`))).toHaveLength(3);
    expect(r.err).toMatch(/^outputs: got 7 files \(556\.7 KiB\) into /m);
  });

  it("--json: the last document carries the outputs", async () => {
    state.artifacts = [{ path: "a.txt", bytes: Buffer.from("a\n") }];
    state.events = [event(3, "outputs_uploaded", { files: 1, bytes: 2 })];
    const out = fresh("json");
    const r = await lessor(["run", "--json", "--gpu", "l4", "--out", out, "--", "echo a"]);
    expect(r.code, r.err).toBe(0);
    const docs = r.out.trim().split("\n").map((l) => JSON.parse(l));
    expect(docs.at(-1)).toEqual({
      lease_id: LEASE,
      exit: state.exit,
      exit_code: 0,
      outputs: { dir: out, files: 1, bytes: 2, verdict: "uploaded", missing: [], failed: [] },
    });
  });

  it("outputs_incomplete: what came is kept, what is missing is named, and a job that exited 0 exits 12", async () => {
    state.artifacts = [{ path: "a.bin", bytes: bytes(1000, 5) }];
    state.events = [event(5, "outputs_incomplete", { missing: ["b.bin", "c/d.bin"], files: 1, bytes: 1000 })];
    const out = fresh("incomplete");
    const r = await lessor(["run", "--gpu", "l4", "--out", out, "--", "echo"]);
    expect(r.code, r.err).toBe(EXIT.INCOMPLETE);
    expect(r.err).toMatch(/^error: outputs incomplete: 2 files the job left did not come back: b\.bin, c\/d\.bin$/m);
    expect(filesUnder(out)).toEqual(["a.bin"]);

    // A job that failed keeps its own exit code; the missing outputs are still said.
    state.exit = { code: 3, signal: null, at: state.exit.at };
    const failed = await lessor(["run", "--gpu", "l4", "--out", fresh("incomplete"), "--", "echo"]);
    expect(failed.code).toBe(3);
    expect(failed.err).toMatch(/^error: outputs incomplete: /m);
  });

  it("a bundle over the server's limit: refused with 413 before the body is read, said plainly, exit 2, no lease", async () => {
    state.uploadLimit = 4096;
    const repo = fresh("big");
    writeFileSync(path.join(repo, "weights.bin"), createHash("sha512").update("x").digest().toString("hex").repeat(2000));
    mkdirSync(path.join(repo, "data"));
    writeFileSync(path.join(repo, "data", "noise.bin"), Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 2654435761) >>> 24)));
    const r = await lessor(["run", "--json", "--gpu", "l4", "--workdir", repo, "--", "echo"]);
    expect(r.code, r.err).toBe(EXIT.USAGE);
    expect(r.err).toMatch(/^error: the workdir bundle is [\d.]+ KiB, over lessor's limit of 4\.0 KiB for one upload; the largest entries of .+: weights\.bin 250\.0 KiB, data 195\.3 KiB\. Leave more out with a \.lessorignore$/m);
    expect(JSON.parse(r.out)).toMatchObject({ error: { code: "upload_too_large", details: { limit_bytes: 4096, size_bytes: expect.any(Number) } }, exit_code: 2 });
    expect(state.leaseBodies).toEqual([]);

    // The API's general body limit, if it answers first, is said the same way.
    state.generalLimit = true;
    const general = await lessor(["run", "--gpu", "l4", "--workdir", repo, "--", "echo"]);
    expect(general.code).toBe(EXIT.USAGE);
    expect(general.err).toMatch(/^error: the workdir bundle is [\d.]+ KiB, over lessor's limit of 4\.0 KiB for one upload; /m);
  });
});

describe("lessor artifacts", () => {
  it("ls: a table of one page, the next page's cursor on stderr; --json the page as it came", async () => {
    state.artifacts = [
      { path: "a.txt", bytes: Buffer.from("a") },
      { path: "b/c.bin", bytes: bytes(5000, 1) },
      { path: "d", bytes: bytes(3 * 1024 * 1024, 2) },
      { path: "e", bytes: Buffer.from("e") },
    ];
    const r = await lessor(["artifacts", "ls", LEASE]);
    expect(r.code, r.err).toBe(0);
    expect(r.out.split("\n")[0]).toMatch(/^PATH +SIZE +SHA256 +CREATED$/);
    expect(r.out).toMatch(new RegExp(`^b/c\\.bin +4\\.9 KiB +${sha(bytes(5000, 1)).slice(0, 12)} +1 min ago$`, "m"));
    expect(r.out).toMatch(/^d +3\.0 MiB +/m);
    expect(r.out).not.toMatch(/^e /m);
    expect(r.err).toBe(`more: lessor artifacts ls ${LEASE} --cursor 3\n`);
    const j = await lessor(["artifacts", "ls", LEASE, "--json", "--cursor", "3"]);
    expect(JSON.parse(j.out)).toEqual({ data: [expect.objectContaining({ path: "e", size: 1, sha256: sha("e") })], next_cursor: null });
  });

  it("get: all of them, or one, or those under a directory, into -o DIR", async () => {
    state.artifacts = [
      { path: "a.txt", bytes: Buffer.from("a") },
      { path: "ckpt/1.bin", bytes: bytes(10_000, 1) },
      { path: "ckpt/2.bin", bytes: bytes(20_000, 2) },
      { path: "z.txt", bytes: Buffer.from("z") },
    ];
    const all = fresh("all");
    const r = await lessor(["artifacts", "get", LEASE, "-o", all]);
    expect(r.code, r.err).toBe(0);
    expect(filesUnder(all)).toEqual(["a.txt", "ckpt/1.bin", "ckpt/2.bin", "z.txt"]);
    expect(r.err).toBe(`got 4 files (29.3 KiB) into ${all}\n`);

    const one = fresh("one");
    state.seen = [];
    const o = await lessor(["artifacts", "get", LEASE, "ckpt/2.bin", "-o", one, "--json"]);
    expect(o.code, o.err).toBe(0);
    expect(filesUnder(one)).toEqual(["ckpt/2.bin"]);
    expect(JSON.parse(o.out)).toEqual({ lease_id: LEASE, dir: one, files: [{ path: "ckpt/2.bin", size: 20_000, sha256: sha(bytes(20_000, 2)) }] });
    // One file needs no listing: its answer carries its digest.
    expect(state.seen.map((s) => s.url)).toEqual([`/v1/leases/${LEASE}/artifacts/ckpt/2.bin`]);

    const under = fresh("under");
    expect((await lessor(["artifacts", "get", LEASE, "ckpt", "-o", under])).code).toBe(0);
    expect(filesUnder(under)).toEqual(["ckpt/1.bin", "ckpt/2.bin"]);

    // Again into the same directory: what is there already with its digest is not fetched again.
    state.seen = [];
    expect((await lessor(["artifacts", "get", LEASE, "-o", all])).code).toBe(0);
    expect(state.seen.filter((s) => s.url.includes("/artifacts/"))).toEqual([]);

    const none = await lessor(["artifacts", "get", LEASE, "nope.txt", "-o", fresh("none")]);
    expect(none.code).toBe(EXIT.NOT_FOUND);
  });

  it("a digest that does not match: an error naming the file, exit 12, the file not left in place; the others are kept", async () => {
    state.artifacts = [
      { path: "good.bin", bytes: bytes(5000, 1) },
      { path: "bad/liar.bin", bytes: bytes(5000, 2), claimed: sha("something else") },
    ];
    const dir = fresh("mismatch");
    const r = await lessor(["artifacts", "get", LEASE, "-o", dir, "--json"]);
    expect(r.code, r.err).toBe(EXIT.INCOMPLETE);
    expect(r.err).toMatch(new RegExp(`^error: 1 artifact not downloaded: bad/liar\\.bin: its SHA-256 is ${sha(bytes(5000, 2))}, lessor said ${sha("something else")}; not kept$`, "m"));
    expect(JSON.parse(r.out)).toMatchObject({ error: { code: "checksum_mismatch", details: { failed: [{ path: "bad/liar.bin", code: "checksum_mismatch" }] } }, exit_code: 12 });
    expect(filesUnder(dir)).toEqual(["good.bin"]);

    // One file asked for by name: the same.
    const one = fresh("mismatch-one");
    const o = await lessor(["artifacts", "get", LEASE, "bad/liar.bin", "-o", one]);
    expect(o.code).toBe(EXIT.INCOMPLETE);
    expect(o.err).toMatch(/^error: bad\/liar\.bin: its SHA-256 is [0-9a-f]{64}, lessor said [0-9a-f]{64}; not kept$/m);
    expect(filesUnder(one)).toEqual([]);
  });

  it("paths the server names that would leave the directory are refused; nothing is written outside, nothing is asked for them", async () => {
    state.artifacts = [
      { path: "../escape.txt", bytes: Buffer.from("x") },
      { path: "/etc/owned", bytes: Buffer.from("x") },
      { path: "a/../../b", bytes: Buffer.from("x") },
      { path: "ok.txt", bytes: Buffer.from("ok") },
    ];
    const parent = fresh("escape");
    const dir = path.join(parent, "out");
    const r = await lessor(["artifacts", "get", LEASE, "-o", dir]);
    expect(r.code).toBe(EXIT.UNEXPECTED);
    expect(r.err).toMatch(/^error: 3 artifacts not downloaded: lessor named an artifact "\.\.\/escape\.txt": not a path inside /m);
    expect(filesUnder(parent)).toEqual(["out/ok.txt"]);
    expect(state.seen.filter((s) => s.url.includes("/artifacts/"))).toEqual([expect.objectContaining({ url: `/v1/leases/${LEASE}/artifacts/ok.txt` })]);
  });

  it("a symbolic link inside the directory that leads out of it is not written through", async () => {
    const outside = fresh("outside");
    const dir = fresh("linked");
    symlinkSync(outside, path.join(dir, "sub"));
    state.artifacts = [{ path: "sub/x.txt", bytes: Buffer.from("x") }];
    const r = await lessor(["artifacts", "get", LEASE, "-o", dir]);
    expect(r.code).toBe(EXIT.UNEXPECTED);
    expect(r.err).toMatch(/sub\/x\.txt: its directory leads out of .+ through a symbolic link; refused/);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("a download cut in the middle leaves only its temporary file, and the next get continues it with a Range", async () => {
    const big = bytes(1_000_000, 9);
    state.artifacts = [{ path: "ckpt/model.bin", bytes: big, cutAfter: 300_000 }];
    const dir = fresh("resume");
    const first = await lessor(["artifacts", "get", LEASE, "-o", dir]);
    expect(first.code).not.toBe(0);
    const partial = path.join(dir, "ckpt", `model.bin${PARTIAL_SUFFIX}`);
    expect(existsSync(path.join(dir, "ckpt", "model.bin"))).toBe(false);
    const kept = lstatSync(partial).size;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(300_000);

    state.seen = [];
    const second = await lessor(["artifacts", "get", LEASE, "-o", dir]);
    expect(second.code, second.err).toBe(0);
    const asked = state.seen.filter((s) => s.url.includes("/artifacts/ckpt/"));
    expect(asked).toHaveLength(1);
    expect(asked[0]!.headers.range).toBe(`bytes=${kept}-`);
    expect(readFileSync(path.join(dir, "ckpt", "model.bin")).equals(big)).toBe(true);
    expect(existsSync(partial)).toBe(false);
  });

  it("a temporary file of an older version: continued, found not to match, fetched again whole", async () => {
    const now = bytes(50_000, 1);
    state.artifacts = [{ path: "m.bin", bytes: now }];
    const dir = fresh("stale");
    writeFileSync(path.join(dir, `m.bin${PARTIAL_SUFFIX}`), bytes(20_000, 2));
    state.seen = [];
    const r = await lessor(["artifacts", "get", LEASE, "m.bin", "-o", dir]);
    expect(r.code, r.err).toBe(0);
    expect(state.seen.map((s) => s.headers.range)).toEqual(["bytes=20000-", undefined]);
    expect(readFileSync(path.join(dir, "m.bin")).equals(now)).toBe(true);
  });
});

describe("waiting for the verdict on a job's outputs", () => {
  const ctx = () => context({ ...captureIo({ env: { LESSOR_URL: base, LESSOR_API_KEY: KEY } }), now: Date.now }, {});

  it("reads every page, and asks again until a verdict comes", async () => {
    state.released = false;
    state.events = [event(1, "created"), event(2, "ready"), event(3, "exited")];
    state.lateEvents = { from: 4, events: [event(4, "stopped"), event(5, "outputs_incomplete", { missing: ["x"], files: 0, bytes: 0 })] };
    expect(await outputsVerdict(ctx(), LEASE, { pollMs: 10 })).toEqual({ verdict: "incomplete", missing: ["x"] });
    const afters = state.seen.filter((s) => s.url.includes("/events")).map((s) => new URL(s.url, base).searchParams.get("after"));
    expect(afters).toEqual(["0", "2", "3", "3"]);
  });

  it("no verdict: once the lease is released, or at the deadline, it is unknown", async () => {
    state.events = [event(1, "released")];
    expect(await outputsVerdict(ctx(), LEASE, { pollMs: 10 })).toEqual({ verdict: "unknown", missing: [] });
    state.released = false;
    const started = Date.now();
    expect(await outputsVerdict(ctx(), LEASE, { pollMs: 10, deadlineMs: 100 })).toEqual({ verdict: "unknown", missing: [] });
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });
});

describe("a transfer that stops moving", () => {
  it("is a timeout (exit 8) once no byte has moved for the stall time, however long it has run", async () => {
    const { response, touch, close } = await transfer({ url: base, apiKey: KEY }, "test", "/stall", { stallMs: 200 });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const read = async () => {
      for (;;) {
        const { done } = await reader.read();
        if (done) return;
        touch();
      }
    };
    const error = await read().then(() => null, (e) => stallError(e, 200));
    close();
    expect(error).toMatchObject({ exitCode: EXIT.TIMEOUT, code: "timeout", message: "no progress for 0.2 s" });
  });
});
