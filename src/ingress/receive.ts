/**
 * `POST /v1/ingress/:provider/:token`: a provider's webhook, taken as a hint to reconcile and never
 * as the truth (guarantee 11; STYLE.md rule 8). What it may do is poke the lease that holds the
 * machine it names: the lease's object then reads the machine back from the provider, as its alarm
 * and the cron backstop do, and acts on what it reads. Nothing in the payload is kept as state.
 *
 * The token names the provider account the delivery is for (accounts.ts): the installation's own
 * (the sim's: LESSOR_INGRESS_TOKEN) or one org's, whose leases alone it may poke, so a delivery
 * never makes lessor call another org's provider key (issue 28 item 8).
 *
 * In order: a provider it does not take -> 404; the sim's ingress off (no LESSOR_INGRESS_TOKEN)
 * -> 404; the installation's token on an org-account provider -> 410 (its URL is retired); a
 * malformed token -> 401; the provider's proof (verify.ts) fails -> 401; then one D1 batch: a
 * token no account holds -> 401; an event id its account took in in the last 24 h -> 200, nothing
 * done; its account past its cap of event ids -> 429; a body that is not JSON -> 400; no machine
 * named, or one none of the account's live leases holds -> 202, ignored; else 202 and the lease is
 * poked after the answer (docs/ingress.md).
 */
import type { Env } from "../env";
import { batch, database, type Db } from "../db";
import { capReached, creationCaps, retryAfterS } from "../db/creation-caps";
import { ApiError, badRequest } from "../errors";
import { secretEquals, sha256Hex } from "../ids";
import { pokeAll } from "../lease/reaper";
import { listedProviderNames } from "../providers/names";
import { accountOfToken, INGRESS_TOKEN_PATTERN, INSTALLATION_ACCOUNT } from "./accounts";
import { accountAndLastSeen, deliveryRecord, INGRESS_DEDUP_WINDOW_MS, type AccountExpression } from "./dedup";
import { ingressProvider, type IngressProvider } from "./providers";
import type { Verified } from "./verify";

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
const unauthenticated = (message: string) => new ApiError(401, "unauthenticated", message);

/** The ingress entry of `provider` when ingress takes its webhooks and this installation rents from it; else null. */
function providerOf(env: Env, provider: string) {
  const spec = ingressProvider(provider);
  if (!spec || !listedProviderNames(env.LESSOR_PROVIDERS).includes(provider)) return null;
  return spec;
}

/**
 * The account a delivery's token names, as an expression for its batch (`account` null: looked up
 * there), once the token and the provider's proof are checked; throws what the checks answer.
 */
async function authenticated(env: Env, db: Db, spec: IngressProvider, req: IngressRequest, now: number): Promise<{ account: AccountExpression; scoped: boolean; verified: Verified }> {
  const installation = env.LESSOR_INGRESS_TOKEN;
  if (spec.accounts === "installation") {
    // Off: as if the route did not exist (the path, which holds what was sent as a token, is not shown).
    if (!installation) throw notFound("/v1/ingress/...");
    if (!(await secretEquals(req.token, installation))) throw unauthenticated("the ingress token is not this installation's");
    return { account: INSTALLATION_ACCOUNT, scoped: false, verified: await spec.verify(env, installation, req.headers, req.body, now) };
  }
  // The installation's token once took every provider's webhooks, for every org's leases; it no
  // longer names an account here, and says so rather than a bare 401 (docs/ingress.md "Upgrading").
  if (installation && (await secretEquals(req.token, installation))) {
    throw new ApiError(
      410,
      "ingress_url_retired",
      `this URL no longer takes ${req.provider} webhooks: each org's account has its own (POST /v1/providers/${req.provider}/ingress-token)`,
      { provider: req.provider },
    );
  }
  // A token of any other shape is no account's: refused before D1 is read.
  if (!INGRESS_TOKEN_PATTERN.test(req.token)) throw unauthenticated("the ingress token is not one of this provider's accounts");
  const verified = await spec.verify(env, req.token, req.headers, req.body, now);
  return { account: accountOfToken(db, req.provider, await sha256Hex(req.token)), scoped: true, verified };
}

export async function receiveIngress(env: Env, req: IngressRequest, now: number): Promise<IngressOutcome> {
  // The provider first: whether ingress takes one is no secret (docs/ingress.md lists them).
  const spec = providerOf(env, req.provider);
  if (!spec) throw notFound(`/v1/ingress/${req.provider.slice(0, 32)}/...`);
  const db = database(env.DB);
  const { account, scoped, verified } = await authenticated(env, db, spec, req, now);
  const { event_id } = verified;
  const cap = creationCaps(env).ingress_events;
  // The account, whether the event id is new, and the lease holding the machine, in one round
  // trip; what the body holds is judged only once the delivery is known to be new, so a duplicate
  // is a duplicate whatever it carries.
  let body: unknown = null;
  let unreadable: ApiError | null = null;
  try {
    body = parseBody(req.body);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    unreadable = e;
  }
  const machineId = unreadable ? null : machineOf(body, spec.machineFields);
  let lookup =
    machineId === null
      ? null
      : db
          .selectFrom("leases")
          .select("id")
          .where("provider", "=", req.provider)
          .where("machine_id", "=", machineId)
          .where("state", "!=", "released")
          .limit(MAX_POKES);
  // An org's account finds only its org's leases: its hint is never read back with another's key.
  if (lookup && scoped) lookup = lookup.where("org_id", "=", account);
  const results = await batch(env.DB, [
    accountAndLastSeen(db, account, req.provider, event_id),
    ...(event_id === null ? [] : [deliveryRecord(db, account, req.provider, event_id, now, cap)]),
    ...(lookup ? [lookup] : []),
  ]);
  const head = results.shift()![0] as { account: string | null; seen_at: number | null } | undefined;
  const recorded = event_id === null ? null : results.shift()!;
  const rows = lookup ? results.shift()! : null;
  if (!head || head.account === null) throw unauthenticated("the ingress token is not one of this provider's accounts");
  if (recorded && recorded.length === 0) {
    if (head.seen_at !== null && head.seen_at >= now - INGRESS_DEDUP_WINDOW_MS) {
      return { status: 200, answer: { result: "duplicate", event_id, reason: null }, leases: [], told_at: null };
    }
    // New, and not recorded: the account has taken in its cap of event ids in the window.
    throw capReached("ingress_events", cap, retryAfterS(await oldestEvent(db, head.account, req.provider, now), now));
  }
  if (unreadable) throw unreadable;
  if (!rows) return { status: 202, answer: { result: "ignored", event_id, reason: "no_machine" }, leases: [], told_at: null };
  if (rows.length === 0) return { status: 202, answer: { result: "ignored", event_id, reason: "unknown_machine" }, leases: [], told_at: null };
  return { status: 202, answer: { result: "accepted", event_id, reason: null }, leases: rows.map((r) => String(r.id)), told_at: spec.toldAt(body, verified) };
}

/** When the oldest event id the account's cap counts was taken in (null: none left), for Retry-After. */
async function oldestEvent(db: Db, account: string, provider: string, now: number): Promise<number | null> {
  const row = await db
    .selectFrom("ingress_events")
    .select((eb) => eb.fn.min<number>("received_at").as("oldest"))
    .where("account", "=", account)
    .where("provider", "=", provider)
    .where("received_at", ">=", now - INGRESS_DEDUP_WINDOW_MS)
    .executeTakeFirst();
  return row?.oldest ?? null;
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
