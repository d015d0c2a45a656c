/**
 * The one envelope shows a 4xx's message and hides a 5xx's (STYLE.md rule 2; src/errors.ts):
 * text from deep inside never reaches a client by accident.
 */
import { env } from "cloudflare:test";
import { expect, it } from "vitest";
import { createApp } from "../../functions/app";
import { ApiError, HIDDEN_MESSAGE } from "../../src/errors";

function appThrowing(err: unknown) {
  const app = createApp();
  app.get("/boom", () => {
    throw err;
  });
  return app;
}

it("shows a 4xx's message and details", async () => {
  const res = await appThrowing(new ApiError(409, "taken", "the name is taken", { name: "a" })).request("/boom", {}, env);
  expect(res.status).toBe(409);
  expect(await res.json()).toMatchObject({ error: { code: "taken", message: "the name is taken", details: { name: "a" } } });
});

it("never shows a 500's message or details, even one marked as shown", async () => {
  for (const err of [new ApiError(500, "internal", "db password is hunter2", { secret: 1 }), new ApiError(500, "internal", "x", { secret: 1 }, {}, true)]) {
    const res = await appThrowing(err).request("/boom", {}, env);
    expect(res.status).toBe(500);
    const body = (await res.json()) as any;
    expect(body.error).toEqual({ code: "internal", message: HIDDEN_MESSAGE, details: {} });
    expect(typeof body.request_id).toBe("string");
  }
});

it("hides a 502's text by default, and a 4xx's when told to", async () => {
  const res = await appThrowing(new ApiError(502, "upstream", "provider said: token abc rejected")).request("/boom", {}, env);
  expect(res.status).toBe(502);
  expect(((await res.json()) as any).error).toEqual({ code: "upstream", message: HIDDEN_MESSAGE, details: {} });
  const hidden = await appThrowing(new ApiError(400, "odd", "inner text", { a: 1 }, {}, false)).request("/boom", {}, env);
  expect(((await hidden.json()) as any).error).toEqual({ code: "odd", message: HIDDEN_MESSAGE, details: {} });
});

it("hides an unknown error's text", async () => {
  const res = await appThrowing(new Error("SQLITE_ERROR near secret_table")).request("/boom", {}, env);
  expect(res.status).toBe(500);
  expect(JSON.stringify(await res.json())).not.toContain("secret_table");
});
