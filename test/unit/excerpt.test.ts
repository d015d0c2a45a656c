/**
 * Excerpts (src/lease/excerpt.ts): every text from outside lessor that an event keeps is bounded in
 * lines and in bytes, whole characters only, from the end it keeps; and the runner's failures are
 * bounded too (retry.ts `failureOf`).
 */
import { describe, expect, it } from "vitest";
import { excerpt, EXCERPTS, type ExcerptBound } from "../../src/lease/excerpt";
import { failureOf } from "../../src/lease/retry";
import { ProviderError } from "../../src/providers/contract";

const bytes = (s: string) => new TextEncoder().encode(s).byteLength;
const tail: ExcerptBound = { keep: "end", lines: 3, bytes: 10 };
const head: ExcerptBound = { keep: "start", lines: 3, bytes: 10 };

describe("excerpt", () => {
  it.each([
    { name: "short text is kept whole", text: "a\nb\n", bound: tail, want: "a\nb\n", cut: false },
    { name: "the last lines, the final newline kept", text: "1\n2\n3\n4\n", bound: tail, want: "2\n3\n4\n", cut: true },
    { name: "the first lines", text: "1\n2\n3\n4\n", bound: head, want: "1\n2\n3\n", cut: true },
    { name: "one long line: its last bytes", text: "abcdefghijklmnop", bound: tail, want: "ghijklmnop", cut: true },
    { name: "one long line: its first bytes", text: "abcdefghijklmnop", bound: head, want: "abcdefghij", cut: true },
    { name: "a character is never split at the start of a tail (é is 2 bytes)", text: "ééééééé", bound: tail, want: "ééééé", cut: true },
    { name: "a character is never split at the end of a head (€ is 3 bytes)", text: "€€€€€", bound: head, want: "€€€", cut: true },
    { name: "carriage returns are not line ends: a progress bar is one line", text: "\r10%\r20%\r30%\r40%", bound: tail, want: "0%\r30%\r40%", cut: true },
    { name: "lines first, then bytes", text: "xxxxxxxxxx\nyyyy\nzzzz\n", bound: tail, want: "yyyy\nzzzz\n", cut: true },
  ])("$name", ({ text, bound, want, cut }) => {
    expect(excerpt(text, bound)).toEqual({ text: want, cut });
    expect(bytes(excerpt(text, bound).text)).toBeLessThanOrEqual(bound.bytes);
  });

  it("every excerpt the engine keeps is bounded in bytes well inside one SQLite row", () => {
    for (const [name, bound] of Object.entries(EXCERPTS)) {
      expect(bound.bytes, name).toBeLessThanOrEqual(8 * 1024);
      expect(bound.lines, name).toBeGreaterThan(0);
    }
    // A 16 MiB line without a newline, as a model server's progress bar leaves it.
    const log = "\r[####----] 50%".repeat(1_200_000);
    const kept = excerpt(log, EXCERPTS.server_log);
    expect(bytes(kept.text)).toBeLessThanOrEqual(EXCERPTS.server_log.bytes);
    expect(kept.cut).toBe(true);
    expect(log.endsWith(kept.text)).toBe(true);
  });
});

describe("failureOf: a step's error is bounded before an event keeps it", () => {
  it("a provider's huge message keeps its first bytes", () => {
    const huge = "x".repeat(5_000_000);
    const f = failureOf(new ProviderError("sim", "unavailable", huge));
    expect(bytes(f.text)).toBeLessThanOrEqual(EXCERPTS.error.bytes);
    expect(bytes(f.message)).toBeLessThanOrEqual(EXCERPTS.error.bytes);
    expect(f.text.startsWith("sim unavailable: xxx")).toBe(true);
    expect(f.kind).toBe("unavailable");
  });
  it("a short one is unchanged", () => {
    expect(failureOf(new Error("boom"))).toMatchObject({ kind: "ambiguous", text: "boom", message: "boom" });
  });
});
