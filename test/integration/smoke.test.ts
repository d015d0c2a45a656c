import { SELF } from "cloudflare:test";
import { expect, it } from "vitest";

it("serves healthz", async () => {
  const res = await SELF.fetch("https://lessor.test/v1/healthz");
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ ok: true });
});

it("serves an interactive API reference of /v1/openapi.json at /docs, without a credential", async () => {
  const res = await SELF.fetch("https://lessor.test/docs");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  const html = await res.text();
  expect(html).toContain("/v1/openapi.json");
  expect(html).not.toContain("fonts.scalar.com");
});
