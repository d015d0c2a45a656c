/** The response checker closes the document's objects, including those built with allOf. */
import { describe, expect, it } from "vitest";
import { ResponseChecker } from "../support/response-check";

const doc = {
  paths: {
    "/v1/things/{id}": {
      get: {
        responses: {
          "200": { content: { "application/json": { schema: { $ref: "#/components/schemas/Extended" } } } },
          "404": { content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
        },
      },
    },
  },
  components: {
    schemas: {
      Base: { type: "object", properties: { id: { type: "string" }, part: { anyOf: [{ $ref: "#/components/schemas/Part" }, { type: "null" }] } }, required: ["id", "part"] },
      Part: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      Extended: { allOf: [{ $ref: "#/components/schemas/Base" }, { type: "object", properties: { extra: { type: "boolean" } }, required: ["extra"] }] },
      Error: { type: "object", properties: { code: { type: "string" }, details: { type: "object", additionalProperties: {} } }, required: ["code", "details"] },
    },
  },
};

describe("ResponseChecker", () => {
  const checker = new ResponseChecker(doc);
  const ok = { id: "t", part: { n: 1 }, extra: true };

  it("accepts the fields of every part of an allOf, and null where a named schema is nullable", () => {
    expect(checker.problems("GET", "/v1/things/t", 200, ok)).toEqual([]);
    expect(checker.problems("GET", "/v1/things/t", 200, { ...ok, part: null })).toEqual([]);
  });

  it("refuses a field no part names, at the top and nested", () => {
    expect(checker.problems("GET", "/v1/things/t", 200, { ...ok, surprise: 1 })).not.toEqual([]);
    expect(checker.problems("GET", "/v1/things/t", 200, { ...ok, part: { n: 1, m: 2 } })).not.toEqual([]);
  });

  it("leaves a map open, and refuses a status the route does not list", () => {
    expect(checker.problems("GET", "/v1/things/t", 404, { code: "not_found", details: { anything: [1] } })).toEqual([]);
    expect(checker.problems("GET", "/v1/things/t", 409, { code: "x", details: {} })).toEqual([expect.stringContaining("status 409 is not documented")]);
  });

  it("takes the document's own address as served beside it, and no other path outside it", () => {
    expect(checker.problems("GET", "/v1/openapi.json", 200, {})).toEqual([]);
    expect(checker.problems("GET", "/v1/nowhere", 200, {})).not.toEqual([]);
  });
});
