/**
 * How soon a lease learns that its machine vanished (docs/ingress.md), against a real `wrangler
 * dev`, two ways in one run: through the sim's signed webhook to `/v1/ingress/sim/...`, and with
 * the webhooks sent nowhere, so that only the cron's reconcile (every 60 s, as deployed) finds it.
 * The figure is the time from the vanishing (the sim's ledger) to the lease's `release_requested`.
 */
import { startServer, stopServer, removeStateDir, apiCall, bootstrapTokenFromDevVars, type Server } from "../e2e/server";
import { median } from "./in-process";

/** Machines that vanish per way; each a lease of its own. */
const LEASES = 5;
const CRON_PERIOD_S = 60;
/** An origin where nothing answers: the sim's webhooks go there when ingress is left out. */
const NOWHERE = "http://127.0.0.1:9";

export interface ReactionResult {
  leases: number;
  /** vanish -> release_requested, ms, each lease's. */
  lags_ms: number[];
  median_ms: number;
  max_ms: number;
}

export interface IngressResult {
  ingress: ReactionResult;
  cron_only: ReactionResult;
  /** How many times sooner ingress is, by median. */
  ratio: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Leases on machines that vanish 4–8 s after they boot, and how long each lease took to notice. */
async function reaction(server: Server, name: string, timeoutMs: number): Promise<ReactionResult> {
  const bootstrap = bootstrapTokenFromDevVars();
  const api = (method: string, route: string, bearer: string, body?: unknown) => apiCall(server, method, route, bearer, body);
  const org = await api("POST", "/v1/orgs", bootstrap, { name });
  if (org.status !== 201) throw new Error(`create org: ${org.status} ${JSON.stringify(org.json)}`);
  const key = org.json.key.secret as string;
  const faults = { provision_delay_ms: 100, boot_delay_ms: 300, vanish_rate: 1, vanish_min_ms: 4000, vanish_max_ms: 8000 };
  if ((await api("PUT", "/v1/sim/faults", bootstrap, faults)).status !== 200) throw new Error("set the sim's faults");
  const ids: string[] = [];
  for (let i = 0; i < LEASES; i++) {
    const res = await api("POST", "/v1/leases", key, { kind: "scratch", spec: { gpu: "l40s:1", providers: ["sim"] } });
    if (res.status !== 202) throw new Error(`create lease: ${res.status} ${JSON.stringify(res.json)}`);
    ids.push(res.json.id);
  }
  const lags: number[] = [];
  for (const id of ids) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if ((await api("GET", `/v1/leases/${id}`, key)).json.state === "released") break;
      if (Date.now() > deadline) throw new Error(`lease ${id} was not released within ${timeoutMs} ms`);
      await sleep(250);
    }
    const events = (await api("GET", `/v1/leases/${id}/events`, key)).json.data as Array<{ type: string; at: string }>;
    const asked = events.find((e) => e.type === "release_requested")!;
    const machine = (await api("GET", `/v1/sim/ledger?label_prefix=lessor-dev-${id}-`, bootstrap)).json.machines[0];
    if (!machine?.vanished) throw new Error(`lease ${id}'s machine did not vanish`);
    lags.push(Date.parse(asked.at) - machine.destroyed_at);
  }
  lags.sort((a, b) => a - b);
  return { leases: LEASES, lags_ms: lags, median_ms: median(lags), max_ms: lags.at(-1)! };
}

async function onServer<T>(env: Record<string, string>, cronIntervalS: number, run: (s: Server) => Promise<T>): Promise<T> {
  const server = await startServer({ env, cronIntervalS });
  try {
    return await run(server);
  } finally {
    await stopServer(server);
    removeStateDir(server);
  }
}

export async function benchIngress(log: (msg: string) => void): Promise<IngressResult> {
  log(`ingress: ${LEASES} vanishing machines, reaching their leases through the sim's webhooks (no cron)`);
  const ingress = await onServer({}, 3600, (s) => reaction(s, "bench-ingress", 30_000));
  log(`ingress: the same with the webhooks sent nowhere, the cron every ${CRON_PERIOD_S} s`);
  const cronOnly = await onServer({ LESSOR_PUBLIC_URL: NOWHERE }, CRON_PERIOD_S, (s) => reaction(s, "bench-cron-only", (CRON_PERIOD_S + 60) * 1000));
  return { ingress, cron_only: cronOnly, ratio: cronOnly.median_ms / Math.max(1, ingress.median_ms) };
}

export function ingressRows(r: IngressResult): string[][] {
  const each = (x: ReactionResult) => `${x.median_ms} / ${x.max_ms} (${x.lags_ms.join(", ")})`;
  return [
    ["machine vanished -> lease acts, ingress", "median / max ms (each)", each(r.ingress), "< 1000", String(r.ingress.max_ms < 1000)],
    [`machine vanished -> lease acts, cron only (${CRON_PERIOD_S} s)`, "median / max ms (each)", each(r.cron_only), "-", "-"],
    ["cron only / ingress", "median ratio", r.ratio.toFixed(0), "-", "-"],
  ];
}
