/**
 * How long `lessor` takes to start, hyperfine-style: each command line run `--runs` times (default
 * 15), interleaved with a bare `node -e ""` so that a busy machine slows both alike; prints the
 * medians and what the CLI adds to Node's own start. `node scripts/cli-startup.mjs [--runs N]`.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "cli", "bin", "lessor.mjs");

/** Milliseconds to run `node ...args` to its end. */
function timeRun(args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: "ignore", env: { ...process.env, NO_COLOR: "1" } });
  if (r.status !== 0) throw new Error(`node ${args.join(" ")} exited ${r.status}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Medians of `lessor ...line` for each line and of a bare Node, in milliseconds. */
export function measureStartup(lines, runs = 15) {
  const node = [];
  const cli = lines.map(() => []);
  for (let i = 0; i < runs; i++) {
    node.push(timeRun(["-e", ""]));
    lines.forEach((line, j) => cli[j].push(timeRun([BIN, ...line])));
  }
  return { node_ms: median(node), cli_ms: lines.map((line, j) => ({ line: line.join(" "), ms: median(cli[j]) })) };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf("--runs");
  const runs = i > 0 ? Number(process.argv[i + 1]) : 15;
  const result = measureStartup([["--version"], ["--help"], ["help", "exit-codes"]], runs);
  console.log(`node -e "": ${result.node_ms.toFixed(1)} ms (median of ${runs})`);
  for (const { line, ms } of result.cli_ms) console.log(`lessor ${line}: ${ms.toFixed(1)} ms, ${(ms - result.node_ms).toFixed(1)} ms over Node`);
}
