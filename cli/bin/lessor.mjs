#!/usr/bin/env node
// @ts-check
/**
 * `lessor`: the command line of lessor (docs/cli.md). Plain ESM for Node 20, no
 * build step; `--version` answers without loading anything else.
 */
import { readFileSync } from "node:fs";

const argv = process.argv.slice(2);
const version = /** @type {{ version: string }} */ (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"))).version;

if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  process.stdout.write(`${version}\n`);
} else {
  const { main } = await import("../main.mjs");
  /** Ctrl-C goes to the running command's handler while it has one (`run` detaches), else ends the CLI. */
  const onInterrupt = (/** @type {() => void} */ handler) => {
    process.on("SIGINT", handler);
    return () => void process.off("SIGINT", handler);
  };
  process.exitCode = await main(argv, { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, now: Date.now, version, onInterrupt });
}
