/**
 * `POST /v1/ingress/:provider/:token`: a provider's webhook, taken as a hint to reconcile and never
 * as the truth (guarantee 11; STYLE.md rule 8). What it may do is poke the lease that holds the
 * machine it names: the lease's object then reads the machine back from the provider, as its alarm
 * and the cron backstop do, and acts on what it reads. Nothing in the payload is kept as state.
 *
 * In order: ingress off (no LESSOR_INGRESS_TOKEN) -> 404; a wrong token -> 401; a provider it
 * does not take -> 404; the provider's proof (verify.ts) fails -> 401; an event id seen in the
 * last 24 h -> 200, nothing done; a body that is not JSON -> 400; no machine named, or one no live
 * lease holds -> 202, ignored; else 202 and the lease is poked after the answer (docs/ingress.md).
 */
import type { Env } from "../env";
import { batch, database } from "../db";
import { ApiError, badRequest } from "../errors";
import { secretEquals } from "../ids";
import { pokeAll } from "../lease/reaper";
import { listedProviderNames } from "../providers/names";
import { deliveryRecord } from "./dedup";
import { ingressProvider } from "./providers";

/** The most leases one event pokes (a machine is held by one live lease; this only bounds a bad index). */
const MAX_POKES = 10;

export type IngressResult = "accepted" | "ignored" | "duplicate";

export interface IngressAnswer {
  result: IngressResult;
  /** The provider's id for the event, when it gives one. */
  event_id: string | null;
  /** For `ignored`: why. */
  reason: "no_machine" | "unknown_machine" | null;
}

export interface IngressOutcome {
  status: 200 | 202;
  answer: IngressAnswer;
  /** The leases to poke once the answer is sent. */
  leases: string[];
  /** When the change it tells of had happened by (providers.ts `toldAt`); null: unknown. */
  told_at: number | null;
}

export interface IngressRequest {
  provider: string;
  token: string;
  headers: Headers;
  body: string;
}

const notFound = (path: string) => new ApiError(404, "not_found", `no route for POST ${path}`);

/** The ingress entry of `provider` when ingress takes its webhooks and this installation rents from it; else null. */
function providerOf(env: Env, provider: string) {
  const spec = ingressProvider(provider);
  if (!spec || !listedProviderNames(env.LESSOR_PROVIDERS).includes(provider)) return null;
  return spec;
}

export async function receiveIngress(env: Env, req: IngressRequest, now: number): Promise<IngressOutcome> {
  const token = env.LESSOR_INGRESS_TOKEN;
  // Off: as if the route did not exist (the path, which holds what was sent as a token, is not shown).
  if (!token) throw notFound("/v1/ingress/...");
  // The token first, so that only its holder learns which providers are taken.
  if (!(await secretEquals(req.token, token))) throw new ApiError(401, "unauthenticated", "the ingress token is not this installation's");
  const spec = providerOf(env, req.provider);
  if (!spec) throw notFound(`/v1/ingress/${req.provider.slice(0, 32)}/...`);

  const verified = await spec.verify(env, token, req.headers, req.body, now);
  const { event_id } = verified;
  const db = database(env.DB);
  // The machine is looked up in the same round trip as the event id is recorded; what the body
  // holds is judged only once the delivery is known to be new, so a duplicate is a duplicate
  // whatever it carries.
  let body: unknown = null;
  let unreadable: ApiError | null = null;
  try {
    body = parseBody(req.body);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    unreadable = e;
  }
  const machineId = unreadable ? null : machineOf(body, spec.machineFields);
  const lookup =
    machineId === null
      ? null
      : db
          .selectFrom("leases")
          .select("id")
          .where("provider", "=", req.provider)
          .where("machine_id", "=", machineId)
          .where("state", "!=", "released")
          .limit(MAX_POKES);
  const results = await batch(env.DB, [
    ...(event_id === null ? [] : [deliveryRecord(db, req.provider, event_id, now)]),
    ...(lookup ? [lookup] : []),
  ]);
  const recorded = event_id === null ? null : results.shift()!;
  const rows = lookup ? results.shift()! : null;
  if (recorded && recorded.length === 0) return { status: 200, answer: { result: "duplicate", event_id, reason: null }, leases: [], told_at: null };
  if (unreadable) throw unreadable;
  if (!rows) return { status: 202, answer: { result: "ignored", event_id, reason: "no_machine" }, leases: [], told_at: null };
  if (rows.length === 0) return { status: 202, answer: { result: "ignored", event_id, reason: "unknown_machine" }, leases: [], told_at: null };
  return { status: 202, answer: { result: "accepted", event_id, reason: null }, leases: rows.map((r) => String(r.id)), told_at: spec.toldAt(body, verified) };
}

function parseBody(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw badRequest("invalid_request", "the body is not valid JSON");
  }
}

/** The machine id the payload names, at its top level or under `data`; null when none. */
function machineOf(payload: unknown, fields: readonly string[]): string | null {
  for (const where of [payload, (payload as { data?: unknown } | null)?.data]) {
    if (typeof where !== "object" || where === null || Array.isArray(where)) continue;
    for (const field of fields) {
      const value = (where as Record<string, unknown>)[field];
      if (typeof value === "string" && value.length > 0 && value.length <= 256) return value;
      if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
    }
  }
  return null;
}

/**
 * Pokes each lease's object to run its policy now, as the cron backstop does (src/lease/reaper.ts):
 * it reads its machine back and acts on what it reads, unless it has read it since `toldAt`. A
 * failed poke is logged; the lease's alarm and the backstop still come.
 */
export async function pokeLeases(env: Env, leaseIds: readonly string[], toldAt: number | null = null): Promise<void> {
  const failed = await pokeAll(env, leaseIds, toldAt);
  if (failed > 0) console.warn(JSON.stringify({ msg: "ingress: pokes failed", failed, leases: leaseIds }));
}
