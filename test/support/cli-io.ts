/** An in-memory `Io` for running the CLI's `main` in a unit test: what it wrote, and nothing of the process's. */
import { Readable } from "node:stream";
import { expect } from "vitest";
import { buildProgram, type Io } from "../../cli/main.mjs";

export interface CapturedIo extends Io {
  out(): string;
  err(): string;
}

export function captureIo(options: { env?: Record<string, string | undefined>; stdin?: string; now?: number; tty?: boolean } = {}): CapturedIo {
  let out = "";
  let err = "";
  return {
    stdout: { write: (s: string) => (out += s), isTTY: options.tty ?? false },
    stderr: { write: (s: string) => (err += s), isTTY: false },
    stdin: Readable.from([options.stdin ?? ""]) as unknown as NodeJS.ReadStream,
    env: options.env ?? {},
    now: () => options.now ?? Date.parse("2026-12-01T12:00:00Z"),
    version: "0.0.0-test",
    out: () => out,
    err: () => err,
  };
}

/** Parses `argv` with an `act` that records the one command it runs and its arguments, instead of running it. */
export async function parsed(argv: string[]) {
  const io = captureIo();
  const calls: Array<{ name: string; args: unknown[]; flags: Record<string, unknown> }> = [];
  const program = buildProgram(io, (name) => async (...args: unknown[]) => {
    const command = args[args.length - 1] as { optsWithGlobals(): Record<string, unknown> };
    calls.push({ name, args: args.slice(0, -2), flags: command.optsWithGlobals() });
  });
  await program.parseAsync(argv, { from: "user" });
  expect(calls).toHaveLength(1);
  return calls[0]!;
}
