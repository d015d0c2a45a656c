/**
 * What the gateway passes back of the model server's answer headers (src/deployments/gateway-headers.ts,
 * docs/security.md hardening item 13): never one hop's, never what identifies the server's software,
 * never a cookie; everything else as it came.
 */
import { describe, expect, it } from "vitest";
import { answeredHeaders, forwardedHeaders } from "../../src/deployments/gateway-headers";

const answer = (pairs: [string, string][]) => answeredHeaders(new Headers(pairs));

describe("answeredHeaders", () => {
  it.each([
    ["connection", "close"],
    ["keep-alive", "timeout=5"],
    ["proxy-connection", "keep-alive"],
    ["proxy-authenticate", 'Basic realm="x"'],
    ["te", "trailers"],
    ["trailer", "x-checksum"],
    ["transfer-encoding", "chunked"],
    ["upgrade", "h2c"],
    ["server", "uvicorn"],
    ["Server", "nginx/1.18.0 (Ubuntu)"],
    ["x-powered-by", "Express"],
    ["via", "1.1 proxy.runpod.net"],
    ["set-cookie", "session=abc; Path=/"],
  ])("drops %s", (name, value) => {
    const out = answer([[name, value], ["content-type", "application/json"]]);
    expect(out.has(name)).toBe(false);
    expect(out.get("content-type")).toBe("application/json");
  });

  it("drops what the answer's Connection header names, however it is spelled", () => {
    const out = answer([
      ["connection", "X-Vllm-Hop, keep-alive ,x-other"],
      ["x-vllm-hop", "1"],
      ["x-other", "2"],
      ["x-request-id", "r1"],
    ]);
    expect([...out.keys()]).toEqual(["x-request-id"]);
  });

  it("keeps the rest as it came: type, length, caching, rate-limit and request headers", () => {
    const kept: [string, string][] = [
      ["cache-control", "no-cache"],
      ["content-length", "42"],
      ["content-type", "text/event-stream; charset=utf-8"],
      ["date", "Fri, 04 Dec 2026 12:00:00 GMT"],
      ["x-ratelimit-remaining-requests", "9"],
      ["x-request-id", "abc"],
    ];
    expect([...answer(kept)]).toEqual(kept);
  });
});

describe("forwardedHeaders", () => {
  it("sends on neither the caller's credentials and address nor one hop's headers", () => {
    const sent = forwardedHeaders(
      new Headers([
        ["authorization", "Bearer the-deployment-key"],
        ["cookie", "a=b"],
        ["cf-connecting-ip", "203.0.113.7"],
        ["x-forwarded-for", "203.0.113.7"],
        ["x-real-ip", "203.0.113.7"],
        ["connection", "keep-alive"],
        ["content-type", "application/json"],
      ]),
    );
    expect(sent).toEqual([["content-type", "application/json"]]);
  });
});
