/** The stderr filter of the Workers project (test/support/quiet-connection-cuts.ts) drops only workerd's report of a cut connection. */
import { describe, expect, it } from "vitest";
import { cutReportFilter } from "../support/quiet-connection-cuts";

const REPORT = [
  "uncaught exception; source = Uncaught (in promise); stack = Error: Network connection lost.\n",
  "uncaught exception; exception = workerd/jsg/value.h:1480: disconnected: jsg.Error: Network connection lost.\nstack: /bin/workerd@2f20430\n",
];
const CONTINUED = ["stack: /bin/workerd@2f20430 /bin/workerd@2f2102c\n", "exception = kj/async-io.c++:60: disconnected: stream disconnected prematurely\n"];

describe("the connection-cut report filter", () => {
  it("drops workerd's report of a lost connection, and the stack lines that continue it", () => {
    const keep = cutReportFilter();
    for (const line of [...REPORT, ...CONTINUED]) expect(keep(line), line).toBe("");
    // Several lines in one write: only the report's are taken out.
    expect(keep(`before\n${REPORT.join("")}${CONTINUED.join("")}after\n`)).toBe("before\nafter\n");
  });

  it("passes every other write: other uncaught exceptions, other errors, and stack lines after anything else", () => {
    const keep = cutReportFilter();
    const other = ["uncaught exception; source = Uncaught (in promise); stack = Error: something else\n", CONTINUED[0]!, "Error: Network connection lost.\n", '{"msg":"create ambiguous"}\n'];
    for (const line of other) expect(keep(line), line).toBe(line);
    // A report, then another line: the stack lines after that line pass again.
    expect(keep(REPORT[0]!)).toBe("");
    expect(keep("a test's own line\n")).toBe("a test's own line\n");
    expect(keep(CONTINUED[1]!)).toBe(CONTINUED[1]);
  });
});
