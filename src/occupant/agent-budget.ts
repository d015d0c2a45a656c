/**
 * A lease token's budgets (docs/api.md "Rate limits"), as an API key has one: its calls a minute, and
 * the log bytes it sends a minute, each a token bucket (src/auth/rate-limiter.ts) kept in the
 * lease's object beside the token's hash, so a call makes no other round trip. Memory only: an
 * evicted object starts with full buckets, which errs on the side of serving. The agent's long
 * polls hold slots besides (src/auth/stream-slots.ts). Agents do not spend their org's request
 * budget: an org's machines would otherwise crowd out its people.
 */
import { intSetting, type Env } from "../env";
import { TokenBucket, type RateDecision } from "../auth/token-bucket";
import { DEFAULT_AGENT_POLLS_PER_ORG } from "../auth/stream-slots";
import { LOG_CHUNK_MAX_BYTES } from "./logs";
import type { AgentCall, AgentRefusal } from "./occupant";

export const DEFAULT_AGENT_RATE_LIMIT_PER_MINUTE = 600;
/** Half the log's cap (LOG_CAP_BYTES) a minute; agent.sh sends at most 64 KiB a call. */
export const DEFAULT_AGENT_LOG_BYTES_PER_MINUTE = 8 * 1024 * 1024;

/** The limits a route passes with each agent call (the sim, which is no route, passes none). */
export interface AgentLimits {
  requests_per_minute: number;
  /** At least LOG_CHUNK_MAX_BYTES, so that any chunk the route accepts can pass. */
  log_bytes_per_minute: number;
  polls_per_org: number;
}

export function agentLimits(env: Env): AgentLimits {
  return {
    requests_per_minute: intSetting(env.LESSOR_AGENT_RATE_LIMIT_PER_MINUTE, DEFAULT_AGENT_RATE_LIMIT_PER_MINUTE),
    log_bytes_per_minute: Math.max(LOG_CHUNK_MAX_BYTES, intSetting(env.LESSOR_AGENT_LOG_BYTES_PER_MINUTE, DEFAULT_AGENT_LOG_BYTES_PER_MINUTE)),
    polls_per_org: intSetting(env.LESSOR_AGENT_POLLS_PER_ORG, DEFAULT_AGENT_POLLS_PER_ORG),
  };
}

/** One lease token's buckets. */
export class AgentBudget {
  readonly #calls = new TokenBucket();
  readonly #logBytes = new TokenBucket();

  /** One unit of the call budget, and a chunk's bytes of the log budget; the refusal past either. */
  spend(call: AgentCall, limits: AgentLimits, now: number): AgentRefusal | null {
    const calls = this.#calls.spend(limits.requests_per_minute, now, 1);
    if (!calls.allowed) return refusal(calls, "lease_token", `over the budget of ${calls.limit} calls a minute for this lease token`);
    if (call.op !== "log") return null;
    const bytes = this.#logBytes.spend(limits.log_bytes_per_minute, now, call.data.byteLength);
    return bytes.allowed ? null : refusal(bytes, "log_bytes", `over the budget of ${bytes.limit} log bytes a minute for this lease token`);
  }
}

function refusal(d: RateDecision, budget: "lease_token" | "log_bytes", message: string): AgentRefusal {
  return { ok: false, status: 429, code: "rate_limited", message, details: { budget, limit_per_minute: d.limit, retry_after_s: d.retry_after_s }, retry_after_s: d.retry_after_s };
}
