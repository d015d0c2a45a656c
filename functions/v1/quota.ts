/**
 * `GET/PUT /v1/quota`: the org's GPU quota and what its live leases hold under it
 * (docs/billing.md "GPU quota and preemption"; the rule is src/lease/quota.ts).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { database } from "../../src/db";
import { LEASE_KINDS, type LeaseKind } from "../../src/lease/policy";
import type { GpuHold } from "../../src/lease/quota";
import { getGpuQuota, gpuHolds, putGpuQuota, type StoredQuota } from "../../src/lease/quota-repo";
import { sameShape } from "../../src/same-shape";
import { BEARER, COMMON_ERRORS, jsonBody, jsonResponse, router } from "../context";
import { requireScope } from "../middleware";

const Gpus = z.number().int().min(0).max(1_000_000);

const PerKind = <T extends z.ZodType>(v: T) => z.strictObject({ deployment: v, job: v, scratch: v });

const QuotaSchema = z
  .object({
    gpus: z.number().int().nullable().describe("the most GPUs the org's live leases may hold at once; null: no quota"),
    per_kind: PerKind(z.number().int().nullable()).describe("a kind's own cap within `gpus`; null: only `gpus` caps it"),
    held: PerKind(z.number().int()).extend({ total: z.number().int() }).describe("what the org's live leases hold now, by kind"),
    updated_at: z.string().nullable(),
  })
  .openapi("GpuQuota");

/** The quota, replaced whole; the GET's read-only fields are accepted and ignored, so what GET answered can be PUT back. */
const PutQuotaSchema = z
  .strictObject({
    gpus: Gpus.nullable().describe("null removes the quota (and every kind's cap)"),
    per_kind: z
      .strictObject({ deployment: Gpus.nullable().optional(), job: Gpus.nullable().optional(), scratch: Gpus.nullable().optional() })
      .optional()
      .describe("a kind left out or null has no cap of its own"),
    held: z.record(z.string().max(32), z.number()).optional().openapi({ readOnly: true }),
    updated_at: z.string().max(64).nullable().optional().openapi({ readOnly: true }),
  })
  .openapi("PutGpuQuota");

function renderQuota(q: StoredQuota | null, holds: GpuHold[]) {
  const sumOf = (kind?: LeaseKind) => holds.filter((h) => kind === undefined || h.kind === kind).reduce((n, h) => n + h.gpus, 0);
  const capOf = (kind: LeaseKind) => q?.per_kind[kind] ?? null;
  return {
    gpus: q?.gpus ?? null,
    per_kind: { deployment: capOf("deployment"), job: capOf("job"), scratch: capOf("scratch") },
    held: { total: sumOf(), deployment: sumOf("deployment"), job: sumOf("job"), scratch: sumOf("scratch") },
    updated_at: q ? new Date(q.updated_at).toISOString() : null,
  };
}

sameShape<z.infer<typeof QuotaSchema>, ReturnType<typeof renderQuota>>(true);

/** The org's quota as it stands, with what is held under it now. */
async function quotaNow(d1: D1Database, orgId: string, now: number) {
  const [quota, holds] = await Promise.all([getGpuQuota(database(d1), orgId), gpuHolds(d1, orgId, now)]);
  return renderQuota(quota, holds);
}

export const quotaRoutes = router()
  .openapi(
    createRoute({
      method: "get",
      path: "/quota",
      summary: "The org's GPU quota, and the GPUs its live leases hold",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      responses: { 200: jsonResponse(QuotaSchema, "The quota"), ...COMMON_ERRORS },
    }),
    async (c) => c.json(await quotaNow(c.env.DB, c.var.principal.org_id, c.var.now), 200),
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/quota",
      summary: "Set the org's GPU quota: the most GPUs its live leases hold at once, and per kind if wanted (replaced whole; gpus null removes it)",
      security: BEARER,
      middleware: [requireScope("admin")] as const,
      request: jsonBody(PutQuotaSchema),
      responses: { 200: jsonResponse(QuotaSchema, "The quota now"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const orgId = c.var.principal.org_id;
      const { gpus, per_kind = {} } = c.req.valid("json");
      const kinds = Object.fromEntries(LEASE_KINDS.flatMap((k) => (per_kind[k] == null ? [] : [[k, per_kind[k]]])));
      await putGpuQuota(database(c.env.DB), orgId, gpus === null ? null : { gpus, per_kind: kinds }, c.var.now);
      return c.json(await quotaNow(c.env.DB, orgId, c.var.now), 200);
    },
  );
