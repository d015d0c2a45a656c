/** What the browser console's chat box reads from a stream and where it sends (console/src/chat.ts). */
import { describe, expect, it } from "vitest";
import { gatewayOf, pieceOf } from "../../console/src/chat";

describe("pieceOf", () => {
  it("reads the text a chunk adds, an empty one as nothing, and stops at [DONE]", () => {
    expect(pieceOf(JSON.stringify({ choices: [{ delta: { content: "Hel" } }] }))).toEqual({ done: false, text: "Hel" });
    expect(pieceOf(JSON.stringify({ choices: [{ delta: { role: "assistant" } }] }))).toEqual({ done: false, text: "" });
    expect(pieceOf(JSON.stringify({ choices: [{ delta: { content: null } }] }))).toEqual({ done: false, text: "" });
    expect(pieceOf(JSON.stringify({ choices: [] }))).toEqual({ done: false, text: "" });
    expect(pieceOf("[DONE]")).toEqual({ done: true });
    expect(pieceOf(" [DONE]")).toMatchObject({ done: false, error: expect.any(String) });
  });

  it("says an error chunk's message, and a line that is not JSON", () => {
    expect(pieceOf(JSON.stringify({ error: { message: "context too long", code: 400 } }))).toEqual({ done: false, error: "context too long" });
    expect(pieceOf(JSON.stringify({ error: {} }))).toEqual({ done: false, error: "the model server answered an error" });
    expect(pieceOf("{not json")).toEqual({ done: false, error: "the model server sent a line that is not JSON" });
  });
});

describe("gatewayOf", () => {
  const origin = "https://lessor.example.com";
  it("is base_url when it is of the page's origin", () => {
    const base_url = `${origin}/v1/gateway/dp_1/v1`;
    expect(gatewayOf({ id: "dp_1", base_url }, origin)).toBe(base_url);
  });

  it("is this origin's gateway path when base_url is of another origin, or missing", () => {
    expect(gatewayOf({ id: "dp_1", base_url: "https://tunnel.example.net/v1/gateway/dp_1/v1" }, origin)).toBe(`${origin}/v1/gateway/dp_1/v1`);
    expect(gatewayOf({ id: "dp_1", base_url: "http://lessor.example.com/v1/gateway/dp_1/v1" }, origin)).toBe(`${origin}/v1/gateway/dp_1/v1`);
    expect(gatewayOf({ id: "dp_1", base_url: null }, origin)).toBe(`${origin}/v1/gateway/dp_1/v1`);
  });
});
