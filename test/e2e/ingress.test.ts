/**
 * Provider webhook ingress under `npm start` (docs/ingress.md): `npm start` sets the ingress token,
 * so the sim signs a webhook for each status change and sends it to the running Worker's own
 * `/v1/ingress/sim/...`. With the cron driven only once an hour, machines that vanish reach their
 * leases through that path alone; the time from each vanishing (the sim's ledger) to its lease's
 * `release_requested` event is the reaction time, printed as a figure.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall, bootstrapTokenFromDevVars, removeStateDir, runningServers, startServer, stopServer, type Server } from "./server";

let server: Server;
let bootstrap: string;

beforeAll(async () => {
  // The cron runs once at start (seeding the offers) and not again during this file.
  server = await startServer({ cronIntervalS: 3600 });
  bootstrap = bootstrapTokenFromDevVars();
}, 120_000);

afterAll(async () => {
  for (const s of server ? [server] : runningServers()) {
    await stopServer(s);
    removeStateDir(s);
  }
});

const api = (method: string, route: string, bearer: string, body?: unknown) => apiCall(server, method, route, bearer, body);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("ingress against wrangler dev", () => {
  it("a vanishing sim machine reaches its lease through the sim's signed webhook, with no cron", async () => {
    const org = await api("POST", "/v1/orgs", bootstrap, { name: "e2e-ingress" });
    expect(org.status).toBe(201);
    const key = org.json.key.secret as string;
    const faults = { provision_delay_ms: 100, boot_delay_ms: 300, vanish_rate: 1, vanish_min_ms: 4000, vanish_max_ms: 8000 };
    expect((await api("PUT", "/v1/sim/faults", bootstrap, faults)).status).toBe(200);
    const leases: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await api("POST", "/v1/leases", key, { kind: "scratch", spec: { gpu: "l40s:1", providers: ["sim"] } });
      expect(res.status, JSON.stringify(res.json)).toBe(202);
      leases.push(res.json.id);
    }
    const lags: number[] = [];
    for (const id of leases) {
      let released: any = null;
      for (const deadline = Date.now() + 30_000; Date.now() < deadline && !released; await sleep(250)) {
        const got = await api("GET", `/v1/leases/${id}`, key);
        if (got.json.state === "released") released = got.json;
      }
      expect(released?.release_reason, id).toBe("provider_lost");
      const events = (await api("GET", `/v1/leases/${id}/events`, key)).json.data as any[];
      const asked = events.find((e) => e.type === "release_requested");
      const machine = (await api("GET", `/v1/sim/ledger?label_prefix=lessor-dev-${id}-`, bootstrap)).json.machines[0];
      expect(machine.vanished).toBe(true);
      lags.push(Date.parse(asked.at) - machine.destroyed_at);
    }
    lags.sort((a, b) => a - b);
    console.log(`ingress reaction, vanish to release_requested (ms): ${lags.join(", ")}`);
    // Level-triggered, and well inside a cron period: the lease acted on its own read-back, seconds at most.
    for (const lag of lags) expect(lag).toBeLessThan(5_000);
    const log = readFileSync(server.logFile, "utf8");
    expect(log).toMatch(/POST \/v1\/ingress\/sim\/\S+ 202/);
    // The cron ran once, at start, and never since.
    expect(log.match(/"msg":"cron"/g)?.length ?? 0).toBe(1);
  }, 90_000);
});
