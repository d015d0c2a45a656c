/**
 * Each command's request and its human output, against canned answers typed by the generated API
 * types (a fake `fetch` routes by method and path): which query, path and body a command sends,
 * and how a person reads the answer. The real API's side is test/e2e/cli.test.ts.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { components } from "../../cli/api-types";
import { main } from "../../cli/main.mjs";
import { captureIo } from "../support/cli-io";

type S = components["schemas"];
const NOW = Date.parse("2026-12-01T12:00:00Z");
const at = (minutes: number) => new Date(NOW + minutes * 60_000).toISOString();
const ID = "ls_01m8rjha6f67yss1ky0ptedt9t";

const offer: S["Offer"] = {
  id: "sim:h1-g1",
  provider: "sim",
  provider_offer_id: "h1-g1",
  on_demand_hourly_usd: null,
  gpu: "l40s",
  gpu_count: 1,
  vram_gb: 48,
  vcpu: 8,
  memory_gb: 64,
  disk_gb: 200,
  region: "us-east",
  host_id: "h1",
  hourly_usd: 0.92,
  availability: "high",
  spot: false,
  host_duration_s: null,
  cuda_max: 12.8,
  inet_down_usd_per_gb: null,
  inet_up_usd_per_gb: null,
  stopped_hourly_usd: 0.0092,
  reliability: null,
  inet_down_mbps: null,
  inet_up_mbps: null,
  startup_s: 2,
};

const lease: S["Lease"] = {
  id: ID,
  name: "train",
  kind: "scratch",
  state: "ready",
  state_since: at(-5),
  provider: "sim",
  machine: { id: "m-1", label: null, status: "running", observed_at: at(-0.5) },
  // A nullable named schema may come out as an allOf no value satisfies: typed as the answer has it.
  offer: offer as S["Lease"]["offer"] & object,
  fallbacks: [],
  excluded_hosts: [],
  hourly_usd: 0.92,
  policy: {
    ttl: "1h",
    idle_timeout: "30m",
    max_lifetime: "1d",
    stopped_ttl: null,
    heartbeat_grace: "5m",
    boot_timeout: "10m",
    startup_timeout: null,
    host_attempts: 3,
    max_session_usd: null,
    max_runtime: null,
    kill_grace: "10s",
    max_inactivity: null,
    inactivity_action: "diagnose",
    on_exit: "keep",
    outputs_wait: "5m",
  },
  quote_id: null,
  reconcile_required: false,
  created_at: at(-6),
  session_started_at: at(-6),
  ready_at: at(-5),
  ttl_expires_at: at(54),
  last_activity_at: at(-5),
  lock_until: null,
  stopped_at: null,
  release_reason: null,
  released_at: null,
  warnings: [],
  env: [],
  volumes: [],
  exit: null,
  billing: {
    status: "accruing",
    estimate: {
      label: "estimate",
      amount_usd: 0.0767,
      running_usd: 0.0767,
      stopped_usd: 0,
      running_seconds: 300,
      stopped_seconds: 0,
      hourly_usd: 0.92,
      stopped_hourly_usd: 0,
      as_of: at(0),
    },
    actual_usd: null,
    receipt_id: null,
  },
};

interface Seen {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  auth: string | null;
}

/** Answers `routes["METHOD /path"]` with 200, else 404 in the API's envelope; records each request. */
/** A route answers its body, or, as a function, the body for the request's query. */
function fakeApi(routes: Record<string, unknown>) {
  const seen: Seen[] = [];
  vi.stubGlobal("fetch", async (request: Request) => {
    const url = new URL(request.url);
    const text = await request.text();
    seen.push({ method: request.method, path: url.pathname, query: Object.fromEntries(url.searchParams), body: text ? JSON.parse(text) : undefined, auth: request.headers.get("authorization") });
    const key = `${request.method} ${url.pathname}`;
    if (!(key in routes)) {
      return Response.json({ error: { code: "not_found", message: `no route for ${key}`, details: {} }, request_id: "req_1" }, { status: 404 });
    }
    const route = routes[key];
    return Response.json(typeof route === "function" ? route(Object.fromEntries(url.searchParams)) : route, { status: 200 });
  });
  return seen;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

async function run(argv: string[], options: { tty?: boolean; stdin?: string } = {}) {
  const io = captureIo({ env: { LESSOR_URL: "https://lessor.test", LESSOR_API_KEY: "lsr_test" }, now: NOW, ...options });
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe("lease commands", () => {
  it("kill: the body from the flags, and the outcome as the exit code (0 stopped, 2 unknown, 3 still alive)", async () => {
    for (const [outcome, code] of [["stopped", 0], ["unknown", 2], ["still_alive", 3]] as const) {
      const seen = fakeApi({ [`POST /v1/leases/${ID}/kill`]: { outcome } });
      const r = await run(["kill", ID, "--timeout", "5s", "--no-escalate"]);
      expect(r.code, outcome).toBe(code);
      expect(r.out).toMatch(new RegExp(`^${ID}: ${outcome.replace("_", " ")}`));
      expect(seen[0]!.body).toEqual({ timeout: "5s", escalate: false });
    }
    const seen = fakeApi({ [`POST /v1/leases/${ID}/kill`]: { outcome: "stopped" } });
    await run(["kill", ID]);
    expect(seen[0]!.body).toEqual({});
  });

  it("ls: one row a lease, money with cents, times relative; the key as a bearer, never printed", async () => {
    const seen = fakeApi({ "GET /v1/leases": { data: [lease], next_cursor: "c1" } });
    const r = await run(["ls", "--state", "ready", "--limit", "5"]);
    expect(r.code).toBe(0);
    expect(r.out.split("\n")).toEqual([
      "LEASE                          NAME   KIND     STATE  GPU      PROVIDER     RATE   COST  TTL        CREATED",
      `${ID}  train  scratch  ready  l40s x1  sim       $0.92/h  $0.08  in 54 min  6 min ago`,
      "",
    ]);
    expect(r.err).toBe("more: lessor ls --cursor c1\n");
    expect(seen).toEqual([{ method: "GET", path: "/v1/leases", query: { state: "ready", limit: "5" }, body: undefined, auth: "Bearer lsr_test" }]);
    expect(r.out + r.err).not.toContain("lsr_test");
  });

  it("ls on a terminal colours the state; NO_COLOR and --json never", async () => {
    fakeApi({ "GET /v1/leases": { data: [lease], next_cursor: null } });
    expect((await run(["ls"], { tty: true })).out).toContain("\u001b[32mready\u001b[39m");
    const io = captureIo({ env: { LESSOR_URL: "https://lessor.test", LESSOR_API_KEY: "k", NO_COLOR: "1" }, tty: true });
    await main(["ls"], io);
    expect(io.out()).not.toContain("\u001b[");
    const json = await run(["ls", "--json"], { tty: true });
    expect(JSON.parse(json.out)).toEqual({ data: [lease], next_cursor: null });
  });

  it("status by name: finds the live lease, then reads it with its guard", async () => {
    const released = { ...lease, id: "ls_00000000000000000000000001", state: "released" as const };
    const seen = fakeApi({
      "GET /v1/leases": { data: [released, lease], next_cursor: null },
      [`GET /v1/leases/${ID}`]: { ...lease, guard: { action: "stop", reason: "idle_timeout", at: at(25), due: false } },
    });
    const r = await run(["status", "train"]);
    expect(r.code).toBe(0);
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual(["GET /v1/leases", `GET /v1/leases/${ID}`]);
    expect(seen[0]!.query).toEqual({ name: "train", limit: "50" });
    expect(r.out).toBe(
      [
        `lease:    ${ID} (train)`,
        "kind:     scratch",
        "state:    ready since 5 min ago",
        "provider: sim",
        "machine:  m-1, running, seen 30 s ago",
        "offer:    l40s x1, us-east, $0.92/h",
        "cost:     $0.08 so far (estimate, accruing)",
        `ttl:      ends in 54 min (${at(54)})`,
        "guard:    stop in 25 min (idle_timeout)",
        "",
      ].join("\n"),
    );
  });

  it("status: each warning's message on one line", async () => {
    const warnings = [
      { code: "mutable_image_tag" as const, field: "image", message: "image is a mutable tag" },
      { code: "ttl_shorter_than_boot" as const, field: "policy.ttl", message: "ttl is short" },
    ];
    fakeApi({ [`GET /v1/leases/${ID}`]: { ...lease, warnings, guard: { action: "none", reason: null, at: null, due: false } } });
    const r = await run(["status", ID]);
    expect(r.out).toContain("warnings: image is a mutable tag; ttl is short\n");
  });

  it("a name no lease has: exit 3 without another request", async () => {
    const seen = fakeApi({ "GET /v1/leases": { data: [], next_cursor: null } });
    const r = await run(["end", "nothing"]);
    expect(r).toMatchObject({ code: 3, out: "", err: "error: no lease is named nothing\n" });
    expect(seen).toHaveLength(1);
  });

  it("lock and extend send their duration; the answer in one line", async () => {
    const seen = fakeApi({
      [`POST /v1/leases/${ID}/lock`]: { ...lease, lock_until: at(120) },
      [`POST /v1/leases/${ID}/extend`]: { ...lease, ttl_expires_at: at(114) },
    });
    expect((await run(["lock", ID, "--for", "2h"])).out).toBe(`${ID}: ready, lock ends in 2 h\n`);
    expect((await run(["extend", ID, "--by", "1h"])).out).toBe(`${ID}: ready, ttl ends in 1 h 54 min\n`);
    expect(seen.map((s) => s.body)).toEqual([{ for: "2h" }, { by: "1h" }]);
  });

  it("events: a table, oldest first", async () => {
    fakeApi({
      [`GET /v1/leases/${ID}/events`]: {
        data: [
          { seq: 1, at: at(-6), type: "created", from: null, to: "pending", reason: null, detail: {} },
          { seq: 2, at: at(-5), type: "ready", from: "booting", to: "ready", reason: null, detail: {} },
        ],
        next_after: null,
        released: false,
      },
    });
    expect((await run(["events", ID])).out.split("\n")).toEqual([
      "SEQ  WHEN       EVENT    STATE             REASON",
      "  1  6 min ago  created  - -> pending",
      "  2  5 min ago  ready    booting -> ready",
      "",
    ]);
  });

  it("events: follows next_after to the last page, every event once", async () => {
    const created = { seq: 1, at: at(-6), type: "created", from: null, to: "pending", reason: null, detail: {} };
    const ready = { seq: 2, at: at(-5), type: "ready", from: "booting", to: "ready", reason: null, detail: {} };
    const seen = fakeApi({
      [`GET /v1/leases/${ID}/events`]: ({ after }: { after: string }) =>
        after === "0" ? { data: [created], next_after: 1, released: false } : { data: [ready], next_after: null, released: false },
    });
    const r = await run(["events", ID, "--json"]);
    expect(seen.map((s) => s.query)).toEqual([{ after: "0" }, { after: "1" }]);
    expect(JSON.parse(r.out)).toEqual({ data: [created, ready], next_after: null, released: false });
  });
});

describe("catalog commands", () => {
  it("models: one aligned row a model, the smallest fits and how many more; --json prints the answer", async () => {
    const models: S["Model"][] = [
      { id: "Qwen/Qwen2.5-0.5B-Instruct", variant: "bf16", params_b: 0.49, max_model_len: 8192, min_vram_gb: 3, min_host_ram_gb: 10, fits: ["t4:1", "l4:1", "a10:1", "h100:1"], cpu_cores: 4 },
      { id: "meta-llama/Llama-3.1-70B-Instruct", variant: "bf16", params_b: 70.55, max_model_len: 8192, min_vram_gb: 150, min_host_ram_gb: 142, fits: ["a100-80gb:2", "h100:2"], cpu_cores: null },
    ];
    const seen = fakeApi({ "GET /v1/catalog/models": { data: models } });
    const r = await run(["models"]);
    expect(r.code).toBe(0);
    expect(seen.map((x) => `${x.method} ${x.path}`)).toEqual(["GET /v1/catalog/models"]);
    expect(r.out).toBe(
      [
        "MODEL                              VARIANT    VRAM  HOST RAM  CONTEXT     CPU  FITS",
        "Qwen/Qwen2.5-0.5B-Instruct         bf16       3 GB     10 GB     8192  4 vCPU  t4:1, l4:1, a10:1 (+1 more)",
        "meta-llama/Llama-3.1-70B-Instruct  bf16     150 GB    142 GB     8192       -  a100-80gb:2, h100:2",
        "",
      ].join("\n"),
    );
    const machine = await run(["models", "--json"]);
    expect(JSON.parse(machine.out)).toEqual({ data: models });
  });

  it("offers: the flags as the API's query", async () => {
    const seen = fakeApi({ "GET /v1/catalog/offers": { data: [{ ...offer, refreshed_at: at(-1), stale: false }], next_cursor: null } });
    const r = await run(["offers", "--gpu", "l40s", "--region", "us-east", "--max-hourly", "2", "--spot"]);
    expect(r.code).toBe(0);
    expect(seen[0]!.query).toEqual({ gpu: "l40s", region: "us-east", max_hourly_usd: "2", spot: "true" });
    expect(r.out).toMatch(/^sim:h1-g1 +l40s x1 +48 GB +us-east +\$0\.92\/h +high$/m);
  });

  it("quote: the spec from the flags, the answer in words", async () => {
    const quote: S["Quote"] = {
      id: "qt_1",
      created_at: at(0),
      expires_at: at(5),
      kind: "scratch",
      spec: { gpu: "l40s:1" },
      policy: { ttl: "2h", max_lifetime: "1d" },
      offer,
      fallbacks: [offer],
      candidates: 4,
      hourly_usd: 0.92,
      estimate: { label: "estimate", hourly_usd: 0.93, parts: { compute_usd: 0.92, bandwidth_usd: 0.01 }, bandwidth_gb_per_hour: { down: 1, up: 1 } },
      ceiling_usd: 2.16,
      ceiling_parts: { compute_usd: 1.84, bandwidth_usd: 0.02, outputs_wait_usd: 0.08, stopped_disk_usd: 0.22, retries_usd: 0, drift_usd: 0 },
      ceiling_basis: "ttl",
    };
    const seen = fakeApi({ "POST /v1/quotes": quote });
    const r = await run(["quote", "--gpu", "l40s:1", "--region", "us-east", "--region", "eu-central", "--ttl", "2h", "--spot"]);
    expect(seen[0]!.body).toEqual({ spec: { gpu: "l40s:1", regions: ["us-east", "eu-central"], spot: true }, policy: { ttl: "2h" } });
    expect(r.out).toBe(
      [
        "quote:     qt_1 (expires in 5 min)",
        "offer:     sim l40s x1, us-east (sim:h1-g1)",
        "rate:      $0.93/h (compute $0.92, bandwidth $0.01)",
        "ceiling:   $2.16 (by ttl; $0.22 of it stopped disk; $0.08 waiting for outputs)",
        "policy:    ttl 2h, max lifetime 1d",
        "fallbacks: 1 (of 4 offers that fit)",
        "",
      ].join("\n"),
    );
  });

  it("quote: the ceiling names what replacing failed hosts may add, and a sub-cent figure as such", async () => {
    const base = { id: "qt_2", created_at: at(0), expires_at: at(5), kind: "job", spec: { gpu: "l40s:1" }, policy: { ttl: null, max_lifetime: "1d" }, fallbacks: [], candidates: 1,
      hourly_usd: 1.2, estimate: { label: "estimate", hourly_usd: 1.2, parts: { compute_usd: 1.2, bandwidth_usd: 0 }, bandwidth_gb_per_hour: { down: 10, up: 2 } }, ceiling_basis: "max_lifetime" };
    const ceilingOf = async (parts: Record<string, number>, total: number) => {
      fakeApi({ "POST /v1/quotes": { ...base, offer: { id: "sim:a", provider: "sim", provider_offer_id: "a", gpu: "l40s", gpu_count: 1, region: "us-east" }, ceiling_usd: total, ceiling_parts: { compute_usd: 28.8, bandwidth_usd: 0, ...parts } } });
      return (await run(["quote", "--gpu", "l40s:1"])).out.split("\n").find((l) => l.startsWith("ceiling:"));
    };
    expect(await ceilingOf({ stopped_disk_usd: 0, retries_usd: 0.44 }, 29.24)).toBe("ceiling:   $29.24 (by max_lifetime; $0.44 replaced hosts)");
    expect(await ceilingOf({ stopped_disk_usd: 0.22, retries_usd: 0.0001 }, 29.0201)).toBe("ceiling:   $29.02 (by max_lifetime; $0.22 of it stopped disk; <$0.01 replaced hosts)");
    expect(await ceilingOf({ stopped_disk_usd: 0, retries_usd: 0 }, 28.8)).toBe("ceiling:   $28.80 (by max_lifetime)");
    expect(await ceilingOf({ stopped_disk_usd: 0, retries_usd: 0, drift_usd: 1.44 }, 30.24)).toBe("ceiling:   $30.24 (by max_lifetime; $1.44 price drift)");
  });
});

describe("money and admin commands", () => {
  it("budget set: dollars or none, only the caps given", async () => {
    const budget: S["Budget"] = {
      monthly_usd: 100,
      concurrent_hourly_usd: null,
      month: "2026-12",
      month_committed_usd: 12.5,
      live_hourly_usd: 0.92,
      updated_at: at(-60),
    };
    const seen = fakeApi({ "PUT /v1/budget": budget });
    const r = await run(["budget", "set", "--monthly", "100", "--concurrent-hourly", "none"]);
    expect(seen[0]!.body).toEqual({ monthly_usd: 100, concurrent_hourly_usd: null });
    expect(r.out).toBe(
      ["month:       2026-12", "monthly cap: $100.00", "committed:   $12.50 this month", "hourly cap:  none", "live rate:   $0.92/h", "updated:     1 h ago", ""].join(
        "\n",
      ),
    );
    const none = await run(["budget", "set"]);
    expect(none).toMatchObject({ code: 2, err: "error: budget set needs --monthly or --concurrent-hourly\n" });
  });

  it("receipts: actual beside the estimate", async () => {
    fakeApi({
      "GET /v1/receipts": {
        data: [
          {
            id: "rc_1",
            lease_id: ID,
            provider: "sim",
            gpu: "l40s",
            status: "settled",
            actual_usd: 1.5,
            estimate_usd: 1.45,
            difference_usd: 0.05,
            components: {},
            window_count: 1,
            billed_from: at(-120),
            released_at: at(-60),
            created_at: at(-30),
          },
        ],
        next_cursor: null,
      },
    });
    expect((await run(["receipts"])).out).toMatch(new RegExp(`^rc_1 +${ID} +sim +l40s +settled +\\$1\\.50 +\\$1\\.45 +\\$0\\.05 +30 min ago$`, "m"));
  });

  it("keys ls: 200 a page unless --limit says otherwise; --cursor asks for the page its hint named", async () => {
    const key: S["ApiKey"] = { id: "key_1", name: "ci", prefix: "lsr_ab", scope: "read", created_at: at(-30), revoked_at: null };
    const seen = fakeApi({ "GET /v1/keys": { data: [key], next_cursor: "c2" } });
    const first = await run(["keys", "ls"]);
    expect(first.out).toMatch(/^key_1 +ci +read +lsr_ab +30 min ago/m);
    expect(first.err).toBe("more: lessor keys ls --cursor c2\n");
    expect((await run(["keys", "ls", "--limit", "5", "--cursor", "c2"])).code).toBe(0);
    expect(seen.map((s) => s.query)).toEqual([{ limit: "200" }, { limit: "5", cursor: "c2" }]);
  });

  it("providers set: the key from stdin into the body, never onto the output", async () => {
    const provider: S["Provider"] = {
      name: "runpod",
      needs_key: true,
      configured: true,
      usable: true,
      capabilities: { stop: true, start: true, list_by_label: true, billing_records: true, webhooks: false, stop_ends_billing: false, spot: true, run_agent: true, volumes: true },
      options: {},
      option_fields: [],
      updated_at: at(0),
      ingress_token_created_at: null,
      verification: { status: "ok", at: at(0), error: null },
      market: { refreshed_at: null, stale: true, attempted_at: null, error: null },
    };
    const seen = fakeApi({ "PUT /v1/providers/runpod": provider });
    const r = await run(["providers", "set", "runpod", "--option", "region=eu"], { stdin: "rp_secret\n" });
    expect(r.code).toBe(0);
    expect(seen[0]!.body).toEqual({ api_key: "rp_secret", options: { region: "eu" } });
    expect(r.out).toBe("runpod: key stored; verification ok now\n");
    expect(r.out + r.err).not.toContain("rp_secret");
  });

  it("an API error: its message on stderr, its class as the exit code, the envelope with --json", async () => {
    fakeApi({});
    const r = await run(["keys", "revoke", "key_1", "--json"]);
    expect(r.code).toBe(3);
    expect(r.err).toBe("error: no route for DELETE /v1/keys/key_1\n");
    expect(JSON.parse(r.out)).toEqual({ error: { code: "not_found", message: "no route for DELETE /v1/keys/key_1", details: {} }, exit_code: 3, request_id: "req_1" });
  });
});
