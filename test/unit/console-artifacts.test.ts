/** The console's words for a lease's outputs (console/src/artifacts.ts, docs/console.md). */
import { describe, expect, it } from "vitest";
import { artifactUrl, downloadName, outputsText } from "../../console/src/artifacts";

const base = { seq: 7, at: "2026-12-06T00:00:00Z", from: null, to: null, reason: null } as const;

describe("outputsText", () => {
  it("says how many files and bytes came back", () => {
    expect(outputsText({ ...base, type: "outputs_uploaded", detail: { files: 2, bytes: 9 * 1024 * 1024 + 2048 } })).toBe("2 files, 9.0 MiB uploaded");
    expect(outputsText({ ...base, type: "outputs_uploaded", detail: { files: 1, bytes: 10 } })).toBe("1 file, 10 B uploaded");
  });

  it("names the first missing paths and counts the rest", () => {
    const detail = { missing: ["a.bin", "b.bin", "c.bin", "d.bin"], missing_count: 40, files: 50, bytes: 5 * 1024 ** 3 };
    expect(outputsText({ ...base, type: "outputs_incomplete", detail })).toBe("40 of 50 files (5.0 GiB) not uploaded: a.bin, b.bin, c.bin, and 37 more");
    expect(outputsText({ ...base, type: "outputs_incomplete", detail: { missing: ["x"], missing_count: 1, files: 1, bytes: 3 } })).toBe("1 of 1 file (3 B) not uploaded: x");
  });

  it("is null for every other event", () => {
    expect(outputsText({ ...base, type: "exited", detail: { code: 0, signal: null } } as never)).toBeNull();
  });
});

describe("downloads", () => {
  it("encodes each segment of the path and keeps the slashes; saves under the last segment", () => {
    expect(artifactUrl("ls_1", "ckpt/model 1.bin")).toBe("/v1/leases/ls_1/artifacts/ckpt/model%201.bin");
    expect(artifactUrl("ls_1", "a#b/c?d")).toBe("/v1/leases/ls_1/artifacts/a%23b/c%3Fd");
    expect(downloadName("ckpt/model.bin")).toBe("model.bin");
    expect(downloadName("top.txt")).toBe("top.txt");
  });
});
