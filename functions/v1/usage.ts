/** `GET /v1/usage`: estimate, actual and disputed spend of the caller's org over a range. */
import { createRoute, z } from "@hono/zod-openapi";
import { USAGE_GROUPS, usageOf, usageRange } from "../../src/billing/usage";
import { database } from "../../src/db";
import { storageGbMonths } from "../../src/artifacts/store";
import { BEARER, COMMON_ERRORS, jsonResponse, router } from "../context";
import { requireScope } from "../middleware";
import { sameShape } from "../../src/same-shape";

const UsageRowSchema = z
  .object({
    key: z.string().describe("the provider, GPU class (`volume` for volumes' storage), lease id (or a volume's id) or day (YYYY-MM-DD) of the group"),
    estimate_usd: z.number().describe("lessor's estimate: rate times billable time, never a bill"),
    actual_usd: z.number().describe("the providers' own billing records fetched so far"),
    disputed_usd: z.number().describe("the part of actual_usd on leases whose receipt is disputed"),
    leases: z.number().int(),
    volumes: z.number().int().describe("volumes whose storage the group counts"),
    provider: z.string().optional().describe("grouped by lease: the lease's (or volume's) provider"),
    gpu: z.string().nullable().optional().describe("grouped by lease: the GPU class it ran on (`volume` for a volume)"),
    billing_status: z.string().optional().describe("grouped by lease: accruing, awaiting_windows, settled, disputed or none"),
  })
  .openapi("UsageRow");

const UsageSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    group_by: z.enum(USAGE_GROUPS),
    data: z.array(UsageRowSchema),
    totals: z.object({
      estimate_usd: z.number(),
      actual_usd: z.number(),
      disputed_usd: z.number(),
      leases: z.number().int(),
      volumes: z.number().int(),
      storage_gb_month: z.number().describe("bundles and artifacts kept over the range, in R2's unit (docs/artifacts.md)"),
    }),
  })
  .openapi("Usage");

sameShape<z.infer<typeof UsageSchema>, Awaited<ReturnType<typeof usageOf>>>(true);

const DateParam = z.string().max(40).describe("ISO 8601: a date (`2026-11-01`) or a time (`2026-11-01T12:00:00Z`)");

export const usageRoutes = router()
  .openapi(
    createRoute({
      method: "get",
      path: "/usage",
      summary: "Estimate, actual and disputed spend over a range, per provider, GPU class, lease or day",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      request: {
        query: z.object({
          from: DateParam.optional().describe("default: the first of this month (UTC)"),
          to: DateParam.optional().describe("default: now"),
          group_by: z.enum(USAGE_GROUPS).default("provider").optional(),
        }),
      },
      responses: { 200: jsonResponse(UsageSchema, "Spend per group"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const now = c.var.now;
      const { from, to } = usageRange(q, now);
      const orgId = c.var.principal.org_id;
      const usage = await usageOf(database(c.env.DB), orgId, { from, to, group_by: q.group_by ?? "provider" }, now, await storageGbMonths(c.env, orgId, from, to, now));
      return c.json(usage, 200);
    },
  );
