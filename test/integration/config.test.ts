/**
 * A misconfigured installation serves nothing and its cron does nothing (src/config.ts;
 * docs/design.md "Configuration"). The Worker's own handlers are called with the pool's bindings and one
 * setting changed, as a deploy with that setting would run them.
 */
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../functions/index";
import type { Env } from "../../src/env";
import { BASE } from "./helpers";

async function get(path: string, overrides: Partial<Env>) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${BASE}${path}`), { ...(env as Env), ...overrides } as Env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("an installation that is not configured to serve", () => {
  it("answers every route, healthz included, with 503 misconfigured naming the settings, never their values", async () => {
    const short = "short-bootstrap-token";
    for (const path of ["/v1/healthz", "/v1/openapi.json", "/v1/org", "/nowhere"]) {
      const res = await get(path, { LESSOR_BOOTSTRAP_TOKEN: short });
      expect(res.status, path).toBe(503);
      const body = (await res.json()) as { error: { code: string; message: string; details: { problems: string[] } }; request_id: string };
      expect(body.error.code).toBe("misconfigured");
      expect(body.error.details.problems).toEqual([expect.stringMatching(/^LESSOR_BOOTSTRAP_TOKEN must be at least 32 characters/)]);
      expect(JSON.stringify(body)).not.toContain(short);
      expect(body.request_id).toMatch(/^req_/);
    }
  });

  it("in production, refuses sim and the default installation id", async () => {
    const res = await get("/v1/healthz", { LESSOR_ENVIRONMENT: "production", LESSOR_PROVIDERS: "sim,runpod", LESSOR_INSTALLATION_ID: "dev", LESSOR_PUBLIC_URL: undefined });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { details: { problems: string[] } } };
    expect(body.error.details.problems).toEqual([
      expect.stringMatching(/^LESSOR_INSTALLATION_ID must be set/),
      expect.stringMatching(/must not include "sim"/),
      expect.stringMatching(/^LESSOR_PUBLIC_URL must be set/),
    ]);
  });

  it("serves once the settings are right", async () => {
    const res = await get("/v1/healthz", { LESSOR_ENVIRONMENT: "production", LESSOR_PROVIDERS: "runpod", LESSOR_INSTALLATION_ID: "acmeprod", LESSOR_PUBLIC_URL: "https://lessor.example.com" });
    expect(res.status).toBe(200);
  });

  it("runs no cron sweep", async () => {
    const controller = createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" });
    await expect(
      worker.scheduled(controller, { ...(env as Env), LESSOR_ENVIRONMENT: "production", LESSOR_PROVIDERS: "sim" } as Env),
    ).rejects.toThrow(/installation misconfigured: LESSOR_INSTALLATION_ID/);
  });
});
