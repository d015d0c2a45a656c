/**
 * An org's webhook endpoints: what `POST/GET/PATCH/DELETE /v1/webhooks` and `rotate-secret` do.
 * The routes (functions/v1/webhooks.ts) only parse and render; the rules are here.
 */
import { z } from "@hono/zod-openapi";
import { limitReached } from "../auth/limits";
import type { Db } from "../db";
import type { WebhookEndpointRow } from "../db/schema";
import type { Env } from "../env";
import { notFound } from "../errors";
import { orgEventsStub, tellTwice } from "../events/forward";
import { newId } from "../ids";
import { masterKeyConfigured, masterKeyMissing } from "../providers/credentials";
import { deleteEndpoint, endpointOf, insertEndpointWithinLimit, rotateEndpointSecret, updateEndpoint, type EndpointChange } from "./repo";
import { iso } from "../time";
import { newSecret, openSecret, sealSecret } from "./secrets";
import { acceptedTarget } from "../outbound/dns";
import { MAX_URL_LENGTH } from "../outbound/target";
import { MAX_CONSECUTIVE_FAILURES } from "./schedule";

/** How long the previous secret still signs after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
export const ALL_EVENTS = "*";
const EVENT_TYPE = /^[a-z][a-z0-9_]{0,63}$/;

const EventsSchema = z
  .array(z.string().max(64).refine((t) => t === ALL_EVENTS || EVENT_TYPE.test(t), { message: 'an event type (lower-case, as in the event log: "released") or "*"' }))
  .min(1)
  .max(64)
  .refine((ts) => new Set(ts).size === ts.length, { message: "each event type at most once" })
  .openapi({ description: 'the event types to deliver, as the event log names them (`created`, `ready`, `released`, `webhook_disabled`, ...), or `["*"]` for all', example: ["released"] });

const UrlSchema = z
  .string()
  .min(1)
  .max(MAX_URL_LENGTH)
  .openapi({ description: "an https URL (port 443) on a public address", example: "https://hooks.example.com/lessor" });

export const CreateWebhookSchema = z.strictObject({ url: UrlSchema, events: EventsSchema }).openapi("CreateWebhook");
export const UpdateWebhookSchema = z
  .strictObject({
    url: UrlSchema.optional(),
    events: EventsSchema.optional(),
    enabled: z.literal(true).optional().describe("true: enable a disabled endpoint again (its failure clock and count start over)"),
  })
  .openapi("UpdateWebhook");

export const WebhookSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    enabled: z.boolean(),
    disabled_reason: z
      .enum(["gone", "failing"])
      .nullable()
      .describe(`gone: the receiver answered 410; failing: ${MAX_CONSECUTIVE_FAILURES} failures in a row, or five days without a delivery`),
    disabled_at: z.string().nullable(),
    failing_since: z.string().nullable().describe("the first failed attempt since the last delivery"),
    consecutive_failures: z.number().int().describe("failed attempts in a row since the last delivery"),
    previous_secret_until: z.string().nullable().describe("after a rotation, until when the previous secret also signs"),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Webhook");
export type WebhookView = z.infer<typeof WebhookSchema>;

export const WebhookWithSecretSchema = WebhookSchema.extend({
  secret: z.string().describe("`whsec_` + base64: verify deliveries with it; shown in this answer only"),
}).openapi("WebhookWithSecret");

export function renderWebhook(row: WebhookEndpointRow, now: number): WebhookView {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    enabled: row.disabled_at === null,
    disabled_reason: row.disabled_reason,
    disabled_at: iso(row.disabled_at),
    failing_since: iso(row.failing_since),
    consecutive_failures: row.consecutive_failures,
    previous_secret_until: row.previous_secret_until !== null && row.previous_secret_until > now ? iso(row.previous_secret_until) : null,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

type WebhookEnv = Pick<
  Env,
  "DB" | "ORG_EVENTS" | "LESSOR_MASTER_KEY" | "LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP" | "LESSOR_ENVIRONMENT" | "LESSOR_OUTBOUND_PORTS" | "LESSOR_DNS_RESOLVER"
>;

/** The URL as stored, or 400 `invalid_webhook_url`; every batch of the webhook queue checks it again (src/webhooks/consumer.ts). */
const acceptedUrl = (env: WebhookEnv, url: string) => acceptedTarget(env, url, "webhook");

/** `*` alone when it is given: it already means every type. */
const normalEvents = (events: string[]) => JSON.stringify(events.includes(ALL_EVENTS) ? [ALL_EVENTS] : events);

export async function createWebhook(env: WebhookEnv, orgId: string, body: z.infer<typeof CreateWebhookSchema>, now: number) {
  if (!masterKeyConfigured(env)) throw masterKeyMissing();
  const url = await acceptedUrl(env, body.url);
  const id = newId("wh", now);
  const secret = newSecret();
  const row = { id, org_id: orgId, url, events: normalEvents(body.events), secret_ciphertext: await sealSecret(env, orgId, id, secret), created_at: now };
  const stored = await insertEndpointWithinLimit(env.DB, row);
  if (!stored) throw limitReached("webhook_endpoints");
  await tellOrg(env, orgId, (org) => org.endpointsChanged());
  return { ...renderWebhook(stored, now), secret };
}

export async function updateWebhook(env: WebhookEnv, db: Db, orgId: string, id: string, body: z.infer<typeof UpdateWebhookSchema>, now: number) {
  const change: EndpointChange = {};
  if (body.url !== undefined) change.url = await acceptedUrl(env, body.url);
  if (body.events !== undefined) change.events = normalEvents(body.events);
  if (body.enabled) Object.assign(change, { disabled_at: null, disabled_reason: null, failing_since: null, consecutive_failures: 0 });
  const changed = Object.keys(change).length > 0;
  const row = changed ? await updateEndpoint(db, orgId, id, change, now) : await endpointOf(db, orgId, id);
  if (!row) throw notFound("webhook", id);
  if (changed) await tellOrg(env, orgId, (org) => org.endpointsChanged());
  return renderWebhook(row, now);
}

/**
 * Tells the org's object of an endpoint's change (`call`), so its next append reads the endpoints
 * again (src/events/org-object.ts keeps them in memory). The change is already stored: should the
 * word be lost twice, the object reads them again within ten minutes, the consumer sends nothing
 * to an endpoint disabled or gone, and the answer still goes out (a made endpoint's secret is
 * shown once).
 */
const tellOrg = (env: Pick<Env, "ORG_EVENTS">, orgId: string, call: (org: ReturnType<typeof orgEventsStub>) => Promise<unknown>) =>
  tellTwice("webhooks: the org's object not told of an endpoint's change; it reads them again within ten minutes", { org: orgId }, () => call(orgEventsStub(env, orgId)));

/** Deletes the endpoint; the org's object stops what it had pending and forgets it. */
export async function removeWebhook(env: Pick<Env, "ORG_EVENTS">, db: Db, orgId: string, id: string, now: number) {
  const row = await deleteEndpoint(db, orgId, id);
  if (!row) throw notFound("webhook", id);
  await tellOrg(env, orgId, (org) => org.endpointRemoved(id, "endpoint deleted"));
  return renderWebhook(row, now);
}

/**
 * A new secret, shown once; the current one keeps signing beside it for ROTATION_OVERLAP_MS. One
 * UPDATE moves the stored secret to `previous_secret_ciphertext` (SQLite's SET reads the row as it
 * was), so of two rotations at once the later one keeps the earlier one's secret as its previous.
 */
export async function rotateSecret(env: WebhookEnv, db: Db, orgId: string, id: string, now: number) {
  if (!masterKeyConfigured(env)) throw masterKeyMissing();
  const secret = newSecret();
  const row = await rotateEndpointSecret(db, orgId, id, await sealSecret(env, orgId, id, secret), now + ROTATION_OVERLAP_MS, now);
  if (!row) throw notFound("webhook", id);
  return { ...renderWebhook(row, now), secret };
}

/** The secrets that sign a delivery now: the current one, and the previous one during a rotation. */
export async function signingSecrets(env: Pick<Env, "LESSOR_MASTER_KEY">, row: WebhookEndpointRow, now: number): Promise<string[]> {
  const sealed = [row.secret_ciphertext];
  if (row.previous_secret_ciphertext && (row.previous_secret_until ?? 0) > now) sealed.push(row.previous_secret_ciphertext);
  const opened = await Promise.all(sealed.map((s) => openSecret(env, row.org_id, row.id, s)));
  return opened.filter((s): s is string => s !== null);
}
