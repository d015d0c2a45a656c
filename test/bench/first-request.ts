/**
 * How long a fresh isolate takes to answer: `wrangler dev` started on its own (no cron tick, no
 * migrations, nothing asked of it before), then the same request twice, timed from the client. The
 * request is an unauthenticated `GET /v1/leases` (401): it runs the whole Worker up to the
 * authentication middleware and touches no storage, so the first answer is the isolate's start-up
 * and the second the steady cost. Also the deployed bundle's size (`wrangler deploy --dry-run`).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { randomBytes } from "node:crypto";
import { repoRoot } from "../e2e/server";
import { buildConsole } from "../../scripts/build-console.mjs";

export interface FirstRequest {
  /** From spawning `wrangler dev` until it says it is ready. */
  ready_ms: number;
  first_ms: number;
  second_ms: number;
  first_status: number;
  bundle: { bytes: number; gzip_bytes: number };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function timed(url: string): Promise<{ ms: number; status: number }> {
  const t0 = performance.now();
  const res = await fetch(url);
  await res.arrayBuffer();
  return { ms: performance.now() - t0, status: res.status };
}

/**
 * `wrangler deploy --dry-run`: the script as it would be uploaded, and its gzip -9 size. The
 * console is built first, as `npm run deploy` builds it: wrangler refuses a configuration whose
 * assets directory does not exist (a fresh clone has no dist/).
 */
async function bundleSize(dir: string): Promise<FirstRequest["bundle"]> {
  buildConsole();
  await run(["deploy", "--dry-run", "--env=", "--outdir", dir]);
  const script = readFileSync(path.join(dir, "index.js"));
  return { bytes: script.length, gzip_bytes: gzipSync(script, { level: 9 }).length };
}

function run(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, "node_modules/wrangler/bin/wrangler.js"), ...args], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`wrangler ${args.join(" ")} exited ${code}:\n${out.slice(-2000)}`))));
  });
}

export async function benchFirstRequest(log: (msg: string) => void, port = 18000 + Math.floor(Math.random() * 1000)): Promise<FirstRequest> {
  const dir = mkdtempSync(path.join(tmpdir(), "lessor-first-"));
  try {
    log("first request: the bundle's size");
    const bundle = await bundleSize(path.join(dir, "bundle"));
    log("first request: a fresh wrangler dev");
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      [
        path.join(repoRoot, "node_modules/wrangler/bin/wrangler.js"),
        "dev",
        "--ip", "127.0.0.1",
        "--port", String(port),
        "--persist-to", path.join(dir, "state"),
        "--show-interactive-dev-session=false",
        // What src/config.ts asks before it serves; nothing here is used past authentication.
        "--var", `LESSOR_BOOTSTRAP_TOKEN:${randomBytes(32).toString("hex")}`,
        "--var", `LESSOR_MASTER_KEY:${randomBytes(32).toString("base64")}`,
      ],
      { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"], detached: true },
    );
    let out = "";
    child.stdout!.on("data", (d) => (out += d));
    child.stderr!.on("data", (d) => (out += d));
    try {
      const deadline = Date.now() + 120_000;
      while (!/Ready on http/.test(out)) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`wrangler dev did not get ready:\n${out.slice(-2000)}`);
        await sleep(20);
      }
      const ready_ms = performance.now() - t0;
      const url = `http://127.0.0.1:${port}/v1/leases`;
      const first = await timed(url);
      const second = await timed(url);
      return { ready_ms, first_ms: first.ms, second_ms: second.ms, first_status: first.status, bundle };
    } finally {
      // Its own process group (detached): wrangler and its workerd.
      try {
        process.kill(-child.pid!, "SIGTERM");
      } catch {
        // already gone
      }
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function firstRequestRows(r: FirstRequest): string[][] {
  return [
    ["worker bundle (wrangler deploy --dry-run)", "bytes, gzip -9 bytes", `${r.bundle.bytes}, ${r.bundle.gzip_bytes}`, "gzip <= 200 KB", String(r.bundle.gzip_bytes <= 200_000)],
    ["first request on a fresh isolate (wrangler dev)", "first / second ms", `${r.first_ms.toFixed(0)} / ${r.second_ms.toFixed(0)} (ready after ${(r.ready_ms / 1000).toFixed(1)} s; status ${r.first_status})`, "-", "-"],
  ];
}
