import { describe, expect, it } from "vitest";
import { hexEquals, secretEquals } from "../../src/ids";

describe("hexEquals", () => {
  it("compares hex digests by every character", () => {
    const a = "a".repeat(64);
    expect(hexEquals(a, a)).toBe(true);
    expect(hexEquals(a, `${"a".repeat(63)}b`)).toBe(false);
    expect(hexEquals(a, `b${"a".repeat(63)}`)).toBe(false);
    expect(hexEquals(a, "a".repeat(63))).toBe(false);
  });

  it("backs secretEquals", async () => {
    expect(await secretEquals("s3cret", "s3cret")).toBe(true);
    expect(await secretEquals("s3cret", "s3creT")).toBe(false);
  });
});
