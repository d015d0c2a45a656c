import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { QUOTE_TTL_MS } from "../../src/catalog/quote";
import { call, createKey, createOrg, expectError, json, refreshCatalog, type TestOrg } from "./helpers";

let org: TestOrg;
let writeKey: string;

beforeAll(async () => {
  org = await createOrg();
  writeKey = (await createKey(org, "write")).secret;
  await refreshCatalog();
});

const quote = (body: unknown) => call("POST", "/v1/quotes", { key: writeKey, body });

async function offers(query: string): Promise<any[]> {
  const res = await call("GET", `/v1/catalog/offers?limit=200&${query}`, { key: writeKey });
  return (await json(res)).data;
}

describe("POST /v1/quotes", () => {
  it("answers the cheapest fitting offer, ranked fallbacks, rate, ceiling and a 5-minute expiry", async () => {
    const before = Date.now();
    const res = await quote({ spec: { gpu: "l40s:1" }, policy: { ttl: "2h" } });
    expect(res.status).toBe(201);
    const q = await json(res);
    expect(q.id).toMatch(/^qt_/);
    expect(q.offer.gpu).toBe("l40s");
    expect(q.offer.gpu_count).toBe(1);
    expect(q.offer.spot).toBe(false);
    const onDemand = (await offers("gpu=l40s&spot=false")).filter((o) => o.gpu_count === 1);
    const cheapest = Math.min(...onDemand.map((o) => o.hourly_usd));
    expect(q.offer.hourly_usd).toBeLessThanOrEqual(cheapest * 1.05);
    expect(q.hourly_usd).toBe(q.offer.hourly_usd);
    // Two hours of compute, and the kept disk's stopped rate for the default stopped_ttl (24 h).
    expect(q.offer.stopped_hourly_usd).toBeGreaterThan(0);
    const stoppedDisk = Math.round(q.offer.stopped_hourly_usd * 24 * 1e6) / 1e6;
    // A release at the ttl may hold the machine 5 minutes more for the command's outputs
    // (policy.outputs_wait). A lease made from the quote may rent it up to 5% above its price, and
    // admission reserves both.
    const hours = 2 + 5 / 60;
    expect(q.ceiling_usd).toBeCloseTo(q.hourly_usd * hours * 1.05 + stoppedDisk, 3);
    expect(q.ceiling_basis).toBe("ttl");
    // Bandwidth is its own part, at a stated allowance: the sim bills none.
    expect(q.estimate).toEqual({ label: "estimate", hourly_usd: q.hourly_usd, parts: { compute_usd: q.hourly_usd, bandwidth_usd: 0 }, bandwidth_gb_per_hour: { down: 10, up: 2 } });
    // Under a ttl, replaced hosts bill inside its hours; only their rounding is extra, and the sim bills by the millisecond.
    expect(q.ceiling_parts).toEqual({
      compute_usd: q.hourly_usd * 2,
      bandwidth_usd: 0,
      outputs_wait_usd: expect.closeTo(q.hourly_usd / 12, 4),
      stopped_disk_usd: stoppedDisk,
      retries_usd: 0,
      drift_usd: expect.closeTo(q.hourly_usd * hours * 0.05, 4),
    });
    expect(q.policy).toEqual({ ttl: "2h", max_lifetime: "1d" });
    expect(q.fallbacks.length).toBeGreaterThan(0);
    expect(q.fallbacks.length).toBeLessThanOrEqual(3);
    const hosts = [q.offer.host_id, ...q.fallbacks.map((f: any) => f.host_id)];
    expect(new Set(hosts).size).toBe(hosts.length);
    const expires = Date.parse(q.expires_at);
    expect(expires - Date.parse(q.created_at)).toBe(QUOTE_TTL_MS);
    expect(expires).toBeGreaterThanOrEqual(before + QUOTE_TTL_MS);
  });

  it("is stored and immutable: GET answers it exactly as made", async () => {
    const q = await json(await quote({ spec: { gpu: "h100:8" }, kind: "job" }));
    await refreshCatalog(Date.now() + 1);
    const res = await call("GET", `/v1/quotes/${q.id}`, { key: writeKey });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual(q);
    expect(q.policy).toEqual({ ttl: null, max_lifetime: "1d" });
    expect(q.ceiling_basis).toBe("max_lifetime");
    // Under max_lifetime a replacement begins a new session: each of two failed boots bills its
    // boot_timeout (10 minutes) and a minute to destroy it outside the compute part.
    expect(q.ceiling_parts.retries_usd).toBeCloseTo((2 * 11 * q.hourly_usd) / 60, 3);
    expect(q.ceiling_parts.drift_usd).toBeCloseTo(0.05 * (q.hourly_usd * 24 + q.ceiling_parts.retries_usd), 3);
    expect(q.ceiling_usd).toBeCloseTo(q.hourly_usd * 24 + q.ceiling_parts.stopped_disk_usd + q.ceiling_parts.retries_usd + q.ceiling_parts.drift_usd, 3);
  });

  it("retries_usd follows host_attempts and boot_timeout: none with one host, more with more hosts or a longer boot", async () => {
    const job = (policy: object) => quote({ spec: { gpu: "l40s:1" }, kind: "job", policy }).then(json);
    const one = await job({ host_attempts: 1 });
    expect(one.ceiling_parts.retries_usd).toBe(0);
    expect(one.ceiling_usd).toBeCloseTo(one.ceiling_parts.compute_usd + one.ceiling_parts.stopped_disk_usd + one.ceiling_parts.drift_usd, 3);
    const two = await job({ host_attempts: 2 });
    expect(two.ceiling_parts.retries_usd).toBeCloseTo((11 * two.hourly_usd) / 60, 4);
    const ten = await job({ host_attempts: 10, boot_timeout: "29m" });
    expect(ten.ceiling_parts.retries_usd).toBeCloseTo((9 * 30 * ten.hourly_usd) / 60, 4);
    expect(ten.ceiling_usd).toBeCloseTo(ten.ceiling_parts.compute_usd + ten.ceiling_parts.stopped_disk_usd + ten.ceiling_parts.retries_usd + ten.ceiling_parts.drift_usd, 3);
  });

  it("the stopped disk is counted for the stopped_ttl asked for, nothing without a stop's billing, and no ceiling where nothing ends it", async () => {
    const short = await json(await quote({ spec: { gpu: "l40s:1" }, policy: { ttl: "2h", stopped_ttl: "1h" } }));
    expect(short.ceiling_parts.stopped_disk_usd).toBeCloseTo(short.offer.stopped_hourly_usd, 6);
    expect(short.ceiling_usd).toBeCloseTo(short.ceiling_parts.compute_usd + short.ceiling_parts.outputs_wait_usd + short.offer.stopped_hourly_usd + short.ceiling_parts.drift_usd, 3);
    const unbounded = await json(await quote({ spec: { gpu: "l40s:1" }, policy: { ttl: "2h", stopped_ttl: null } }));
    expect(unbounded.ceiling_parts.stopped_disk_usd).toBeNull();
    expect(unbounded.ceiling_usd).toBeNull();
  });

  it("uses the kind's default caps, and a null cap removes it", async () => {
    const scratch = await json(await quote({ spec: { gpu: "l4" } }));
    expect(scratch.kind).toBe("scratch");
    expect(scratch.policy).toEqual({ ttl: "4h", max_lifetime: "1d" });
    const uncapped = await json(await quote({ spec: { gpu: "l4" }, policy: { ttl: null, max_lifetime: null } }));
    expect(uncapped.ceiling_usd).toBeNull();
    expect(uncapped.ceiling_basis).toBeNull();
  });

  it("accepts every spec form: class:count, lane pin, bare class, cpu, minimums", async () => {
    for (const spec of [
      { gpu: "L40S:2" },
      { gpu: "l40s-sim:1" },
      { gpu: "a100-80gb:8" },
      { gpu: "rtx4090" },
      { cpu: 4 },
      { min_vram_gb: 80, min_gpus: 2 },
      { min_vram_gb: 100 },
      { gpu: "h100:1", spot: true },
    ]) {
      const res = await quote({ spec });
      expect(res.status, JSON.stringify(spec)).toBe(201);
      const q = await json(res);
      if ("cpu" in spec) expect(q.offer.gpu).toBe("cpu");
      if ("min_vram_gb" in spec) expect(q.offer.vram_gb).toBeGreaterThanOrEqual(spec.min_vram_gb!);
      if (spec.gpu === "L40S:2") expect([q.offer.gpu, q.offer.gpu_count]).toEqual(["l40s", 2]);
    }
  });

  it("never chooses an excluded host or provider", async () => {
    const first = await json(await quote({ spec: { gpu: "a100-80gb:1" } }));
    const again = await json(await quote({ spec: { gpu: "a100-80gb:1", exclude_hosts: [first.offer.host_id] } }));
    expect(again.offer.host_id).not.toBe(first.offer.host_id);
    for (const f of again.fallbacks) expect(f.host_id).not.toBe(first.offer.host_id);
    const e = await expectError(await quote({ spec: { gpu: "a100-80gb:1", exclude_providers: ["sim"] } }), 409, "no_capacity");
    expect(e.details.constraint).toBe("exclude_providers");
  });

  it("409 no_capacity names the constraint that removed the last candidates", async () => {
    const cases: Array<[object, string]> = [
      [{ gpu: "b200:8", max_hourly_usd: 5 }, "max_hourly_usd"],
      [{ gpu: "l40s", regions: ["mars-1"] }, "regions"],
      [{ gpu: "h100:8", min_disk_gb: 1_000_000 }, "min_disk_gb"],
      [{ gpu: "l4", exclude_providers: ["sim"] }, "exclude_providers"],
      [{ gpu: "l4-runpod:1" }, "gpu"],
      [{ cpu: 1000 }, "cpu"],
      // The sim's offers state no CUDA: an image that needs one is never placed on a guess.
      [{ gpu: "l40s", min_cuda: 12.8 }, "cuda"],
    ];
    for (const [spec, constraint] of cases) {
      const e = await expectError(await quote({ spec }), 409, "no_capacity");
      expect(e.details.constraint, JSON.stringify(spec)).toBe(constraint);
      expect(e.message).toContain(constraint);
    }
  });

  it("max_startup_s: a sim offer stating its startup at the maximum is chosen; one second less, no_capacity says all stated were slower", async () => {
    const ok = await json(await quote({ spec: { gpu: "l40s", max_startup_s: 2 } }));
    expect(ok.offer.startup_s).toBe(2);
    const e = await expectError(await quote({ spec: { gpu: "l40s", max_startup_s: 1 } }), 409, "no_capacity");
    expect(e.details).toMatchObject({ constraint: "max_startup_s", fastest_startup_s: 2 });
    expect(e.details.stating_startup).toBe(e.details.candidates_before);
    expect(e.message).toContain("none states a startup time at or below max_startup_s");
    await expectError(await quote({ spec: { gpu: "l40s", max_startup_s: 0 } }), 400);
  });

  it("refuses to guess: unknown classes, bad counts, bad durations, unknown fields are 400", async () => {
    const unknown = await expectError(await quote({ spec: { gpu: "h1000:8" } }), 400, "unknown_gpu");
    expect(unknown.details.known_classes).toContain("l40s");
    await expectError(await quote({ spec: { gpu: "l40s:0" } }), 400, "invalid_gpu_count");
    await expectError(await quote({ spec: { gpu: "l40s:1.5" } }), 400, "invalid_gpu_count");
    const d = await expectError(await quote({ spec: { gpu: "l4" }, policy: { ttl: "2 hours" } }), 400, "invalid_duration");
    expect(d.details.field).toBe("policy.ttl");
    await expectError(await quote({ spec: { gpu: "l4" }, policy: { ttl: 7200 } }), 400, "invalid_request");
    await expectError(await quote({ spec: { gpu: "l4", colour: "red" } }), 400, "invalid_request");
    await expectError(await quote({ spec: { regions: ["us-east"] } }), 400, "invalid_spec");
    await expectError(await quote({ spec: { gpu: "l4", cpu: 2 } }), 400, "invalid_spec");
    await expectError(await quote({}), 400, "invalid_request");
  });

  it("guarantee 10: Idempotency-Key replays the same quote; another body is 422", async () => {
    const headers = { "idempotency-key": `q-${crypto.randomUUID()}` };
    const body = { spec: { gpu: "l4:1" } };
    const a = await call("POST", "/v1/quotes", { key: writeKey, body, headers });
    const b = await call("POST", "/v1/quotes", { key: writeKey, body, headers });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(await json(b)).toEqual(await json(a));
    await expectError(await call("POST", "/v1/quotes", { key: writeKey, body: { spec: { gpu: "l4:2" } }, headers }), 422, "idempotency_mismatch");
  });

  it("stores nothing for a refused quote", async () => {
    // Where the org's quotes are kept (src/catalog/quote-store.ts).
    const count = () =>
      runInDurableObject(env.ORG_EVENTS.get(env.ORG_EVENTS.idFromName(org.id)), (_o, state) => state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM quotes").one().n);
    const before = await count();
    await quote({ spec: { gpu: "h1000" } });
    await quote({ spec: { gpu: "l40s", regions: ["mars-1"] } });
    expect(await count()).toBe(before);
  });
});
