/**
 * A proxy for e2e tests that stands between an agent and lessor and loses what a test tells it to
 * (test/e2e/agent.test.ts, test/e2e/artifacts-cli.test.ts).
 */
import { createServer, type IncomingMessage, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";

export type Fault = "pass" | "lose_request" | "lose_answer";

/**
 * A proxy in front of lessor that loses requests: `lose_request` answers 503 without passing the
 * request on; `lose_answer` passes it on, lets lessor act, and then drops the connection, so the
 * agent cannot tell whether it arrived.
 */
export async function faultyProxy(target: string, fault: (method: string, path: string, n: number) => Fault) {
  const seen = new Map<string, number>();
  const injected: Record<string, number> = {};
  const readBody = async (req: IncomingMessage) => {
    const parts: Buffer[] = [];
    for await (const p of req) parts.push(p as Buffer);
    return Buffer.concat(parts);
  };
  const proxy: HttpServer = createServer(async (req, res) => {
    const body = await readBody(req);
    const route = `${req.method} ${(req.url ?? "").split("?")[0]}`;
    const n = (seen.get(route) ?? 0) + 1;
    seen.set(route, n);
    const f = fault(req.method ?? "GET", (req.url ?? "").split("?")[0]!, n);
    if (f !== "pass") injected[`${f} ${route}`] = (injected[`${f} ${route}`] ?? 0) + 1;
    if (f === "lose_request") return void res.writeHead(503, { "content-type": "text/plain" }).end("injected");
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === "string" && !["host", "connection", "content-length", "transfer-encoding", "expect"].includes(k)) headers[k] = v;
    }
    try {
      const upstream = await fetch(`${target}${req.url}`, { method: req.method, headers, body: body.length > 0 ? body : undefined });
      const answer = Buffer.from(await upstream.arrayBuffer());
      if (f === "lose_answer") return void req.socket.destroy();
      const sha = upstream.headers.get("lessor-sha256");
      res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/octet-stream", ...(sha ? { "lessor-sha256": sha } : {}) }).end(answer);
    } catch {
      req.socket.destroy();
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    injected,
    seen,
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}
