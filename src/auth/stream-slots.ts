/**
 * Open streams and long polls, counted per credential and per org (docs/api.md "Rate limits"): a
 * request budget bounds how often a credential asks, not how many answers it holds open at once,
 * and every open event stream, log follow or agent long poll holds a request and a place in a
 * Durable Object's memory for as long as it lasts.
 *
 * Each open one holds a slot. An org's slots are counted in one `RateLimiter` object
 * (`streams:<org id>`, docs/storage.md), since its streams are held by many objects (each lease's,
 * the org's event log). The object that holds a stream takes its slot before it opens it
 * (`HeldSlots.take`), gives it back when the stream ends, whether the lease was released or the
 * client went away (src/events/sse.ts `overRpc`), and renews it every SLOT_RENEW_MS while it is
 * open. A slot that is not renewed within SLOT_TTL_MS is dropped, so a holder that vanished
 * (evicted, restarted) frees its slots within a minute. Memory only, like the request budgets: an
 * evicted counter forgets its slots and learns the open ones again from their renewals, which errs
 * on the side of serving.
 */
import type { Env } from "../env";
import { intSetting } from "../env";
import { ApiError } from "../errors";
import type { Principal } from "./principal";

/** Event streams and log follows (a user's credentials), or the agents' long polls (lease tokens): counted apart, so neither crowds out the other. */
export type SlotPool = "streams" | "agent_polls";

export const DEFAULT_STREAMS_PER_CREDENTIAL = 20;
export const DEFAULT_STREAMS_PER_ORG = 100;
/** A machine's agent polls once at a time; one more for a poll whose client gave up while lessor still waits. */
export const AGENT_POLLS_PER_LEASE = 2;
export const DEFAULT_AGENT_POLLS_PER_ORG = 1000;
/** A slot not renewed for this long is dropped: its holder went away without giving it back. */
export const SLOT_TTL_MS = 60_000;
/** How often a holder renews the slots of the streams it holds open. */
export const SLOT_RENEW_MS = 20_000;
/** What a refusal's Retry-After says: when a slot is given back is not known ahead. */
export const SLOTS_RETRY_AFTER_S = 5;

/** What a slot is taken for, and the limits it is taken against. */
export interface SlotClaim {
  org_id: string;
  pool: SlotPool;
  /** The credential holding it: `api_key:<key id>`, `jwt:<issuer id>:<sub>`, `lease:<lease id>`. */
  credential: string;
  per_credential: number;
  per_org: number;
}

export interface SlotRefusal {
  refused: SlotPool;
  per: "credential" | "org";
  max: number;
}

interface Slot {
  pool: SlotPool;
  credential: string;
  expires_at: number;
}

/** One org's slots, in its counter's memory. No I/O and no clock: `now` is passed in. */
export class SlotTable {
  readonly #slots = new Map<string, Slot>();

  /** Takes slot `id` for `claim`, or says which limit is full (a refusal takes nothing). */
  acquire(id: string, claim: SlotClaim, now: number): SlotRefusal | null {
    this.#expire(now);
    let org = 0;
    let mine = 0;
    for (const s of this.#slots.values()) {
      if (s.pool !== claim.pool) continue;
      org++;
      if (s.credential === claim.credential) mine++;
    }
    if (mine >= claim.per_credential) return { refused: claim.pool, per: "credential", max: claim.per_credential };
    if (org >= claim.per_org) return { refused: claim.pool, per: "org", max: claim.per_org };
    this.#slots.set(id, { pool: claim.pool, credential: claim.credential, expires_at: now + SLOT_TTL_MS });
    return null;
  }

  /** The holder still holds these: kept another SLOT_TTL_MS, and taken again if this table forgot them (never refused). */
  renew(held: readonly { id: string; pool: SlotPool; credential: string }[], now: number): void {
    for (const h of held) this.#slots.set(h.id, { pool: h.pool, credential: h.credential, expires_at: now + SLOT_TTL_MS });
  }

  release(id: string): void {
    this.#slots.delete(id);
  }

  /** How many are held now. */
  size(now: number): number {
    this.#expire(now);
    return this.#slots.size;
  }

  #expire(now: number): void {
    for (const [id, s] of this.#slots) if (s.expires_at <= now) this.#slots.delete(id);
  }
}

/** The slot claim of a user's stream (an event stream or a log follow) by `principal`. */
export function streamClaim(env: Env, principal: Principal): SlotClaim {
  return {
    org_id: principal.org_id,
    pool: "streams",
    credential: `${principal.kind}:${principal.subject}`,
    per_credential: intSetting(env.LESSOR_STREAMS_PER_CREDENTIAL, DEFAULT_STREAMS_PER_CREDENTIAL),
    per_org: intSetting(env.LESSOR_STREAMS_PER_ORG, DEFAULT_STREAMS_PER_ORG),
  };
}

/** The slot claim of a lease's agent's long poll. */
export function agentPollClaim(orgId: string, leaseId: string, perOrg: number): SlotClaim {
  return { org_id: orgId, pool: "agent_polls", credential: `lease:${leaseId}`, per_credential: AGENT_POLLS_PER_LEASE, per_org: perOrg };
}

const WHAT: Record<SlotPool, string> = { streams: "open event streams and log follows", agent_polls: "open agent long polls" };

/** The 429 of a refused slot, in the one envelope (`details.budget` names the pool). */
export function slotRefused(r: SlotRefusal): ApiError {
  const whose = r.per === "credential" ? (r.refused === "streams" ? "credential" : "lease token") : "org";
  return new ApiError(
    429,
    "rate_limited",
    `at most ${r.max} ${WHAT[r.refused]} per ${whose}: close one first`,
    { budget: r.refused, per: r.per, max: r.max, retry_after_s: SLOTS_RETRY_AFTER_S },
    { "Retry-After": String(SLOTS_RETRY_AFTER_S) },
  );
}

export const isSlotRefusal = (v: unknown): v is SlotRefusal => typeof v === "object" && v !== null && "refused" in v;

/** What a holder answered for a stream: the stream (or its other answer), or the 429 of its refused slot. */
export function slotted<T>(answer: T | SlotRefusal): T {
  if (isSlotRefusal(answer)) throw slotRefused(answer);
  return answer;
}

function counter(env: Env, orgId: string) {
  return env.LIMITER.get(env.LIMITER.idFromName(`streams:${orgId}`));
}

/**
 * The slots one Durable Object holds for the streams and polls it has open, renewed together by
 * one timer while any is held. `take` answers the slot's release (idempotent), or the refusal.
 */
export class HeldSlots {
  readonly #env: Env;
  readonly #held = new Map<string, SlotClaim>();
  #timer: ReturnType<typeof setInterval> | null = null;

  constructor(env: Env) {
    this.#env = env;
  }

  async take(claim: SlotClaim): Promise<(() => void) | SlotRefusal> {
    const id = crypto.randomUUID();
    const refused = await counter(this.#env, claim.org_id).acquireSlot(id, claim);
    if (refused) return refused;
    this.#held.set(id, claim);
    this.#timer ??= setInterval(() => this.#renew(), SLOT_RENEW_MS);
    return () => {
      if (!this.#held.delete(id)) return;
      if (this.#held.size === 0 && this.#timer !== null) {
        clearInterval(this.#timer);
        this.#timer = null;
      }
      // Best effort: a release that is lost expires with its slot's TTL.
      counter(this.#env, claim.org_id).releaseSlot(id).catch(() => undefined);
    };
  }

  /** One renewal per org of everything held (an object's streams are nearly always one org's). */
  #renew(): void {
    const byOrg = new Map<string, { id: string; pool: SlotPool; credential: string }[]>();
    for (const [id, c] of this.#held) byOrg.set(c.org_id, [...(byOrg.get(c.org_id) ?? []), { id, pool: c.pool, credential: c.credential }]);
    for (const [orgId, held] of byOrg) counter(this.#env, orgId).renewSlots(held).catch(() => undefined);
  }
}
