/**
 * A job that survives losing its machine (issue 31, docs/leases.md "Recovery"), in the Workers pool
 * on the sim: a spot job with recovery, preempted twice, finishes exit 0 on its third machine, its
 * checkpoint read back from a volume, its log whole and in order, its receipt the sum of three
 * machines; never two machines at once. And a job that runs out of restarts is released with its
 * last loss. The sim's machines run their commands through its agent (docs/sim.md "The agent").
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { runBilling } from "../../src/billing/reconcile";
import { BOOTSTRAP, call, createKey, createOrg, json, refreshCatalog, type TestOrg } from "./helpers";
import { createLease, events, getLease, machinesOf, maxAliveAtOnce, sim, waitFor, waitForState } from "./lease-helpers";
import { ledgerCost } from "../support/ledger-cost";

/** One simulated hour of billing: the receipt's windows close within the test. */
const W = 500;
let org: TestOrg;
let key: string;
let region: string;
let gpu: string;

beforeAll(async () => {
  org = await createOrg("recovery");
  key = (await createKey(org, "write")).secret;
  await refreshCatalog();
  await sim().reset();
  await sim().setFaults({ provision_delay_ms: 50, boot_delay_ms: 100, billing_window_ms: W, agent_heartbeat_ms: 500 });
  // A class and region where the sim sells spot capacity on at least three hosts.
  const offers: any[] = (await json(await call("GET", "/v1/catalog/offers?provider=sim&spot=true&limit=200", { key }))).data;
  const byPlace = new Map<string, Set<string>>();
  for (const o of offers.filter((o) => o.gpu !== "cpu" && o.gpu_count === 1)) {
    const k = `${o.gpu}|${o.region}`;
    byPlace.set(k, (byPlace.get(k) ?? new Set()).add(o.host_id));
  }
  const place = [...byPlace.entries()].sort((a, b) => b[1].size - a[1].size)[0]!;
  [gpu, region] = place[0].split("|") as [string, string];
});

const stubOf = (id: string) => env.LEASE.get(env.LEASE.idFromName(id));
const logOf = async (id: string) => (await call("GET", `/v1/leases/${id}/logs`, { key })).text();
const preempt = (machineId: string) => call("POST", `/v1/sim/machines/${machineId}/preempt`, { key: BOOTSTRAP });

/** Preempts the job's machine once its run has said `line`, and tells the lease (as the sim's webhook or the cron's reconciler does). */
async function preemptAfter(id: string, line: string): Promise<string> {
  await waitFor(`"${line}" in the log of ${id}`, async () => (await logOf(id)).includes(line), 20_000);
  // The agent runs the command once the machine runs; lessor marks the lease ready when it reads that back.
  const lease = await waitForState(key, id, "ready");
  const res = await preempt(lease.machine.id);
  expect(res.status, await res.clone().text()).toBe(200);
  expect((await json(res)).interrupted).toBe(true);
  await stubOf(id).tick();
  return lease.machine.id;
}

describe("recovery on the sim", () => {
  it("a spot job preempted twice finishes exit 0 on its third machine, from its checkpoint; log whole, receipt of three machines", async () => {
    const vol = await call("POST", "/v1/volumes", { key, body: { name: "ckpt", size_gb: 10, region } });
    expect(vol.status, await vol.clone().text()).toBe(201);
    const spec = { gpu: `${gpu}:1`, spot: true };
    const volumes = [{ name: "ckpt", path: "/ckpt" }];
    // The checkpoint the first attempt starts from.
    const seed = await createLease(key, { kind: "job", spec, cmd: "save /ckpt/step seed", volumes });
    expect((await waitForState(key, seed.id, "released", 20_000)).exit).toMatchObject({ code: 0 });

    const cmd = "echo attempt $LESSOR_RESTART; read /ckpt/step; save /ckpt/step after-restart-$LESSOR_RESTART; echo saved $LESSOR_RESTART; sleep 2; echo done";
    const job = await createLease(key, {
      kind: "job", spec, cmd, volumes,
      policy: { recovery: { on: ["preempted", "host_failed", "provider_lost"], max_restarts: 3, backoff: "1s" } },
    });
    expect(job.policy.recovery).toEqual({ on: ["preempted", "host_failed", "provider_lost"], max_restarts: 3, backoff: "1s", fallback_on_demand: false });
    const first = await preemptAfter(job.id, "saved 0");
    await waitFor("the second attempt", async () => (await getLease(key, job.id)).restarts === 1, 10_000);
    const second = await preemptAfter(job.id, "saved 1");
    const released = await waitForState(key, job.id, "released", 30_000);
    expect(released).toMatchObject({ release_reason: "job_exited", exit: { code: 0, signal: null }, restarts: 2 });
    expect(released.machine.id).not.toBe(first);
    expect(released.machine.id).not.toBe(second);

    // One log, every attempt in order: each read the checkpoint the one before saved.
    expect(await logOf(job.id)).toBe(
      ["attempt 0", "seed", "saved 0", "attempt 1", "after-restart-0", "saved 1", "attempt 2", "after-restart-1", "saved 2", "done", ""].join("\n"),
    );

    // Each attempt an event with its loss and its machine's time; the new machine's ready says how long from the loss.
    const evs = await events(key, job.id);
    const ended = evs.filter((e) => e.type === "attempt_ended");
    expect(ended.map((e) => [e.reason, e.detail.attempt, e.detail.machine_id])).toEqual([["preempted", 1, first], ["preempted", 2, second]]);
    for (const e of ended) expect(e.detail.machine_ms).toBeGreaterThan(0);
    const resumed = evs.filter((e) => e.type === "ready" && e.detail?.restart);
    expect(resumed.map((e) => e.detail.restart)).toEqual([1, 2]);
    for (const e of resumed) expect(e.detail.loss_to_running_ms).toBeGreaterThanOrEqual(1000);
    expect(evs.find((e) => e.type === "exited").detail).toMatchObject({ code: 0, attempt: 3 });

    // Three machines, one after another (guarantee 1), each destroyed.
    const machines = await machinesOf(job.id);
    expect(machines).toHaveLength(3);
    expect(machines.map((m) => m.interrupted)).toEqual([true, true, false]);
    expect(machines.every((m) => m.status === "TERMINATED")).toBe(true);
    expect(maxAliveAtOnce(machines, Date.now())).toBe(1);

    // The receipt sums the three machines, as the sim's ledger does.
    const end = (Math.floor(Date.parse(released.released_at) / W) + 1) * W;
    await new Promise((r) => setTimeout(r, Math.max(0, end - Date.now()) + 50));
    const report = await runBilling(env, Date.now());
    if ("skipped" in report) throw new Error("billing skipped");
    const receipts = (await json(await call("GET", `/v1/receipts?lease_id=${job.id}`, { key }))).data;
    expect(receipts).toHaveLength(1);
    const receipt = await json(await call("GET", `/v1/receipts/${receipts[0].id}`, { key }));
    expect(new Set(receipt.windows.map((w: any) => w.machine_id))).toEqual(new Set(machines.map((m) => m.id)));
    // Each of the sim's records is its window's amount rounded to the micro-dollar, so the sum may
    // differ from the ledger's exact intervals by half a micro-dollar a record, never by a record.
    const ledger = ledgerCost(machines);
    expect(Math.abs(receipt.actual_usd - ledger) * 1e6, `receipt ${receipt.actual_usd}, ledger ${ledger}`).toBeLessThanOrEqual(receipt.windows.length * 0.5 + 1);
  });

  it("a job out of restarts is released with its last loss; one without recovery is released preempted", async () => {
    const spec = { gpu: `${gpu}:1`, spot: true };
    const job = await createLease(key, { kind: "job", spec, cmd: "echo up; hang", policy: { recovery: { on: ["preempted"], max_restarts: 1, backoff: "1s" } } });
    await preemptAfter(job.id, "up");
    await waitFor("the restart", async () => (await getLease(key, job.id)).restarts === 1, 10_000);
    await waitFor("the second attempt's output", async () => (await logOf(job.id)).split("up").length === 3, 20_000);
    await preemptAfter(job.id, "up");
    const released = await waitForState(key, job.id, "released", 20_000);
    expect(released).toMatchObject({ release_reason: "preempted", restarts: 1 });
    expect(maxAliveAtOnce(await machinesOf(job.id), Date.now())).toBe(1);

    const plain = await createLease(key, { kind: "job", spec, cmd: "echo up; hang" });
    await preemptAfter(plain.id, "up");
    expect(await waitForState(key, plain.id, "released", 20_000)).toMatchObject({ release_reason: "preempted", restarts: 0 });
  });

  it("a machine the preempt_rate fault takes back: its agent reports nothing more, and the next attempt's exit is the lease's", async () => {
    // The first machine is doomed at its create (taken back 300 ms after it runs); the next is not.
    await sim().setFaults({ preempt_rate: 1, vanish_min_ms: 300, vanish_max_ms: 300 });
    const job = await createLease(key, {
      kind: "job", spec: { gpu: `${gpu}:1`, spot: true }, cmd: "echo attempt $LESSOR_RESTART; sleep 1.5; echo done",
      policy: { recovery: { on: ["preempted"], max_restarts: 2, backoff: "1s" } },
    });
    try {
      await waitFor("the first machine", async () => (await getLease(key, job.id)).machine !== null, 10_000);
    } finally {
      await sim().setFaults({ preempt_rate: 0 });
    }
    // What tells the lease (the sim's webhook, the cron's reconciler) is stood in for by pokes.
    const released = await waitFor("the job released", async () => {
      await stubOf(job.id).tick();
      const l = await getLease(key, job.id);
      return l.state === "released" ? l : null;
    }, 30_000);
    expect(released).toMatchObject({ release_reason: "job_exited", exit: { code: 0, signal: null }, restarts: 1 });
    expect(await logOf(job.id)).toBe("attempt 0\nattempt 1\ndone\n");
    const machines = await machinesOf(job.id);
    expect(machines.map((m) => m.interrupted)).toEqual([true, false]);
    expect(maxAliveAtOnce(machines, Date.now())).toBe(1);
  });

  it("an exit the lost machine's agent reported as the machine went is not the next attempt's", async () => {
    const job = await createLease(key, {
      kind: "job", spec: { gpu: `${gpu}:1`, spot: true }, cmd: "echo up $LESSOR_RESTART; sleep 4; echo done",
      policy: { recovery: { on: ["preempted"], max_restarts: 1, backoff: "1s" } },
    });
    await waitFor("the first attempt's output", async () => (await logOf(job.id)).includes("up 0"), 20_000);
    const ready = await waitForState(key, job.id, "ready");
    expect((await preempt(ready.machine.id)).status).toBe(200);
    // A real agent may report its command's end (TERM) as the host takes the machine back.
    const minted = await call("POST", `/v1/sim/leases/${job.id}/agent-token`, { key: BOOTSTRAP });
    const token = (await json(minted)).token as string;
    const exit = await call("POST", "/v1/agent/exit", { key: token, body: { code: null, signal: "TERM" }, headers: { "lessor-lease-id": job.id } });
    expect(exit.status).toBe(200);
    await waitFor("the restart", async () => {
      await stubOf(job.id).tick();
      return (await getLease(key, job.id)).restarts === 1;
    }, 10_000);
    // The lost machine's agent no longer speaks for the lease, from the restart on.
    const late = await call("POST", "/v1/agent/exit", { key: token, body: { code: 1, signal: null }, headers: { "lessor-lease-id": job.id } });
    expect(late.status).toBe(401);
    const released = await waitFor("the job released", async () => {
      await stubOf(job.id).tick();
      const l = await getLease(key, job.id);
      return l.state === "released" ? l : null;
    }, 30_000);
    expect(released).toMatchObject({ release_reason: "job_exited", exit: { code: 0, signal: null }, restarts: 1 });
    expect(await logOf(job.id)).toBe("up 0\nup 1\ndone\n");
  });

  it("refuses recovery on anything but a job, and a preempt of an on-demand machine", async () => {
    const res = await call("POST", "/v1/leases", { key, body: { kind: "scratch", spec: { gpu: `${gpu}:1` }, policy: { recovery: { on: ["preempted"] } } } });
    expect(res.status).toBe(400);
    const onDemand = await createLease(key, { kind: "scratch", spec: { gpu: "l40s:1" }, cmd: "hang" });
    const ready = await waitForState(key, onDemand.id, "ready");
    const refused = await preempt(ready.machine.id);
    expect(refused.status).toBe(409);
    expect((await json(refused)).error.code).toBe("not_interruptible");
    await call("POST", `/v1/leases/${onDemand.id}/end`, { key, body: {} });
  });
});

describe("recovery's money", () => {
  it("a quote's ceiling holds every allowed restart; admission refuses what the caps cannot hold, over_budget", async () => {
    const spec = { gpu: `${gpu}:1`, spot: true };
    const plain = await json(await call("POST", "/v1/quotes", { key, body: { kind: "job", spec, policy: { max_lifetime: "1h" } } }));
    const body = { kind: "job", spec, policy: { max_lifetime: "1h", recovery: { on: ["preempted"], max_restarts: 2 } } };
    const held = await json(await call("POST", "/v1/quotes", { key, body }));
    expect(held.offer.id).toBe(plain.offer.id);
    // Each restart under max_lifetime is a session of its own: two more hours at the offer's rate, at least.
    expect(held.ceiling_usd - plain.ceiling_usd).toBeGreaterThanOrEqual(2 * plain.hourly_usd - 0.01);
    expect(held.ceiling_parts.retries_usd).toBeGreaterThan(plain.ceiling_parts.retries_usd);

    // A monthly cap between the two: the job alone fits, the job with its restarts does not.
    const admin = (await createKey(org, "admin")).secret;
    const cap = Math.round(((plain.ceiling_usd + held.ceiling_usd) / 2) * 1e4) / 1e4;
    expect((await call("PUT", "/v1/budget", { key: admin, body: { monthly_usd: cap } })).status).toBe(200);
    try {
      const refused = await call("POST", "/v1/leases", { key, body: { ...body, cmd: "echo hi" } });
      expect(refused.status).toBe(402);
      expect((await json(refused)).error.code).toBe("over_budget");
    } finally {
      await call("PUT", "/v1/budget", { key: admin, body: { monthly_usd: null } });
    }
  });
});
