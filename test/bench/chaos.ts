/**
 * `npm run chaos [-- --leases 500 --seed 1 --timeout-s 600 --faults '{"retry_after_s": 0}' --gpu-quota 40 --dump chaos.json
 *   --keep-state --log-level debug --base URL]`
 *
 * Starts lessor the way `npm start` does (test/e2e/server.ts: a free port, a fresh state dir, a
 * cron tick every few seconds, a rate limit out of the way), runs the chaos workload against it
 * (chaos-lib.ts), prints the table of violations and the run's figures, and stops the server.
 * With `--base`, runs against a server that is already up instead (its bootstrap token from
 * LESSOR_BOOTSTRAP_TOKEN or .dev.vars).
 *
 * Exits 0 when every check counts 0, 1 on any violation, 2 when the run could not finish (leases
 * still live at the deadline, or the harness itself failed).
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { bootstrapTokenFromDevVars, removeStateDir, startServer, stopServer, type Server } from "../e2e/server";
import { CHAOS_SERVER_ENV, formatTable, runChaos, violationCount, type ChaosFaults } from "./chaos-lib";

const { values: args } = parseArgs({
  options: {
    leases: { type: "string", default: "500" },
    seed: { type: "string", default: "1" },
    "timeout-s": { type: "string", default: "600" },
    "cron-interval-s": { type: "string", default: "5" },
    base: { type: "string" },
    dump: { type: "string" },
    "keep-state": { type: "boolean", default: false },
    "log-level": { type: "string" },
    faults: { type: "string" },
    "gpu-quota": { type: "string" },
  },
  strict: true,
});

const leases = Number(args.leases);
const seed = Number(args.seed);
const timeoutS = Number(args["timeout-s"]);
const cronIntervalS = Number(args["cron-interval-s"]);
for (const [name, n] of Object.entries({ leases, seed, "timeout-s": timeoutS, "cron-interval-s": cronIntervalS })) {
  if (!Number.isFinite(n) || n < 0 || (name !== "seed" && n <= 0)) {
    console.error(`chaos: --${name} must be a positive number`);
    process.exit(2);
  }
}

const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
let server: Server | null = null;

async function shutdown() {
  if (!server) return;
  const s = server;
  server = null;
  const t = Date.now();
  const { leftovers } = await stopServer(s);
  log(`chaos: server stopped in ${Date.now() - t} ms${leftovers.length ? ` (killed leftovers ${leftovers.join(", ")})` : ""}`);
  if (args["keep-state"]) log(`chaos: state and server log kept in ${s.stateDir}`);
  else removeStateDir(s);
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    log(`chaos: ${signal}; stopping`);
    void shutdown().finally(() => process.exit(130));
  });
}

async function main(): Promise<number> {
  let base = args.base;
  // Read after the server starts: on a fresh checkout `npm start` is what writes .dev.vars.
  let bootstrapToken = base ? (process.env.LESSOR_BOOTSTRAP_TOKEN ?? bootstrapTokenFromDevVars()) : "";
  if (!base) {
    const t = Date.now();
    server = await startServer({
      cronIntervalS,
      env: { ...CHAOS_SERVER_ENV, ...(args["log-level"] ? { LESSOR_LOG_LEVEL: args["log-level"] } : {}) },
    });
    base = server.base;
    bootstrapToken = bootstrapTokenFromDevVars();
    log(`chaos: lessor serving on ${base} after ${Date.now() - t} ms (log: ${server.logFile})`);
  }
  const t0 = Date.now();
  const faults = args.faults ? (JSON.parse(args.faults) as Partial<ChaosFaults>) : undefined;
  const gpuQuota = args["gpu-quota"] === undefined ? undefined : Number(args["gpu-quota"]);
  if (gpuQuota !== undefined && !(Number.isInteger(gpuQuota) && gpuQuota >= 0)) {
    console.error("chaos: --gpu-quota must be a whole number of GPUs");
    return 2;
  }
  const result = await runChaos({ base, bootstrapToken, leases, seed, timeoutS, log, ...(faults ? { faults } : {}), ...(gpuQuota === undefined ? {} : { gpuQuota }) });
  log(`chaos: run took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  console.log(`\n${formatTable(result)}\n`);
  if (args.dump) {
    writeFileSync(args.dump, JSON.stringify(result, null, 1));
    log(`chaos: everything read back written to ${args.dump}`);
  }
  if (!result.finished) return 2;
  return violationCount(result) > 0 ? 1 : 0;
}

let code = 2;
try {
  code = await main();
} catch (e) {
  console.error(`chaos: ${(e as Error).stack ?? e}`);
  if (server) console.error(`--- server log tail ---\n${(server as Server).log().slice(-4000)}`);
  code = 2;
} finally {
  await shutdown();
}
process.exit(code);
