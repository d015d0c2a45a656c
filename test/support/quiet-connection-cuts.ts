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

/** A filter over stderr's writes: false drops the write. */
export function cutReportFilter(): (chunk: unknown) => boolean {
  let inReport = false;
  return (chunk) => {
    const text = typeof chunk === "string" ? chunk : Buffer.isBuffer(chunk) ? chunk.toString("utf8") : null;
    if (text !== null && CUT_REPORT.test(text)) return !(inReport = true);
    if (inReport && text !== null && CONTINUATION.test(text)) return false;
    inReport = false;
    return true;
  };
}

export default function setup(): () => void {
  const write = process.stderr.write;
  const passes = cutReportFilter();
  process.stderr.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
    if (!passes(chunk)) {
      // A dropped write still completes for its writer.
      const done = rest.find((r): r is () => void => typeof r === "function");
      done?.();
      return true;
    }
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof process.stderr.write;
  return () => {
    process.stderr.write = write;
  };
}
