/**
 * The chaos client's one resend rule (test/bench/chaos-lib.ts WRANGLER_RESTARTED): the 503 that
 * wrangler dev's proxy answers for a request it lost is sent again at most twice and counted; any
 * other 5xx, and a third loss in a row, is a failure the run counts as a violation.
 */
import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { Client, WRANGLER_RESTARTED } from "../bench/chaos-lib";

let server: Server | null = null;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

/** A server that answers the given statuses in turn (the last one from then on), and counts what it got. */
async function serve(answers: Array<{ status: number; body: string }>): Promise<{ base: string; got: () => number }> {
  let got = 0;
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const a = answers[Math.min(got, answers.length - 1)]!;
      got++;
      res.writeHead(a.status, { "content-type": a.status === 503 ? "text/plain" : "application/json", "retry-after": "0" });
      res.end(a.body);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", () => resolve()));
  const port = (server!.address() as { port: number }).port;
  return { base: `http://127.0.0.1:${port}`, got: () => got };
}

const lost = { status: 503, body: `${WRANGLER_RESTARTED}. Please try sending the request again.` };
const ok = { status: 200, body: '{"ok":true}' };

describe("the chaos client", () => {
  it("resends a request the dev proxy lost, counts the resend, and records no failure", async () => {
    const s = await serve([lost, lost, ok]);
    const c = new Client(s.base, "k");
    const res = await c.call("POST", "/v1/leases/x/end", {});
    expect(res).toEqual({ status: 200, json: { ok: true } });
    expect(s.got()).toBe(3);
    expect(c.proxyResends).toBe(2);
    expect(c.failures).toEqual([]);
    expect(c.requests).toBe(1);
  });

  it("counts a third loss in a row as a failed request", async () => {
    const s = await serve([lost]);
    const c = new Client(s.base, "k");
    const res = await c.call("POST", "/v1/leases/x/end", {});
    expect(res.status).toBe(503);
    expect(s.got()).toBe(3);
    expect(c.proxyResends).toBe(2);
    expect(c.failures).toHaveLength(1);
    expect(c.failures[0]).toContain(WRANGLER_RESTARTED);
  });

  it("never resends lessor's own 5xx", async () => {
    const s = await serve([{ status: 503, body: '{"error":{"code":"misconfigured"}}' }, ok]);
    const c = new Client(s.base, "k");
    const res = await c.call("POST", "/v1/leases", {});
    expect(res.status).toBe(503);
    expect(s.got()).toBe(1);
    expect(c.proxyResends).toBe(0);
    expect(c.failures).toHaveLength(1);
  });
});
