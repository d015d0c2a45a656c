/** `GET /v1/usage`: estimate, actual and disputed spend of the caller's org over a range. */
import { createRoute, z } from "@hono/zod-openapi";
import { USAGE_GROUPS, usageOf } from "../../src/billing/usage";
import { database } from "../../src/db";
import { badRequest } from "../../src/errors";
import { BEARER, COMMON_ERRORS, jsonResponse, router } from "../context";
import { requireScope } from "../middleware";
import { sameShape } from "../../src/same-shape";

const DAY_MS = 86_400_000;
/** The longest range one usage answer covers. */
const MAX_USAGE_RANGE_MS = 366 * DAY_MS;

const UsageRowSchema = z
  .object({
    key: z.string().describe("the provider, GPU class, lease id or day (YYYY-MM-DD) of the group"),
    estimate_usd: z.number().describe("lessor's estimate: rate times billable time, never a bill"),
    actual_usd: z.number().describe("the providers' own billing records fetched so far"),
    disputed_usd: z.number().describe("the part of actual_usd on leases whose receipt is disputed"),
    leases: z.number().int(),
    provider: z.string().optional().describe("grouped by lease: the lease's provider"),
    gpu: z.string().nullable().optional().describe("grouped by lease: the GPU class it ran on"),
    billing_status: z.string().optional().describe("grouped by lease: accruing, awaiting_windows, settled, disputed or none"),
  })
  .openapi("UsageRow");

const UsageSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    group_by: z.enum(USAGE_GROUPS),
    data: z.array(UsageRowSchema),
    totals: z.object({ estimate_usd: z.number(), actual_usd: z.number(), disputed_usd: z.number(), leases: z.number().int() }),
  })
  .openapi("Usage");

sameShape<z.infer<typeof UsageSchema>, Awaited<ReturnType<typeof usageOf>>>(true);

const DateParam = z.string().max(40).describe("ISO 8601: a date (`2026-11-01`) or a time (`2026-11-01T12:00:00Z`)");

function timeOf(field: string, text: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Date.parse(text);
  if (!Number.isFinite(ms) || ms < 0) throw badRequest("invalid_request", `${field}: "${text}" is not an ISO 8601 date or time`, { field });
  return ms;
}

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
      const monthStart = Date.parse(`${new Date(now).toISOString().slice(0, 7)}-01T00:00:00Z`);
      const from = q.from === undefined ? monthStart : timeOf("from", q.from);
      const to = q.to === undefined ? now : timeOf("to", q.to);
      if (to <= from) throw badRequest("invalid_range", "`to` must be after `from`", { from: q.from ?? null, to: q.to ?? null });
      if (to - from > MAX_USAGE_RANGE_MS) throw badRequest("invalid_range", "a usage range covers at most 366 days", { max_days: 366 });
      const usage = await usageOf(database(c.env.DB), c.var.principal.org_id, { from, to, group_by: q.group_by ?? "provider" }, now);
      return c.json(usage, 200);
    },
  );
