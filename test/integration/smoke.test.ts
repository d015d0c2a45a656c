import { SELF } from "cloudflare:test";
import { expect, it } from "vitest";

it("serves healthz", async () => {
  const res = await SELF.fetch("https://lessor.test/v1/healthz");
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ ok: true });
});

// /docs/ is a static page of wrangler.toml's [assets], which the Workers pool does not serve:
// test/unit/console-build.test.ts checks what the build writes, test/e2e/console.test.ts the page.
