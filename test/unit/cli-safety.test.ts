/**
 * Hardening item 15 (docs/security.md): the CLI sends a key over plain http:// only to this
 * machine unless `--insecure`, and what came from a machine (logs, exec output, events) reaches
 * the terminal with its control characters escaped unless `--raw`. A fake `fetch` stands for the
 * API (as in cli-commands.test.ts); the real one is test/e2e/cli.test.ts.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkKeyTransport, isLoopback, resolveConfig } from "../../cli/config.mjs";
import { jsonText, visible } from "../../cli/format.mjs";
import { main } from "../../cli/main.mjs";
import { captureIo } from "../support/cli-io";

const ID = "ls_01m8rjha6f67yss1ky0ptedt9t";

afterEach(() => {
  vi.unstubAllGlobals();
});

/** Answers each `METHOD /path` of `routes` (text or JSON); records every request's URL and bearer. */
function fakeApi(routes: Record<string, { text: string } | unknown>) {
  const seen: { url: string; auth: string | null }[] = [];
  vi.stubGlobal("fetch", async (input: Request | string, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    seen.push({ url: request.url, auth: request.headers.get("authorization") });
    const route = routes[`${request.method} ${new URL(request.url).pathname}`];
    if (route === undefined) return Response.json({ error: { code: "not_found", message: "no route", details: {} }, request_id: "req_1" }, { status: 404 });
    if (typeof route === "object" && route !== null && "text" in route) return new Response((route as { text: string }).text, { headers: { "content-type": "text/plain" } });
    return Response.json(route);
  });
  return seen;
}

async function run(argv: string[], env: Record<string, string> = { LESSOR_URL: "https://lessor.test", LESSOR_API_KEY: "lsr_test" }) {
  const io = captureIo({ env });
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe("a key over plain http://", () => {
  it.each(["http://localhost:8787", "http://LOCALHOST", "http://127.0.0.1:8787", "http://127.9.8.7", "http://127.1", "http://[::1]:8787"])("is sent to this machine: %s", (url) => {
    expect(isLoopback(new URL(url))).toBe(true);
    expect(resolveConfig({}, { LESSOR_URL: url, LESSOR_API_KEY: "lsr_k" }).apiKey).toBe("lsr_k");
  });

  it.each(["http://lessor.example.com", "http://10.0.0.5:8787", "http://192.168.1.2", "http://127.0.0.1.example.com", "http://localhost.example.com", "http://[::2]", "http://[2001:db8::1]:80"])(
    "is refused to anything else, before any request: %s",
    (url) => {
      expect(() => resolveConfig({}, { LESSOR_URL: url, LESSOR_API_KEY: "lsr_k" })).toThrow(/refusing to send the API key over plain http:\/\/.*--insecure/);
      expect(() => resolveConfig({ url }, { LESSOR_API_KEY: "lsr_k" })).toThrow(/--insecure/);
      // --insecure sends it; https is always fine.
      expect(resolveConfig({ insecure: true }, { LESSOR_URL: url, LESSOR_API_KEY: "lsr_k" }).apiKey).toBe("lsr_k");
      expect(() => checkKeyTransport(url.replace(/^http:/, "https:"), false)).not.toThrow();
    },
  );

  it("a command exits 2 and sends nothing; with --insecure it sends the key", async () => {
    const seen = fakeApi({ "GET /v1/catalog/gpus": { data: [] } });
    const env = { LESSOR_URL: "http://lessor.example.com", LESSOR_API_KEY: "lsr_test" };
    const refused = await run(["gpus"], env);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/^error: refusing to send the API key over plain http:\/\/ to lessor.example.com/);
    expect(seen).toEqual([]);
    expect((await run(["--insecure", "gpus"], env)).code).toBe(0);
    expect(seen).toEqual([{ url: "http://lessor.example.com/v1/catalog/gpus", auth: "Bearer lsr_test" }]);
  });

  it("login refuses before it reads or sends a key", async () => {
    const seen = fakeApi({ "GET /v1/catalog/gpus": { data: [] } });
    // A config folder of the test's own: nothing is written anywhere else, whatever happens.
    const dir = mkdtempSync(path.join(tmpdir(), "lessor-cli-safety-"));
    try {
      const io = captureIo({ env: { XDG_CONFIG_HOME: dir }, stdin: "lsr_secret\n" });
      expect(await main(["login", "--url", "http://lessor.example.com"], io)).toBe(2);
      expect(io.err()).toMatch(/--insecure/);
      expect(seen).toEqual([]);
      expect(existsSync(path.join(dir, "lessor", "config.json"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("what came from a machine, on a terminal", () => {
  const hostile = "ok\u001b]0;owned\u0007 \u001b[2J\u009b31m\u009d8;;http://x\u009c\rover\u007f\ttab\nnext\u0000";

  it("visible: C0 but LF and TAB, DEL and C1 as \\xHH; everything else as it is", () => {
    expect(visible(hostile)).toBe("ok\\x1b]0;owned\\x07 \\x1b[2J\\x9b31m\\x9d8;;http://x\\x9c\\x0dover\\x7f\ttab\nnext\\x00");
    expect(visible("plain text, ünïcode, 日本語, emoji 🚀\n")).toBe("plain text, ünïcode, 日本語, emoji 🚀\n");
  });

  it("jsonText: DEL and C1 escaped too, the value unchanged", () => {
    const text = jsonText({ data: hostile });
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(JSON.parse(text)).toEqual({ data: hostile });
  });

  it("logs and exec output are escaped unless --raw; --json carries no raw control character", async () => {
    fakeApi({
      [`GET /v1/leases/${ID}/logs`]: { text: `${hostile}\n` },
      [`POST /v1/leases/${ID}/exec`]: { exec_id: "cmd_1", state: "done", exit_code: 0, output: hostile, created_at: "2026-12-01T12:00:00Z", finished_at: "2026-12-01T12:00:01Z" },
    });
    const logs = await run(["logs", ID]);
    expect(logs.out).toBe(`${visible(hostile)}\n`);
    expect((await run(["--raw", "logs", ID])).out).toBe(`${hostile}\n`);
    const json = await run(["--json", "logs", ID]);
    expect(json.out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(JSON.parse(json.out).text).toBe(`${hostile}\n`);
    const exec = await run(["scratch", "exec", ID, "--", "cat", "x"]);
    expect(exec.out).toBe(visible(hostile));
    expect((await run(["scratch", "exec", ID, "--raw", "--", "cat", "x"])).out).toBe(hostile);
  });

  it("events' text is escaped unless --raw", async () => {
    const event = { seq: 1, at: "2026-12-01T12:00:00.000Z", type: "stalled\u001b[31m", from: null, to: null, reason: "inactivity\u009b2J", detail: {} };
    fakeApi({ [`GET /v1/leases/${ID}/events`]: { data: [event], next_after: null } });
    const shown = await run(["events", ID]);
    expect(shown.out).toContain("stalled\\x1b[31m");
    expect(shown.out).toContain("inactivity\\x9b2J");
    expect(shown.out).not.toMatch(/[\u001b\u009b]/);
    expect((await run(["--raw", "events", ID])).out).toContain("stalled\u001b[31m");
  });

  it("an error's message is escaped", async () => {
    vi.stubGlobal("fetch", async () => Response.json({ error: { code: "conflict", message: "no\u001b[2J", details: {} }, request_id: "r" }, { status: 409 }));
    const r = await run(["gpus"]);
    expect(r.err).toBe("error: no\\x1b[2J\n");
  });
});
