import { SELF } from "cloudflare:test";
import { expect, it } from "vitest";

it("serves healthz", async () => {
  const res = await SELF.fetch("https://lessor.test/v1/healthz");
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ ok: true });
});
