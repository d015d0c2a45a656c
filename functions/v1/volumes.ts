/**
 * `POST/GET /v1/volumes`, `GET/DELETE /v1/volumes/:id`: storage that outlives a lease. Rules in
 * src/volumes/ (docs/volumes.md); reads need `read`, changes `write`.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { MAX_VOLUMES } from "../../src/auth/limits";
import { database } from "../../src/db";
import { notFound } from "../../src/errors";
import { decodeCursor, DEFAULT_PAGE, pageOf, PageQuery } from "../../src/pagination";
import { lastReleases } from "../../src/volumes/idle";
import { CreateVolumeSchema, deleteVolume, listVolumes, mountedBy, putVolume, renderVolume, volumeById, type VolumeRow } from "../../src/volumes/volumes";
import { BEARER, COMMON_ERRORS, errorResponse, IdParam, jsonBody, jsonResponse, router, type AppEnv } from "../context";
import { requireScope } from "../middleware";

const VolumeSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    provider: z.string(),
    region: z.string(),
    size_gb: z.number().int(),
    state: z.enum(["creating", "ready", "deleting"]),
    usd_per_gb_month: z.number().nullable().describe("null until the provider answered the create"),
    monthly_usd: z.number().nullable().describe("an estimate: size_gb times usd_per_gb_month"),
    mounted_by: z.array(z.string()).describe("the leases not released that mount it"),
    idle_since: z
      .string()
      .nullable()
      .describe("null while a lease not released mounts it; else since when no lease has: the last release of one that mounted it, or its creation (the org's volume_idle_ttl counts from here)"),
    created_at: z.string(),
  })
  .openapi("Volume");

const PROVIDER_503 = errorResponse("provider_unavailable: the provider did not answer; send the request again (Retry-After)", ["provider_unavailable"]);

async function answer(c: Context<AppEnv>, rows: readonly VolumeRow[]) {
  const db = database(c.env.DB);
  const ids = rows.map((r) => r.id);
  const [mounts, released] = await Promise.all([mountedBy(db, ids, c.var.now), lastReleases(db, ids)]);
  return rows.map((r) => renderVolume(r, mounts.get(r.id) ?? [], released.get(r.id) ?? null));
}

export const volumeRoutes = router()
  .openapi(
    createRoute({
      method: "post",
      path: "/volumes",
      summary: "Make a volume, or find the one of this name (idempotent by name)",
      security: BEARER,
      middleware: [requireScope("write")] as const,
      request: jsonBody(CreateVolumeSchema),
      responses: {
        200: jsonResponse(VolumeSchema, "The volume of this name, found"),
        201: jsonResponse(VolumeSchema, "The volume, made"),
        ...COMMON_ERRORS,
        402: errorResponse("over_budget: what the volume bills to the month's end, or its rate, would pass one of the org's caps (details: cap, limit_usd, committed_usd, requested_usd)", ["over_budget"]),
        409: errorResponse(
          `volume_exists: the name holds a volume of another size, provider or region; volume_busy: it is being deleted; limit_reached: ${MAX_VOLUMES} volumes already; provider_not_configured, capability_missing: the provider cannot make it; no_capacity: no region to default to; provider_refused: the provider said no (details.error)`,
          ["volume_exists", "volume_busy", "limit_reached", "provider_not_configured", "capability_missing", "no_capacity", "provider_refused"],
        ),
        503: PROVIDER_503,
      },
    }),
    async (c) => {
      const out = await putVolume(database(c.env.DB), c.env, c.var.principal.org_id, c.req.valid("json"), c.var.now);
      return c.json((await answer(c, [out.row]))[0]!, out.status);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/volumes",
      summary: "List the org's volumes by name",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      request: { query: z.object(PageQuery) },
      responses: {
        200: jsonResponse(z.object({ data: z.array(VolumeSchema), next_cursor: z.string().nullable() }), "A page of volumes"),
        ...COMMON_ERRORS,
      },
    }),
    async (c) => {
      const { limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
      const after = decodeCursor(cursor);
      const rows = await listVolumes(database(c.env.DB), c.var.principal.org_id, after === null ? null : String(after.k), limit);
      const page = pageOf(rows, limit, (r) => ({ k: r.name, id: r.id }), (r) => r);
      return c.json({ data: await answer(c, page.data), next_cursor: page.next_cursor }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/volumes/{id}",
      summary: "A volume",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      request: { params: IdParam("vol") },
      responses: { 200: jsonResponse(VolumeSchema, "The volume"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const row = await volumeById(database(c.env.DB), c.var.principal.org_id, id);
      if (!row) throw notFound("volume", id);
      return c.json((await answer(c, [row]))[0]!, 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/volumes/{id}",
      summary: "Delete a volume and its data",
      security: BEARER,
      middleware: [requireScope("write")] as const,
      request: { params: IdParam("vol") },
      responses: {
        200: jsonResponse(VolumeSchema, "The volume as it was; it is gone"),
        ...COMMON_ERRORS,
        409: errorResponse("volume_in_use: a lease not released mounts it (details.leases); provider_refused: the provider said no", ["volume_in_use", "provider_refused"]),
        503: PROVIDER_503,
      },
    }),
    async (c) => {
      const row = await deleteVolume(database(c.env.DB), c.env, c.var.principal.org_id, c.req.valid("param").id, c.var.now);
      return c.json(renderVolume(row, [], null), 200);
    },
  );
