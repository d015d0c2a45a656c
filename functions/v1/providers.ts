/**
 * `GET /v1/providers`, `PUT/DELETE /v1/providers/:name`, `POST /v1/providers/:name/verify`: an
 * org's own provider keys. A key is checked with one read-only call before it is stored, stored
 * encrypted (src/providers/credentials.ts), and never returned, logged or put in an event.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { database } from "../../src/db";
import type { ProviderCapabilities } from "../../src/providers/contract";
import { newAccountIngressToken, type NewIngressToken } from "../../src/ingress/accounts";
import { providerKeyRows, storedOptions, type ProviderCredentials, type ProviderKeyRow } from "../../src/providers/credentials";
import { enabledProvider, forgetProviderKey, providerKeyRow, putProviderKey, reverifyProviderKey } from "../../src/providers/org-keys";
import { configuredProviderNames, providerCapabilities, providerSetup } from "../../src/providers/registry";
import { isStale, OFFER_MAX_AGE_MS } from "../../src/catalog/offer";
import { marketStates, type MarketState } from "../../src/catalog/offers-repo";
import { BEARER, COMMON_ERRORS, errorResponse, jsonBody, jsonResponse, router } from "../context";
import { requireScope } from "../middleware";
import { sameShape } from "../../src/same-shape";
import { iso } from "../../src/time";


const VERIFICATION_STATUSES = ["ok", "refused", "unreachable", "never"] as const;
type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

const CapabilitiesSchema = z.object({
  stop: z.boolean(),
  start: z.boolean(),
  list_by_label: z.boolean(),
  billing_records: z.boolean(),
  webhooks: z.boolean(),
  stop_ends_billing: z.boolean(),
  spot: z.boolean(),
  run_agent: z.boolean().describe("machines can be given an environment and a start command, so lessor's agent runs there; a lease with a cmd needs it"),
  volumes: z.boolean().describe("sells volumes a machine mounts (docs/volumes.md)"),
});

const ProviderSchema = z
  .object({
    name: z.string(),
    needs_key: z.boolean().describe("false: an installation-wide account every org rents from without a key (the sim)"),
    configured: z.boolean().describe("this org holds a key (or the provider needs none)"),
    usable: z.boolean().describe("its offers are quoted for this org: configured, and the last verification did not refuse the key"),
    capabilities: CapabilitiesSchema,
    options: z.record(z.string(), z.string()).describe("the settings stored with the key, none of them secret"),
    option_fields: z.array(z.object({ name: z.string(), required: z.boolean(), description: z.string() })),
    updated_at: z.string().nullable(),
    ingress_token_created_at: z
      .string()
      .nullable()
      .describe("when this org's account got its webhook ingress token; null: none"),
    verification: z.object({
      status: z.enum(VERIFICATION_STATUSES).describe("ok; refused (the provider said no); unreachable (no answer, try again); never"),
      at: z.string().nullable(),
      error: z.string().nullable(),
    }),
    market: z
      .object({
        refreshed_at: z.string().nullable().describe("when lessor last read this provider's offers (with any org's key); null: never"),
        stale: z.boolean().describe(`not read for more than ${OFFER_MAX_AGE_MS / 60_000} minutes: its offers are listed as stale and never quoted`),
        attempted_at: z.string().nullable().describe("the last attempt to read it"),
        error: z.string().nullable().describe("why the last attempt failed (error kinds, and how many keys were tried); null when it worked"),
      })
      .describe("the provider's offer market as the catalog refresh last read it: the same for every org"),
  })
  .openapi("Provider");

const PutProviderSchema = z
  .strictObject({
    api_key: z
      .string()
      .min(1)
      .max(4096)
      .regex(/^[\x21-\x7e]+$/, "printable ASCII without spaces")
      .describe("the provider's API key; stored encrypted and never shown again"),
    options: z.record(z.string().min(1).max(64), z.string().min(1).max(256)).optional().describe("provider settings, e.g. Lambda's ssh_key_name"),
  })
  .openapi("PutProvider");

const IngressTokenSchema = z
  .object({
    provider: z.string(),
    token: z.string(),
    path: z.string(),
    url: z.string().nullable().describe("null without LESSOR_PUBLIC_URL"),
    created_at: z.string(),
  })
  .openapi("IngressToken");

sameShape<z.infer<typeof IngressTokenSchema>, Omit<NewIngressToken, "created_at"> & { created_at: string }>(true);

const NameParam = z.object({
  name: z
    .string()
    .min(1)
    .max(32)
    .regex(/^[a-z0-9_-]+$/)
    .openapi({ param: { name: "name", in: "path" }, example: "runpod" }),
});


function verificationOf(row: ProviderKeyRow | undefined): { status: VerificationStatus; at: string | null; error: string | null } {
  if (!row || row.verified_at === null) return { status: "never", at: null, error: null };
  const status: VerificationStatus = row.verified_ok === 1 ? "ok" : row.verified_ok === 0 ? "refused" : "unreachable";
  return { status, at: iso(row.verified_at), error: row.verify_error };
}

function renderMarket(market: MarketState | undefined, now: number) {
  return {
    refreshed_at: iso(market?.refreshed_at ?? null),
    stale: isStale(market?.refreshed_at, now),
    attempted_at: iso(market?.attempted_at ?? null),
    error: market?.error ?? null,
  };
}

function render(name: string, row: ProviderKeyRow | undefined, markets: Map<string, MarketState>, now: number) {
  const setup = providerSetup(name);
  const configured = !setup.needsKey || row !== undefined;
  const verification = setup.needsKey ? verificationOf(row) : { status: "ok" as const, at: null, error: null };
  return {
    name,
    needs_key: setup.needsKey,
    configured,
    usable: configured && verification.status !== "refused",
    capabilities: { ...providerCapabilities(name) } as ProviderCapabilities,
    options: row ? storedOptions(row.options) : {},
    option_fields: setup.options.map((o) => ({ ...o })),
    updated_at: iso(row?.updated_at ?? null),
    ingress_token_created_at: iso(row?.ingress_token_created_at ?? null),
    verification,
    market: renderMarket(markets.get(name), now),
  };
}

sameShape<z.infer<typeof ProviderSchema>, ReturnType<typeof render>>(true);

export const providerRoutes = router()
  .openapi(
    createRoute({
      method: "get",
      path: "/providers",
      summary: "The providers this installation rents from: which this org has a key for, and whether it last verified",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      responses: { 200: jsonResponse(z.object({ data: z.array(ProviderSchema) }), "Every enabled provider"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const db = database(c.env.DB);
      const [rows, markets] = await Promise.all([providerKeyRows(db, c.var.principal.org_id), marketStates(db)]);
      return c.json({ data: configuredProviderNames(c.env).map((n) => render(n, rows.get(n), markets, c.var.now)) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/providers/{name}",
      summary: "Store this org's key for a provider, after one read-only call proves it works",
      security: BEARER,
      middleware: [requireScope("admin")] as const,
      request: { params: NameParam, ...jsonBody(PutProviderSchema) },
      responses: {
        200: jsonResponse(ProviderSchema, "Stored; `verification` says whether the provider answered"),
        409: errorResponse(
          "provider_account_mismatch: the new key does not see every machine this org's live leases hold on the provider (details: not_seen, live_machines, leases); nothing changed",
          ["provider_account_mismatch"],
        ),
        422: errorResponse("provider_key_refused: the provider refused the key or its settings; nothing stored", ["provider_key_refused"]),
        503: errorResponse(
          "provider_keys_disabled: no LESSOR_MASTER_KEY on this installation. provider_unavailable: the provider did not answer the list that proves the new key sees the live leases' machines; nothing changed",
          ["provider_keys_disabled", "provider_unavailable"],
        ),
        ...COMMON_ERRORS,
      },
    }),
    async (c) => {
      const name = enabledProvider(c.env, c.req.valid("param").name);
      const body = c.req.valid("json");
      const credentials: ProviderCredentials = { api_key: body.api_key, options: body.options ?? {} };
      const db = database(c.env.DB);
      const orgId = c.var.principal.org_id;
      await putProviderKey(c.env, db, orgId, name, credentials, c.var.now);
      return c.json(render(name, await providerKeyRow(db, orgId, name), await marketStates(db), c.var.now), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/providers/{name}/verify",
      summary: "Check this org's stored key again with one read-only call",
      security: BEARER,
      middleware: [requireScope("admin")] as const,
      request: { params: NameParam },
      responses: { 200: jsonResponse(ProviderSchema, "The provider, with the new verification"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const name = enabledProvider(c.env, c.req.valid("param").name);
      const db = database(c.env.DB);
      const orgId = c.var.principal.org_id;
      await reverifyProviderKey(c.env, db, orgId, name, c.var.now);
      return c.json(render(name, await providerKeyRow(db, orgId, name), await marketStates(db), c.var.now), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/providers/{name}/ingress-token",
      summary: "A new webhook ingress token for this org's account at the provider, shown once; it replaces the one before (docs/ingress.md)",
      security: BEARER,
      middleware: [requireScope("admin")] as const,
      request: { params: NameParam },
      responses: {
        ...COMMON_ERRORS,
        201: jsonResponse(IngressTokenSchema, "The token and its URL"),
        400: errorResponse(
          "invalid_request: not a provider name; ingress_not_per_account: sim or lambda",
          ["invalid_request", "ingress_not_per_account"],
        ),
      },
    }),
    async (c) => {
      const name = enabledProvider(c.env, c.req.valid("param").name);
      const minted = await newAccountIngressToken(c.env, database(c.env.DB), c.var.principal.org_id, name, c.var.now);
      return c.json({ ...minted, created_at: iso(minted.created_at) }, 201);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/providers/{name}",
      summary: "Forget this org's key for a provider (refused while a lease on it may hold a machine)",
      security: BEARER,
      middleware: [requireScope("admin")] as const,
      request: { params: NameParam },
      responses: {
        200: jsonResponse(ProviderSchema, "The provider, no longer configured"),
        409: errorResponse("provider_in_use: live leases (or volumes) on this provider need the key to end their machines (or delete them)", ["provider_in_use"]),
        ...COMMON_ERRORS,
      },
    }),
    async (c) => {
      const name = enabledProvider(c.env, c.req.valid("param").name);
      const db = database(c.env.DB);
      const orgId = c.var.principal.org_id;
      await forgetProviderKey(db, orgId, name);
      return c.json(render(name, undefined, await marketStates(db), c.var.now), 200);
    },
  );
