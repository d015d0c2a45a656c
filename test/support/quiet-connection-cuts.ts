/**
 * vitest globalSetup of the Workers project: keeps out of the run's output the one report workerd
 * makes of a connection the stub clouds cut on purpose, and nothing else.
 *
 * An ambiguous create on a stub cloud may be answered by no answer at all: the machine is made and
 * the connection dropped (test/support/stub-clouds/server.ts, ConnectionCut), which is what lessor
 * must survive. The adapter's fetch rejects, lessor handles it (a `create_ambiguous` event and an
 * adoption by label), and yet workerd also logs "Network connection lost" as an uncaught exception,
 * with two native stacks, every time. @cloudflare/vitest-pool-workers writes workerd's logs to this
 * process's stderr through its own handler (its options cannot be changed from the config), so the
 * filter sits on that stream: a write that is workerd's uncaught-exception report of exactly that
 * error is dropped; every other write, every other workerd report included, passes untouched.
 */
const CUT_REPORT = /^uncaught exception; .*Error: Network connection lost\./;
/** The native stack lines that continue such a report, when they come as writes of their own. */
const CONTINUATION = /^(stack: |exception = kj\/async-io\.c\+\+:\d+: disconnected: stream disconnected prematurely)/;

/**
 * A filter over stderr's writes, line by line (a write may hold several lines, or part of one
 * report): what is left of a write once the lines of a cut's report are taken out.
 */
export function cutReportFilter(): (text: string) => string {
  let inReport = false;
  return (text) =>
    text
      .split(/(?<=\n)/)
      .filter((line) => {
        if (CUT_REPORT.test(line)) return !(inReport = true);
        if (inReport && CONTINUATION.test(line)) return false;
        inReport = false;
        return true;
      })
      .join("");
}

export default function setup(): () => void {
  const write = process.stderr.write;
  const keep = cutReportFilter();
  process.stderr.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
    const text = typeof chunk === "string" ? chunk : chunk instanceof Uint8Array ? Buffer.from(chunk).toString("utf8") : null;
    if (text === null) return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    const kept = keep(text);
    if (kept === "") {
      // A dropped write still completes for its writer.
      const done = rest.find((r): r is () => void => typeof r === "function");
      done?.();
      return true;
    }
    return (write as (...args: unknown[]) => boolean).call(this, kept === text ? chunk : kept, ...rest);
  } as typeof process.stderr.write;
  return () => {
    process.stderr.write = write;
  };
}
