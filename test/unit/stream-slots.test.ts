/**
 * The pure parts of the caps on open streams and long polls (src/auth/stream-slots.ts) and of a
 * lease token's budgets (src/occupant/agent-budget.ts, src/auth/rate-limiter.ts): which limit a
 * slot is refused by, that a slot given back or not renewed frees its place, and what a chunk of
 * log bytes costs.
 */
import { describe, expect, it } from "vitest";
import { TokenBucket } from "../../src/auth/token-bucket";
import {
  AGENT_POLLS_PER_LEASE,
  agentPollClaim,
  DEFAULT_AGENT_POLLS_PER_ORG,
  DEFAULT_STREAMS_PER_CREDENTIAL,
  DEFAULT_STREAMS_PER_ORG,
  SLOT_RENEW_MS,
  SLOT_TTL_MS,
  slotRefused,
  SlotTable,
  streamClaim,
  type SlotClaim,
} from "../../src/auth/stream-slots";
import { AgentBudget, agentLimits, DEFAULT_AGENT_LOG_BYTES_PER_MINUTE, DEFAULT_AGENT_RATE_LIMIT_PER_MINUTE } from "../../src/occupant/agent-budget";
import { LOG_CHUNK_MAX_BYTES } from "../../src/occupant/logs";
import type { Env } from "../../src/env";

const T0 = 1_000_000;
const claim = (credential: string, over: Partial<SlotClaim> = {}): SlotClaim => ({ org_id: "org_1", pool: "streams", credential, per_credential: 2, per_org: 3, ...over });

describe("SlotTable", () => {
  it("refuses past the credential's limit first, then past the org's; a refusal takes nothing", () => {
    const t = new SlotTable();
    const steps: [string, string, ReturnType<SlotTable["acquire"]>][] = [
      ["s1", "a", null],
      ["s2", "a", null],
      ["s3", "a", { refused: "streams", per: "credential", max: 2 }],
      ["s4", "b", null],
      ["s5", "c", { refused: "streams", per: "org", max: 3 }],
      ["s6", "b", { refused: "streams", per: "org", max: 3 }],
    ];
    for (const [id, credential, expected] of steps) expect(t.acquire(id, claim(credential), T0), id).toEqual(expected);
    expect(t.size(T0)).toBe(3);
  });

  it("counts the two pools apart, so an org's agents never crowd out its people", () => {
    const t = new SlotTable();
    for (let i = 0; i < 3; i++) expect(t.acquire(`p${i}`, claim(`lease:${i}`, { pool: "agent_polls" }), T0)).toBeNull();
    expect(t.acquire("s", claim("a"), T0)).toBeNull();
    expect(t.acquire("p3", claim("lease:9", { pool: "agent_polls" }), T0)).toEqual({ refused: "agent_polls", per: "org", max: 3 });
  });

  it("a slot given back frees its place at once", () => {
    const t = new SlotTable();
    t.acquire("s1", claim("a"), T0);
    t.acquire("s2", claim("a"), T0);
    t.release("s1");
    t.release("unknown");
    expect(t.acquire("s3", claim("a"), T0)).toBeNull();
  });

  it("a slot not renewed within SLOT_TTL_MS is dropped (its holder went away); one renewed is kept, and taken again by a table that forgot it", () => {
    expect(SLOT_RENEW_MS * 2).toBeLessThan(SLOT_TTL_MS);
    const t = new SlotTable();
    t.acquire("kept", claim("a"), T0);
    t.acquire("lost", claim("a"), T0);
    t.renew([{ id: "kept", pool: "streams", credential: "a" }], T0 + SLOT_RENEW_MS);
    expect(t.size(T0 + SLOT_TTL_MS - 1)).toBe(2);
    expect(t.size(T0 + SLOT_TTL_MS)).toBe(1);
    expect(t.acquire("new", claim("a"), T0 + SLOT_TTL_MS)).toBeNull();
    // A counter evicted meanwhile learns the open ones from their renewals, never refusing one.
    const fresh = new SlotTable();
    fresh.renew(["x", "y", "z", "w"].map((id) => ({ id, pool: "streams" as const, credential: "a" })), T0);
    expect(fresh.size(T0)).toBe(4);
    expect(fresh.acquire("v", claim("b"), T0)).toEqual({ refused: "streams", per: "org", max: 3 });
  });
});

describe("claims and refusals", () => {
  it("a user's stream counts against its credential and org with the settings or their defaults", () => {
    const principal = { org_id: "org_1", scope: "read" as const, kind: "api_key" as const, subject: "key_1" };
    expect(streamClaim({} as Env, principal)).toEqual({
      org_id: "org_1",
      pool: "streams",
      credential: "api_key:key_1",
      per_credential: DEFAULT_STREAMS_PER_CREDENTIAL,
      per_org: DEFAULT_STREAMS_PER_ORG,
    });
    expect([DEFAULT_STREAMS_PER_CREDENTIAL, DEFAULT_STREAMS_PER_ORG]).toEqual([20, 100]);
    expect(streamClaim({ LESSOR_STREAMS_PER_CREDENTIAL: "5", LESSOR_STREAMS_PER_ORG: "nonsense" } as Env, principal)).toMatchObject({ per_credential: 5, per_org: 100 });
    expect(agentPollClaim("org_1", "ls_1", 7)).toEqual({ org_id: "org_1", pool: "agent_polls", credential: "lease:ls_1", per_credential: AGENT_POLLS_PER_LEASE, per_org: 7 });
  });

  it("a refused slot is 429 rate_limited naming the pool, the limit and Retry-After", () => {
    const e = slotRefused({ refused: "agent_polls", per: "credential", max: 2 });
    expect([e.status, e.code, e.headers]).toEqual([429, "rate_limited", { "Retry-After": "5" }]);
    expect(e.details).toEqual({ budget: "agent_polls", per: "credential", max: 2, retry_after_s: 5 });
    expect(e.message).toBe("at most 2 open agent long polls per lease token: close one first");
    expect(slotRefused({ refused: "streams", per: "org", max: 100 }).message).toBe("at most 100 open event streams and log follows per org: close one first");
  });
});

describe("a lease token's budgets", () => {
  it("defaults: 600 calls, 8 MiB of log and 1,000 org polls a minute; the log budget is never below one chunk", () => {
    expect(agentLimits({} as Env)).toEqual({ requests_per_minute: 600, log_bytes_per_minute: 8 * 1024 * 1024, polls_per_org: DEFAULT_AGENT_POLLS_PER_ORG });
    expect([DEFAULT_AGENT_RATE_LIMIT_PER_MINUTE, DEFAULT_AGENT_LOG_BYTES_PER_MINUTE, DEFAULT_AGENT_POLLS_PER_ORG]).toEqual([600, 8388608, 1000]);
    expect(agentLimits({ LESSOR_AGENT_LOG_BYTES_PER_MINUTE: "10" } as Env).log_bytes_per_minute).toBe(LOG_CHUNK_MAX_BYTES);
  });

  it("a bucket spends many units at once, or none, and says when it will hold them", () => {
    const b = new TokenBucket();
    expect(b.spend(600, T0, 400)).toEqual({ allowed: true, limit: 600, remaining: 200, retry_after_s: 0 });
    // 300 more need 100 refilled: 10 s at 600 a minute. A refusal spends nothing.
    expect(b.spend(600, T0, 300)).toEqual({ allowed: false, limit: 600, remaining: 200, retry_after_s: 10 });
    expect(b.spend(600, T0, 200)).toMatchObject({ allowed: true, remaining: 0 });
    expect(b.spend(600, T0, 601).allowed).toBe(false);
    expect(b.spend(600, T0 + 60_000, 600)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("a call spends one of the calls a minute; a log chunk its bytes too; past either, 429 rate_limited naming it", () => {
    const limits = { requests_per_minute: 3, log_bytes_per_minute: 100, polls_per_org: 1 };
    const budget = new AgentBudget();
    const log = (n: number) => ({ op: "log" as const, seq: 0, data: new Uint8Array(n) });
    expect(budget.spend({ op: "heartbeat" }, limits, T0)).toBeNull();
    expect(budget.spend(log(60), limits, T0)).toBeNull();
    expect(budget.spend(log(60), limits, T0)).toEqual({
      ok: false,
      status: 429,
      code: "rate_limited",
      message: "over the budget of 100 log bytes a minute for this lease token",
      details: { budget: "log_bytes", limit_per_minute: 100, retry_after_s: 12 },
      retry_after_s: 12,
    });
    expect(budget.spend({ op: "heartbeat" }, limits, T0)).toMatchObject({ status: 429, details: { budget: "lease_token", limit_per_minute: 3, retry_after_s: 20 } });
    expect(budget.spend({ op: "heartbeat" }, limits, T0 + 20_000)).toBeNull();
  });
});
