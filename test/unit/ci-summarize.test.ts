/** .ci/run fails a run in which any test was skipped (docs/design.md "Operating rules"), through .ci/summarize.mjs. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const dir = mkdtempSync(path.join(tmpdir(), "lessor-ci-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function summarize(report: unknown) {
  const file = path.join(dir, `r${Math.random()}.json`);
  writeFileSync(file, JSON.stringify(report));
  const r = spawnSync(process.execPath, [path.join(root, ".ci", "summarize.mjs"), file], { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const test = (fullName: string, status: string) => ({ fullName, status });

describe(".ci/summarize.mjs", () => {
  it("passes a run in which every test ran, with the plain closing line", () => {
    const r = summarize({ numPassedTests: 2, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0, testResults: [{ name: "a.test.ts", assertionResults: [test("a", "passed"), test("b", "passed")] }] });
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe("tests: 2 passed, 0 failed, 0 skipped");
  });

  it("fails a run with one skipped or todo test, and names it", () => {
    const r = summarize({ numPassedTests: 1, numFailedTests: 0, numPendingTests: 1, numTodoTests: 0, testResults: [{ name: "p.test.ts", assertionResults: [test("runs", "passed"), test("checks RunPod", "skipped")] }] });
    expect(r.status).toBe(1);
    expect(r.stdout.trim()).toBe("tests: 1 passed, 0 failed, 1 skipped");
    expect(r.stderr).toContain("p.test.ts: checks RunPod");
    expect(summarize({ numPassedTests: 0, numFailedTests: 0, numPendingTests: 0, numTodoTests: 1, testResults: [] }).status).toBe(1);
  });
});
