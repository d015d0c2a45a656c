import { createScheduledController, env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import worker from "../../functions/index";
import { GPU_CLASS_NAMES } from "../../src/catalog/gpu-classes";
import { MODELS } from "../../src/catalog/models";
import { SIM_OBJECT_NAME } from "../../src/providers/sim/adapter";
import { SIM_DEFAULT_OFFERS } from "../../src/providers/sim/cloud";
import { call, createKey, createOrg, expectError, json, type TestOrg } from "./helpers";

async function runCron(at = Date.now()) {
  const controller = createScheduledController({ scheduledTime: at, cron: "* * * * *" });
  await worker.scheduled(controller, env);
}

async function setSimOffers(offers: number) {
  const stub = env.SIM.get(env.SIM.idFromName(SIM_OBJECT_NAME));
  const res = await stub.fetch("https://sim.internal/v1/config", { method: "PUT", body: JSON.stringify({ offers }) });
  expect(res.status).toBe(200);
}

async function allOffers(key: string, query = ""): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const qs = new URLSearchParams(query);
    qs.set("limit", "200");
    if (cursor) qs.set("cursor", cursor);
    const res = await call("GET", `/v1/catalog/offers?${qs}`, { key });
    expect(res.status).toBe(200);
    const page = await json(res);
    out.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return out;
}

let org: TestOrg;

beforeAll(async () => {
  org = await createOrg();
  await runCron();
});

afterAll(async () => {
  await setSimOffers(SIM_DEFAULT_OFFERS);
  await runCron();
});

describe("catalog", () => {
  it("the cron trigger fills the offer cache from the sim: >= 200 offers, >= 5 regions, every class", async () => {
    const offers = await allOffers(org.adminKey);
    expect(offers.length).toBeGreaterThanOrEqual(200);
    expect(new Set(offers.map((o) => o.region)).size).toBeGreaterThanOrEqual(5);
    expect(new Set(offers.map((o) => o.gpu))).toEqual(new Set([...GPU_CLASS_NAMES, "cpu"]));
    expect(new Set(offers.map((o) => o.id)).size).toBe(offers.length);
    // Cheapest first, across pages.
    const prices = offers.map((o) => o.hourly_usd);
    expect([...prices].sort((a, b) => a - b)).toEqual(prices);
  });

  it("lists every class with VRAM, offer count and cheapest price", async () => {
    const res = await call("GET", "/v1/catalog/gpus", { key: org.adminKey });
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data.map((c: any) => c.name)).toEqual(GPU_CLASS_NAMES);
    const offers = await allOffers(org.adminKey);
    for (const cls of data) {
      const mine = offers.filter((o) => o.gpu === cls.name);
      expect(cls.offers, cls.name).toBe(mine.length);
      expect(cls.cheapest_hourly_usd, cls.name).toBe(Math.min(...mine.map((o) => o.hourly_usd)));
    }
    expect(data.find((c: any) => c.name === "h200").vram_gb).toBe(141);
  });

  it("filters offers by every documented filter", async () => {
    const all = await allOffers(org.adminKey);
    const check = async (query: string, pred: (o: any) => boolean) => {
      const got = await allOffers(org.adminKey, query);
      expect(got.length, query).toBeGreaterThan(0);
      expect(got.map((o) => o.id).sort(), query).toEqual(all.filter(pred).map((o) => o.id).sort());
    };
    await check("gpu=L40S", (o) => o.gpu === "l40s");
    await check("min_vram_gb=80", (o) => o.vram_gb >= 80);
    await check("min_gpus=4", (o) => o.gpu_count >= 4);
    await check("region=eu-central", (o) => o.region === "eu-central");
    await check("provider=sim", () => true);
    await check("max_hourly_usd=0.5", (o) => o.hourly_usd <= 0.5);
    await check("spot=true", (o) => o.spot);
    await check("gpu=h100&min_gpus=8&spot=false", (o) => o.gpu === "h100" && o.gpu_count >= 8 && !o.spot);
    await check("gpu=cpu", (o) => o.gpu === "cpu");
  });

  it("shows each sim offer's stated startup time, and max_startup_s lists at it, none below it", async () => {
    const all = await allOffers(org.adminKey, "gpu=l4");
    expect(all.length).toBeGreaterThan(0);
    // The sim's default boot model: 0.5 s provisioning and 1.5 s booting (faults.ts).
    for (const o of all) expect(o.startup_s).toBe(2);
    expect((await allOffers(org.adminKey, "gpu=l4&max_startup_s=2")).map((o) => o.id).sort()).toEqual(all.map((o) => o.id).sort());
    expect(await allOffers(org.adminKey, "gpu=l4&max_startup_s=1")).toEqual([]);
    for (const q of ["max_startup_s=0", "max_startup_s=1.5", "max_startup_s=fast", "max_startup_s=86401"]) {
      await expectError(await call("GET", `/v1/catalog/offers?${q}`, { key: org.adminKey }), 400);
    }
  });

  it("refuses an unknown class and a forged cursor with a 400", async () => {
    const e = await expectError(await call("GET", "/v1/catalog/offers?gpu=h1000", { key: org.adminKey }), 400, "unknown_gpu");
    expect(e.details.known_classes).toContain("h100");
    await expectError(await call("GET", "/v1/catalog/offers?cursor=bm9wZQ", { key: org.adminKey }), 400, "invalid_cursor");
    await expectError(await call("GET", "/v1/catalog/offers?limit=201", { key: org.adminKey }), 400, "invalid_request");
  });

  it("a refresh replaces the provider's offers: what the provider no longer has is gone", async () => {
    await setSimOffers(250);
    await runCron(Date.now() + 1);
    const shrunk = await allOffers(org.adminKey);
    const { offers: stored } = await env.DB.prepare("SELECT COUNT(*) AS offers FROM offers WHERE provider = 'sim'").first<{ offers: number }>() ?? { offers: 0 };
    expect(shrunk.length).toBe(stored);
    // 250 sim offers less the ones whose GPU matches no class.
    expect(shrunk.length).toBeLessThan(250);
    expect(shrunk.length).toBeGreaterThan(230);
    expect(shrunk.some((o) => o.id.endsWith("-g1") && Number(o.host_id.slice(-5)) > 90)).toBe(false);
  });

  it("lists every model of the table to a read key, with its floors and where it fits, and to no one without a key", async () => {
    const read = (await createKey(org, "read")).secret;
    const res = await call("GET", "/v1/catalog/models", { key: read });
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data.map((m: any) => m.id)).toEqual(MODELS.map((m) => m.id));
    expect(data.length).toBeGreaterThanOrEqual(12);
    const llama = data.find((m: any) => m.id === "meta-llama/Llama-3.1-70B-Instruct");
    expect(llama).toMatchObject({ variant: "bf16", min_vram_gb: 150, min_host_ram_gb: 142, max_model_len: 8192, cpu_cores: null });
    expect(llama.fits).toContain("h100:2");
    expect(llama.fits).not.toContain("h100:1");
    expect(data.find((m: any) => m.id === "Qwen/Qwen2.5-0.5B-Instruct").cpu_cores).toBe(4);
    await expectError(await call("GET", "/v1/catalog/models", { key: null }), 401, "unauthenticated");
  });
});
