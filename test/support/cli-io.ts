/** An in-memory `Io` for running the CLI's `main` in a unit test: what it wrote, and nothing of the process's. */
import { Readable } from "node:stream";
import type { Io } from "../../cli/main.mjs";

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
