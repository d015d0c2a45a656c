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
    const passes = cutReportFilter();
    for (const line of [...REPORT, ...CONTINUED]) expect(passes(line), line).toBe(false);
    expect(passes(Buffer.from(REPORT[0]!))).toBe(false);
  });

  it("passes every other write: other uncaught exceptions, other errors, and stack lines after anything else", () => {
    const passes = cutReportFilter();
    expect(passes("uncaught exception; source = Uncaught (in promise); stack = Error: something else\n")).toBe(true);
    expect(passes(CONTINUED[0])).toBe(true);
    expect(passes("Error: Network connection lost.\n")).toBe(true);
    expect(passes('{"msg":"create ambiguous"}\n')).toBe(true);
    // A report, then another write: what follows the other write passes again.
    expect(passes(REPORT[0])).toBe(false);
    expect(passes("a test's own line\n")).toBe(true);
    expect(passes(CONTINUED[1])).toBe(true);
  });
});
