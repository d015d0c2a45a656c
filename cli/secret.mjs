// @ts-check
/**
 * Reading what must not be an argument: a key, from a prompt that does not echo it (on a
 * terminal) or from stdin's first line (`lessor login < key.txt`, `pass lessor | lessor login`).
 */
import { CliError, EXIT } from "./exit-codes.mjs";

/** @typedef {import("./main.mjs").Io} Io */

/** stdin's first line, without its line ending. @param {NodeJS.ReadStream} stdin */
async function firstLine(stdin) {
  let text = "";
  for await (const chunk of stdin) {
    text += String(chunk);
    if (text.includes("\n")) break;
  }
  return text.split(/\r?\n/)[0]?.trim() ?? "";
}

/**
 * A secret: typed at a prompt on stderr without echo, or stdin's first line when stdin is not a
 * terminal.
 * @param {Io} io
 * @param {string} prompt
 * @returns {Promise<string>}
 */
export async function readSecret(io, prompt) {
  const stdin = io.stdin;
  if (!stdin.isTTY) return firstLine(stdin);
  io.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding("utf8");
  try {
    return await new Promise((resolve, reject) => {
      let typed = "";
      /** @param {string} chunk */
      const onData = (chunk) => {
        for (const ch of chunk) {
          if (ch === "\r" || ch === "\n" || ch === "\u0004") {
            stdin.off("data", onData);
            return resolve(typed.trim());
          }
          if (ch === "\u0003") {
            stdin.off("data", onData);
            return reject(new CliError("interrupted", EXIT.USAGE, { code: "interrupted" }));
          }
          if (ch === "\u007f" || ch === "\b") typed = typed.slice(0, -1);
          else typed += ch;
        }
      };
      stdin.on("data", onData);
    });
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    io.stderr.write("\n");
  }
}

/** A line typed at a prompt on stderr, echoed. @param {Io} io @param {string} prompt */
export async function readLine(io, prompt) {
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: io.stdin, output: /** @type {NodeJS.WritableStream} */ (/** @type {unknown} */ (io.stderr)) });
  try {
    return (await rl.question(prompt)).trim();
  } finally {
    rl.close();
  }
}
