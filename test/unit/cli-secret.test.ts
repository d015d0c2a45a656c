/** Reading a key: a prompt that never echoes what is typed, or stdin's first line. */
import { EventEmitter } from "node:events";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { readSecret } from "../../cli/secret.mjs";
import { captureIo } from "../support/cli-io";

/** A terminal on stdin that types `keys` once the prompt is up. */
function terminal(keys: string) {
  const tty = Object.assign(new EventEmitter(), {
    isTTY: true,
    raw: [] as boolean[],
    setRawMode(on: boolean) {
      tty.raw.push(on);
      return tty;
    },
    resume: () => setImmediate(() => tty.emit("data", keys)),
    pause: () => tty,
    setEncoding: () => tty,
  });
  return tty;
}

describe("readSecret", () => {
  it("on a terminal: raw mode, no echo, backspace works, ends at Enter, raw mode off again", async () => {
    const io = captureIo();
    const tty = terminal("lsr_ab\u007fc\rignored");
    io.stdin = tty as unknown as NodeJS.ReadStream;
    expect(await readSecret(io, "key: ")).toBe("lsr_ac");
    expect(io.err()).toBe("key: \n");
    expect(io.out()).toBe("");
    expect(tty.raw).toEqual([true, false]);
  });

  it("Ctrl-C at the prompt stops, leaving the terminal as it was", async () => {
    const io = captureIo();
    const tty = terminal("lsr_\u0003");
    io.stdin = tty as unknown as NodeJS.ReadStream;
    await expect(readSecret(io, "key: ")).rejects.toThrow("interrupted");
    expect(tty.raw).toEqual([true, false]);
  });

  it("from a pipe: the first line, trimmed, whatever follows it", async () => {
    const io = captureIo();
    io.stdin = Readable.from(["lsr_x", "yz\r\nsecond line\n"]) as unknown as NodeJS.ReadStream;
    expect(await readSecret(io, "key: ")).toBe("lsr_xyz");
    expect(io.err()).toBe("");
    const empty = captureIo({ stdin: "" });
    expect(await readSecret(empty, "key: ")).toBe("");
  });
});
