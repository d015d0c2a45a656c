/**
 * `lessor --version` starts fast: under 200 ms where Node itself starts in ~50 ms. The test
 * measures what the CLI adds to a bare `node -e ""`, interleaved so that a busy machine slows both
 * alike (scripts/cli-startup.mjs; `node scripts/cli-startup.mjs` prints the numbers). On a machine
 * so busy that Node alone takes more than 200 ms, the allowance grows with it.
 */
import { expect, it } from "vitest";
import { measureStartup } from "../../scripts/cli-startup.mjs";

it("lessor --version adds less than 100 ms to Node's own start, --help less than 250 ms", () => {
  const { node_ms, cli_ms } = measureStartup([["--version"], ["--help"]], 7) as { node_ms: number; cli_ms: Array<{ line: string; ms: number }> };
  const [version, help] = cli_ms.map((c) => c.ms - node_ms) as [number, number];
  const slowdown = Math.max(1, node_ms / 200);
  expect(version, `--version: ${version.toFixed(0)} ms over node's ${node_ms.toFixed(0)} ms`).toBeLessThan(100 * slowdown);
  expect(help, `--help: ${help.toFixed(0)} ms over node's ${node_ms.toFixed(0)} ms`).toBeLessThan(250 * slowdown);
}, 120_000);
