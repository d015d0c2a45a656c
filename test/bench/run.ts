/**
 * `npm run bench`: every benchmark in one run, on this machine, one table at the end and
 * bench/results.json beside it. Not part of `npm test`: targets are for benchmarks, never for
 * timed assertions in tests.
 */
import { benchData, dataRows } from "./data";
import { benchRecovery, recoveryRows } from "./recovery";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { repoRoot, startServer, stopServer, removeStateDir, type Server } from "../e2e/server";
import { benchReap, benchThroughput, client, request, tick, type Client } from "./http";
import { benchSelection, median } from "./in-process";
import { benchScale, SCALE_TARGETS, scaleRows } from "./scale";
import { benchIngress, ingressRows } from "./ingress";
import { benchCost, costRows } from "./cost";
import { benchGateway, gatewayMet, gatewayRows, GATEWAY_RATIO_TARGET } from "./gateway";
import { benchFirstRequest, firstRequestRows } from "./first-request";
import { benchConsole, consoleMet, consoleRows } from "./console";
import { benchOccupant, FOLLOW_P99_TARGET_MS, followMet, occupantRows } from "./occupant";
import { benchEvents, benchWebhooksAlone, eventsRows, FAN_OUT_P99_TARGET_MS, fanOutMet, WEBHOOK_RATE_TARGET, webhookRows, webhooksMet } from "./events";
// @ts-ignore plain JavaScript module, typed by JSDoc
import { measureStartup } from "../../scripts/cli-startup.mjs";

const TARGETS = {
  reap_alarm_p99_ms: 100,
  lease_read_ratio: 0.5,
  leases_ratio: 0.4,
  org_ratio: 0.5,
  quote_ratio: 0.4,
  selection_median_ms: 20,
  cli_version_ms: 200,
};
const LEASES = Number(process.env.BENCH_LEASES ?? 300);
const CRON_PERIOD_MS = 60_000;

async function withServer<T>(env: Record<string, string>, run: (s: Server) => Promise<T>): Promise<T> {
  const server = await startServer({ env, cronIntervalS: 100_000 });
  try {
    return await run(server);
  } catch (err) {
    // The server's log goes with its state dir: what it said last is shown first.
    console.error(server.log().split("\n").filter((l) => !/^\[wrangler:info\] (GET|POST|PUT) /.test(l)).slice(-40).join("\n"));
    throw err;
  } finally {
    await stopServer(server);
    removeStateDir(server);
  }
}

const log = (msg: string) => console.log(`bench: ${msg}`);
// BENCH_PROVIDERS overrides wrangler.toml's LESSOR_PROVIDERS, e.g. `sim` alone.
// The benches measure capacity, not the caps: 1,000 followers of one org's stream and 100 of one
// lease's log with one key, and an agent posting its log as fast as it can (docs/api.md "Rate limits").
const BASE_ENV = {
  LESSOR_RATE_LIMIT_PER_MINUTE: "100000000",
  LESSOR_ORG_RATE_LIMIT_PER_MINUTE: "100000000",
  // One org makes every quote and lease of the run (tens of thousands of quotes in the throughput
  // runs): the per-org caps are lifted like the rate limits. Each quote still counts the org's
  // quotes of the last 24 hours in its org's object, as it does under the default cap.
  LESSOR_QUOTES_PER_DAY: "100000000",
  LESSOR_LEASES_PER_DAY: "100000000",
  LESSOR_INGRESS_EVENTS_PER_DAY: "100000000",
  LESSOR_GATEWAY_RATE_LIMIT_PER_MINUTE: "100000000",
  LESSOR_STREAMS_PER_CREDENTIAL: "100000",
  LESSOR_STREAMS_PER_ORG: "100000",
  LESSOR_AGENT_RATE_LIMIT_PER_MINUTE: "100000000",
  LESSOR_AGENT_LOG_BYTES_PER_MINUTE: "100000000000",
  LESSOR_SIM_OFFERS: "10000",
  // The webhook figure sends every event to 10 endpoints of one org as fast as the queue goes
  // (test/bench/events.ts): the fan-out cap and the org's delivery budget are lifted likewise.
  LESSOR_WEBHOOK_FANOUT: "10",
  LESSOR_WEBHOOK_DELIVERIES_PER_MINUTE: "100000000",
  ...(process.env.BENCH_PROVIDERS ? { LESSOR_PROVIDERS: process.env.BENCH_PROVIDERS } : {}),
};

function printTable(rows: string[][]) {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const [i, r] of rows.entries()) {
    console.log(r.map((cell, j) => cell.padEnd(widths[j]!)).join("  "));
    if (i === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
  }
}
const HEADER = ["benchmark", "measure", "figure", "target", "met"];

/**
 * `npm run bench -- --only=throughput [--repeat=N] [--routes=org,lease,leases,quote,quote-wide] [--leases=N]`:
 * only the API throughput, N times against one server, each figure the median across the runs;
 * `--only=occupant`: only the log ingest and follow figures, against one server; `--only=events`:
 * only the org event stream's fan-out and the webhook deliveries, against one server;
 * `--only=webhooks`: only the webhook deliveries (10 endpoints of one org), against one server;
 * `--only=ingress`: only how soon a vanished machine reaches its lease, through ingress and by the
 * cron alone, on two servers; `--only=cost`: only what a typical lease and a job cost the control
 * plane, against one server; `--only=gateway`: only a deployment's gateway beside its model
 * server reached directly, against one server; `--only=first`: the bundle's size and the first
 * request on a fresh isolate, against a `wrangler dev` of its own; `--only=console`: the console's
 * 1,000-lease table in Chromium, against one server; `--only=reap`: the two reap latencies with
 * alarms (deadlines among the creates, then after them), against one server; `--only=data`: a
 * 64 MiB file up through the agent routes in parts and down again, MB/s and the cost per GB
 * moved (test/bench/data.ts), against one server; `--only=recovery`: a spot job's machine taken
 * back and the job back on a new one, loss-to-resumed latency (test/bench/recovery.ts), against
 * one server; `--only=scale`: 100,000 leases in 100 orgs, in this process's own workerd (Miniflare):
 * the list, the quote and a lease's write-through at that size, the cron backstop over every org,
 * an org's object starting (test/bench/scale.ts), no server. Each leaves bench/results.json alone.
 */
const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]));
/** One part alone, against one server: its table and its figures, and bench/results.json left alone. */
async function runOnly<T>(name: string, run: (server: Server, c: Client, log: (msg: string) => void) => Promise<T>, rows: (result: T) => string[][], env: Record<string, string> = BASE_ENV) {
  const result = await withServer(env, async (server) => run(server, await client(server), log));
  console.log(`\n${name}\n`);
  printTable([HEADER, ...rows(result)]);
  console.log(`\n${JSON.stringify(result, null, 2)}`);
  process.exit(0);
}
const ONLY = ["throughput", "occupant", "events", "webhooks", "ingress", "cost", "gateway", "first", "console", "reap", "data", "recovery", "scale"];
if (args.has("only") && !ONLY.includes(args.get("only")!)) throw new Error(`--only: only ${ONLY.map((k) => `"${k}"`).join(", ")} are known`);
if (args.get("only") === "occupant") await runOnly("occupant", benchOccupant, occupantRows);
if (args.get("only") === "events") await runOnly("events", benchEvents, eventsRows);
// The sim's default catalogue, not 10,000 offers: the leases are only the events' source, and their
// quotes over 10,000 offers would take the one workerd thread the queue shares with them.
const { LESSOR_SIM_OFFERS: _offers, ...WEBHOOKS_ENV } = BASE_ENV;
if (args.get("only") === "webhooks") await runOnly("webhooks", benchWebhooksAlone, webhookRows, WEBHOOKS_ENV);
if (args.get("only") === "cost") await runOnly("cost", benchCost, costRows);
if (args.get("only") === "data") await runOnly("data", benchData, dataRows);
if (args.get("only") === "recovery") await runOnly("recovery", benchRecovery, recoveryRows);
if (args.get("only") === "gateway") await runOnly("gateway", benchGateway, gatewayRows);
if (args.get("only") === "console") await runOnly("console", benchConsole, consoleRows);
if (args.get("only") === "first") {
  const result = await benchFirstRequest(log);
  console.log(`\nfirst request\n`);
  printTable([HEADER, ...firstRequestRows(result)]);
  console.log(`\n${JSON.stringify(result, null, 2)}`);
  process.exit(0);
}
if (args.get("only") === "scale") {
  const result = await benchScale(log);
  console.log(`\nscale, ${result.date}\n`);
  printTable([HEADER, ...scaleRows(result)]);
  console.log(`\n${JSON.stringify(result, null, 2)}`);
  process.exit(0);
}
if (args.get("only") === "reap") {
  const result = await withServer(BASE_ENV, async (server) => {
    const c = await client(server);
    await tick(server);
    const whileCreating = await benchReap(server, c, { leases: LEASES, offsetS: 0, timeoutS: 120 });
    const afterCreating = await benchReap(server, c, { leases: LEASES, offsetS: 22, afterCreates: true, timeoutS: 150 });
    return { alarms_while_creating: whileCreating, alarms_after_creating: afterCreating };
  });
  console.log(`\nreap\n`);
  console.log(JSON.stringify(result, null, 2));
  process.exit(0);
}
if (args.get("only") === "ingress") {
  const result = await benchIngress(log);
  console.log(`\ningress\n`);
  printTable([HEADER, ...ingressRows(result)]);
  console.log(`\n${JSON.stringify(result, null, 2)}`);
  process.exit(0);
}
if (args.get("only") === "throughput") {
  const repeat = Number(args.get("repeat") ?? 1);
  const routes = args.get("routes")?.split(",");
  const runs = await withServer(BASE_ENV, async (server) => {
    const c = await client(server);
    await tick(server);
    // `--leases=N`: the org holds N leases, as after the full run's reap (600), so the list's page is full.
    const seed = Number(args.get("leases") ?? 0);
    for (let i = 0; i < seed; i += 16) {
      await Promise.all(
        Array.from({ length: Math.min(16, seed - i) }, () => request(c, "POST", "/v1/leases", { kind: "scratch", spec: { gpu: "l4:1" }, policy: { ttl: "1m" } })),
      );
    }
    if (seed > 0) log(`throughput: the org holds ${seed} more leases`);
    const out = [];
    for (let i = 0; i < repeat; i++) {
      log(`throughput, run ${i + 1} of ${repeat}`);
      out.push(await benchThroughput(c, 10, routes));
    }
    return out;
  });
  console.log(`\nthroughput, median of ${repeat} run(s) of 10 s, 32 connections\n`);
  for (const [i, first] of runs[0]!.entries()) {
    const m = (pick: (r: (typeof runs)[number][number]) => number) => median(runs.map((run) => pick(run[i]!)));
    const each = runs.map((run) => run[i]!.rps.toFixed(0)).join(" ");
    console.log(`${first.route.padEnd(52)} ${m((r) => r.rps).toFixed(0).padStart(5)} req/s, p50 ${m((r) => r.p50_ms)} ms, p99 ${m((r) => r.p99_ms)} ms, x floor ${m((r) => r.ratio_to_floor).toFixed(2)}, non-2xx ${m((r) => r.non2xx)}  (runs: ${each})`);
  }
  process.exit(0);
}

// First, while nothing else has run: a fresh isolate's first answer.
const firstRequest = await benchFirstRequest(log);

log("selection over 100,000 offers (in process)");
const selection = benchSelection();
log("scale: 100,000 leases in 100 orgs (in process, Miniflare)");
const scale = await benchScale(log);
log("cli startup");
const cliStartup = measureStartup([["--version"], ["--help"]], 15) as { node_ms: number; cli_ms: Array<{ line: string; ms: number }> };
const cliVersionMs = cliStartup.cli_ms[0]!.ms;

log(`reap latency with alarms: ${LEASES} leases; then API throughput`);
const { reapAlarm, reapAlarmQuiet, throughput } = await withServer(BASE_ENV, async (server) => {
  const c = await client(server);
  await tick(server); // the offer cache at 10,000 offers
  const reapAlarm = await benchReap(server, c, { leases: LEASES, offsetS: 0, timeoutS: 120 });
  // The same load, counting only the deadlines after the last create was answered: the creates'
  // own traffic shares the workerd thread with the first deadlines above, and this separates the
  // two. 300 creates took 17 s here on 2026-12-02, so deadlines 25 to 37 s after each create.
  const reapAlarmQuiet = await benchReap(server, c, { leases: LEASES, offsetS: 22, afterCreates: true, timeoutS: 150 });
  const throughput = await benchThroughput(c);
  return { reapAlarm, reapAlarmQuiet, throughput };
});

log("occupant: log ingest and follow");
const occupant = await withServer(BASE_ENV, async (server) => benchOccupant(server, await client(server), log));

log("events: org stream fan-out and webhook deliveries");
const events = await withServer(BASE_ENV, async (server) => benchEvents(server, await client(server), log));

const ingress = await benchIngress(log);

log("cost: what a lease and a job cost the control plane");
const cost = await withServer(BASE_ENV, async (server) => benchCost(server, await client(server), log));

log("data: a bundle and outputs through the agent routes, up and down");
const data = await withServer(BASE_ENV, async (server) => benchData(server, await client(server), log));

log("recovery: a spot job's machine taken back, and the job back on a new one");
const recovery = await withServer(BASE_ENV, async (server) => benchRecovery(server, await client(server), log));

log("gateway: a deployment's gateway beside its model server reached directly");
const gateway = await withServer(BASE_ENV, async (server) => benchGateway(server, await client(server), log));

log("console: the Leases view with 1,000 leases, in Chromium");
const consoleRender = await withServer(BASE_ENV, async (server) => benchConsole(server, await client(server), log));

log(`reap latency with alarms off (cron backstop every 60 s): ${LEASES} leases`);
// The default market here: the offer count matters to quotes, not to reaping.
const reapCron = await withServer({ LESSOR_RATE_LIMIT_PER_MINUTE: BASE_ENV.LESSOR_RATE_LIMIT_PER_MINUTE, LESSOR_ORG_RATE_LIMIT_PER_MINUTE: BASE_ENV.LESSOR_ORG_RATE_LIMIT_PER_MINUTE, LESSOR_DEV_DISABLE_ALARMS: "1" }, async (server) => {
  const c = await client(server);
  await tick(server);
  return benchReap(server, c, {
    leases: LEASES,
    // Deadlines 45 to 57 s after creation: time for the setup ticks below to bring every lease
    // up, since without alarms only the cron moves a lease along.
    offsetS: 42,
    timeoutS: 240,
    setup: async () => {
      const until = Date.now() + 30_000;
      while (Date.now() < until) {
        await tick(server);
        await new Promise((r) => setTimeout(r, 1_000));
      }
    },
    drive: async (done) => {
      // The real trigger's cadence: every 60 s, from an arbitrary phase. Waits in short steps so
      // it ends as soon as every lease is released.
      let next = Date.now() + CRON_PERIOD_MS;
      while (!done()) {
        if (Date.now() >= next) {
          await tick(server);
          next += CRON_PERIOD_MS;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  });
});

const leaseRead = throughput.find((r) => r.route.startsWith("GET /v1/leases/:id"))!;
const quote = throughput.find((r) => r.route.includes("h100:8"))!;
const leases = throughput.find((r) => r.route === "GET /v1/leases")!;
const org = throughput.find((r) => r.route.startsWith("GET /v1/org"))!;
/** A throughput row's target and whether it was met, where it has one. */
const throughputTarget = (r: (typeof throughput)[number]): [string, string] => {
  const t = r === leaseRead ? "lease_read_ratio" : r === quote ? "quote_ratio" : r === leases ? "leases_ratio" : r === org ? "org_ratio" : null;
  return t ? [`>= ${TARGETS[t]}`, String(results.targets[t].met)] : ["-", "-"];
};
const worstSelection = Math.max(...selection.specs.map((s) => s.median_ms));
const machine = { cpu: os.cpus()[0]?.model ?? "unknown", cores: os.cpus().length, memory_gb: Math.round(os.totalmem() / 2 ** 30), node: process.version, platform: `${os.platform()} ${os.release()}` };
const results = {
  date: new Date().toISOString(),
  machine,
  reap: {
    alarms_while_creating: reapAlarm,
    alarms_after_creating: reapAlarmQuiet,
    cron_only: reapCron,
    ratio_p50: reapCron.p50_ms / Math.max(1, reapAlarm.p50_ms),
  },
  throughput,
  selection,
  scale,
  ingress,
  cli_startup: cliStartup,
  occupant,
  events,
  cost,
  data,
  recovery,
  gateway,
  console: consoleRender,
  first_request: firstRequest,
  targets: {
    reap_alarm_p99_ms: {
      target: `<= ${TARGETS.reap_alarm_p99_ms}`,
      measured: { while_creating: reapAlarm.p99_ms, after_creating: reapAlarmQuiet.p99_ms },
      met: reapAlarm.p99_ms <= TARGETS.reap_alarm_p99_ms,
      met_after_creating: reapAlarmQuiet.p99_ms <= TARGETS.reap_alarm_p99_ms,
    },
    lease_read_ratio: { target: `>= ${TARGETS.lease_read_ratio}`, measured: leaseRead.ratio_to_floor, met: leaseRead.ratio_to_floor >= TARGETS.lease_read_ratio },
    leases_ratio: { target: `>= ${TARGETS.leases_ratio}`, measured: leases.ratio_to_floor, met: leases.ratio_to_floor >= TARGETS.leases_ratio },
    org_ratio: { target: `>= ${TARGETS.org_ratio}`, measured: org.ratio_to_floor, met: org.ratio_to_floor >= TARGETS.org_ratio },
    quote_ratio: { target: `>= ${TARGETS.quote_ratio}`, measured: quote.ratio_to_floor, met: quote.ratio_to_floor >= TARGETS.quote_ratio },
    selection_median_ms: { target: `< ${TARGETS.selection_median_ms}`, measured: worstSelection, met: worstSelection < TARGETS.selection_median_ms },
    scale_total_ms: { target: `< ${SCALE_TARGETS.total_ms}`, measured: scale.total_ms, met: scale.targets.total_met },
    scale_list_ratio: { target: `<= ${SCALE_TARGETS.list_ratio} x a small org's`, measured: Object.values(scale.list)[0]!.ratio, met: scale.targets.list_met },
    cli_version_ms: { target: `< ${TARGETS.cli_version_ms}`, measured: cliVersionMs, met: cliVersionMs < TARGETS.cli_version_ms },
    follow_p99_ms: { target: `< ${FOLLOW_P99_TARGET_MS}`, measured: occupant.follow.p99_ms, met: followMet(occupant.follow) },
    event_fan_out_p99_ms: { target: `< ${FAN_OUT_P99_TARGET_MS}, none lost`, measured: { p99_ms: events.fan_out.p99_ms, lost: events.fan_out.lost }, met: fanOutMet(events.fan_out) },
    control_plane_share: { target: "< 0.1% of the GPU time it manages", measured: cost.share_of_gpu_time, met: cost.targets.share_met },
    provider_calls_typical_lease: { target: "<= 20", measured: cost.typical.projected.provider_calls, met: cost.targets.provider_calls_met },
    console_render_ms: { target: "< 200 ms for 1,000 leases", measured: consoleRender.median_ms, met: consoleMet(consoleRender) },
    gateway_throughput_ratio: { target: `>= ${GATEWAY_RATIO_TARGET} of direct`, measured: gateway.throughput_ratio, met: gatewayMet(gateway) },
    bundle_gzip_bytes: { target: "<= 200 KB", measured: firstRequest.bundle.gzip_bytes, met: firstRequest.bundle.gzip_bytes <= 200_000 },
    webhooks_complete: {
      target: `>= ${WEBHOOK_RATE_TARGET} deliveries/s to ${events.webhooks.endpoints} endpoints of one org, all verified, none lost or twice`,
      measured: { per_s: events.webhooks.per_s, lost: events.webhooks.lost, duplicates: events.webhooks.duplicates, unverified: events.webhooks.received - events.webhooks.verified },
      met: webhooksMet(events.webhooks),
    },
  },
};
mkdirSync(path.join(repoRoot, "bench"), { recursive: true });
writeFileSync(path.join(repoRoot, "bench", "results.json"), JSON.stringify(results, null, 2) + "\n");

const f = (x: number, d = 1) => x.toFixed(d);
const rows: string[][] = [
  HEADER,
  [`${LEASES} creates (reap, while creating)`, "wall ms, workerd CPU ms per create, resent after the dev proxy lost them", `${f(reapAlarm.creates_ms, 0)}, ${f(reapAlarm.cpu_ms_per_create, 1)}, ${reapAlarm.dev_proxy_resends}`, "-", "-"],
  ["reap, alarms, deadlines while creating", "p50 / p99 / max ms", `${f(reapAlarm.p50_ms, 0)} / ${f(reapAlarm.p99_ms, 0)} / ${f(reapAlarm.max_ms, 0)}`, `p99 <= ${TARGETS.reap_alarm_p99_ms}`, String(results.targets.reap_alarm_p99_ms.met)],
  ["reap, alarms, deadlines after creating", "p50 / p99 / max ms", `${f(reapAlarmQuiet.p50_ms, 0)} / ${f(reapAlarmQuiet.p99_ms, 0)} / ${f(reapAlarmQuiet.max_ms, 0)}`, `p99 <= ${TARGETS.reap_alarm_p99_ms}`, String(results.targets.reap_alarm_p99_ms.met_after_creating)],
  ["reap, cron only (60 s)", "p50 / p99 / max ms", `${f(reapCron.p50_ms, 0)} / ${f(reapCron.p99_ms, 0)} / ${f(reapCron.max_ms, 0)}`, "-", "-"],
  ["reap, cron / alarm", "p50 ratio", f(results.reap.ratio_p50, 0), "-", "-"],
  ...throughput.map((r) => [r.route, "req/s, p50 / p99 ms, x floor", `${f(r.rps, 0)}, ${r.p50_ms} / ${r.p99_ms}, ${f(r.ratio_to_floor, 2)}${r.non2xx ? ` (${r.non2xx} non-2xx)` : ""}`, ...throughputTarget(r)]),
  ...selection.specs.map((s) => [`select ${s.spec}`, `median ms over ${s.pool} offers`, f(s.median_ms, 2), "< 20", String(s.median_ms < 20)]),
  ...scaleRows(scale),
  ["node -e \"\"", "median ms to exit", f(cliStartup.node_ms, 0), "-", "-"],
  ...cliStartup.cli_ms.map((c) => [`lessor ${c.line}`, "median ms to exit", f(c.ms, 0), c.line === "--version" ? `< ${TARGETS.cli_version_ms}` : "-", c.line === "--version" ? String(results.targets.cli_version_ms.met) : "-"]),
  ...occupantRows(occupant),
  ...eventsRows(events),
  ...ingressRows(ingress),
  ...costRows(cost),
  ...dataRows(data),
  ...recoveryRows(recovery),
  ...gatewayRows(gateway),
  ...consoleRows(consoleRender),
  ...firstRequestRows(firstRequest),
];
console.log(`\nlessor benchmarks, ${results.date}, ${machine.cpu}, ${machine.cores} cores, node ${machine.node}\n`);
printTable(rows);
console.log(`\nwritten: bench/results.json`);
