#!/usr/bin/env node
/**
 * Reads vitest's JSON report and prints the plain closing line `tests: N passed, N failed, N
 * skipped`. Exits 1 when any test was skipped: CI always has ../shared, so a skip there is a test
 * that did not run (docs/design.md "Operating rules"); the skipped tests are listed first.
 */
import { readFileSync } from "node:fs";

const report = JSON.parse(readFileSync(process.argv[2], "utf8"));
const skipped = [];
for (const file of report.testResults ?? []) {
  for (const t of file.assertionResults ?? []) {
    if (t.status === "pending" || t.status === "skipped" || t.status === "todo") skipped.push(`${file.name}: ${t.fullName}`);
  }
}
const count = Math.max(skipped.length, (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0));
if (count > 0) {
  console.error(`ci: ${count} test(s) skipped; in CI every test must run:`);
  for (const s of skipped.slice(0, 50)) console.error(`  ${s}`);
  if (skipped.length > 50) console.error(`  ... and ${skipped.length - 50} more`);
}
console.log(`tests: ${report.numPassedTests ?? 0} passed, ${report.numFailedTests ?? 0} failed, ${count} skipped`);
process.exit(count > 0 ? 1 : 0);
