/**
 * Whose provider account a webhook delivery is for (issue 28, hardening item 8; docs/ingress.md
 * "Accounts and tokens"). A provider account is an org's own key for the provider (a
 * `provider_keys` row) or, for the sim, the installation's. Each takes webhooks under a token of
 * its own, so a delivery reaches only the leases of the org whose account it came in under, and
 * the read-back it causes is made with that org's key, never another's.
 *
 * An org's account's token is minted on request (`POST /v1/providers/:name/ingress-token`), shown
 * once, and stored as its SHA-256, as an API key is (guarantee 9): minting again replaces it, and
 * deleting the key forgets it. It is not derived from an installation secret: a derived token
 * could be shown again, and could not be replaced for one account without replacing every one.
 * The installation's own account, the sim's, keeps LESSOR_INGRESS_TOKEN.
 */
import { sql } from "kysely";
import { publicUrl } from "../config";
import type { Db } from "../db";
import type { Env } from "../env";
import { ApiError } from "../errors";
import { randomBase62, sha256Hex } from "../ids";
import type { AccountExpression } from "./dedup";
import { ingressProvider } from "./providers";

export const INGRESS_TOKEN_PREFIX = "lsi_";
/** `lsi_` and 43 base62 characters (32 random bytes): the only shape an account's token has, checked before D1 is read. */
export const INGRESS_TOKEN_PATTERN = /^lsi_[0-9A-Za-z]{43}$/;

/** A new token for the org's account at `provider`, replacing any before it; null when the org holds no key there. */
export async function mintIngressToken(db: Db, orgId: string, provider: string, now: number): Promise<string | null> {
  const token = INGRESS_TOKEN_PREFIX + randomBase62(32);
  const hash = await sha256Hex(token);
  const row = await db
    .updateTable("provider_keys")
    .set({ ingress_token_hash: hash, ingress_token_created_at: now })
    .where("org_id", "=", orgId)
    .where("provider", "=", provider)
    .returning("org_id")
    .executeTakeFirst();
  return row ? token : null;
}

/** A new ingress token as `POST /v1/providers/:name/ingress-token` answers it, the only time it is shown. */
export interface NewIngressToken {
  provider: string;
  token: string;
  /** `/v1/ingress/<provider>/<token>`, what to give the provider after the installation's origin. */
  path: string;
  /** The whole URL at LESSOR_PUBLIC_URL; null where none is set. */
  url: string | null;
  created_at: number;
}

/**
 * A new ingress token for the org's account at `provider` (an enabled provider: the route checks),
 * replacing the one before: 400 `ingress_not_per_account` for a provider whose webhooks do not come
 * per org account (lambda sends none; the sim's come under the installation's token), 404 when the
 * org holds no key there. Logged without the token.
 */
export async function newAccountIngressToken(env: Pick<Env, "LESSOR_PUBLIC_URL">, db: Db, orgId: string, provider: string, now: number): Promise<NewIngressToken> {
  const spec = ingressProvider(provider);
  if (spec?.accounts !== "org") {
    const why = spec ? "its webhooks come under LESSOR_INGRESS_TOKEN" : "it sends no webhooks";
    throw new ApiError(400, "ingress_not_per_account", `${provider} takes no ingress token per org: ${why}`, { provider });
  }
  const token = await mintIngressToken(db, orgId, provider, now);
  if (token === null) throw new ApiError(404, "not_found", `this org has no key for ${provider}`, { name: provider });
  console.log(JSON.stringify({ msg: "ingress token minted", org_id: orgId, provider }));
  const path = `/v1/ingress/${provider}/${token}`;
  const origin = publicUrl(env);
  return { provider, token, path, url: origin === null ? null : `${origin}${path}`, created_at: now };
}

/**
 * The account a delivery to `provider` under a token hashing to `hash` came in under, as an SQL
 * expression for the delivery's batch: the org whose key row holds the token (`provider_keys_ingress`,
 * a unique index), NULL when none does.
 */
export function accountOfToken(db: Db, provider: string, hash: string): AccountExpression {
  return db.selectFrom("provider_keys").select("org_id").where("provider", "=", provider).where("ingress_token_hash", "=", hash).$asScalar<"org_id">() as AccountExpression;
}

/** The installation's own account (the sim's), as `billing_records.account` and `orphans.account` name it. */
export const INSTALLATION_ACCOUNT: AccountExpression = sql<string>`${""}`;
