/**
 * Billing (issue 6): `GET/PUT /v1/budget`, `GET /v1/usage`, `GET /v1/receipts`,
 * `GET /v1/receipts/:id`. Everything is the caller's org's; another org's receipt answers 404
 * like a missing one (guarantee 8).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { budgetStanding, getBudget, putBudget, type Budget, type Standing } from "../../src/billing/budget";
import { microsToUsd } from "../../src/billing/money";
import { getReceipt, listReceipts, renderReceipt } from "../../src/billing/receipts";
import { USAGE_GROUPS, usageOf } from "../../src/billing/usage";
import { database } from "../../src/db";
import { badRequest, notFound } from "../../src/errors";
import { decodeCursor, DEFAULT_PAGE, pageOf, PageQuery } from "../../src/pagination";
import { BEARER, COMMON_ERRORS, IdParam, jsonBody, jsonResponse, router } from "../context";
import { requireScope } from "../middleware";

const DAY_MS = 86_400_000;
/** The longest range one usage answer covers. */
const MAX_USAGE_RANGE_MS = 366 * DAY_MS;
const RECEIPT_ID = /^rc_[0-9a-z]{26}$/;

/** Dollars, stored as micro-dollars: at least one. */
const Usd = z.number().min(0.000001).max(1_000_000_000);

const BudgetSchema = z
  .object({
    monthly_usd: z.number().nullable().describe("cap on what leases admitted this month (UTC) may cost; null: none"),
    concurrent_hourly_usd: z.number().nullable().describe("cap on the summed hourly rate of the org's leases not yet released; null: none"),
    month: z.string().describe("the month the monthly cap counts, YYYY-MM (UTC)"),
    month_committed_usd: z.number().describe("this month's leases: receipts, final estimates, and the cost ceilings of live ones"),
    live_hourly_usd: z.number().describe("the hourly rate of every lease not yet released"),
    updated_at: z.string().nullable(),
  })
  .openapi("Budget");

/** The caps; the GET's read-only fields are accepted and ignored, so what GET answered can be PUT back. */
const PutBudgetSchema = z
  .strictObject({
    monthly_usd: Usd.nullable().optional(),
    concurrent_hourly_usd: Usd.nullable().optional(),
    month: z.string().max(32).optional().openapi({ readOnly: true }),
    month_committed_usd: z.number().optional().openapi({ readOnly: true }),
    live_hourly_usd: z.number().optional().openapi({ readOnly: true }),
    updated_at: z.string().max(64).nullable().optional().openapi({ readOnly: true }),
  })
  .openapi("PutBudget");

const UsageRowSchema = z
  .object({
    key: z.string().describe("the provider, GPU class, lease id or day (YYYY-MM-DD) of the group"),
    estimate_usd: z.number().describe("lessor's estimate: rate times billable time, never a bill"),
    actual_usd: z.number().describe("the providers' own billing records fetched so far"),
    disputed_usd: z.number().describe("the part of actual_usd on leases whose receipt is disputed"),
    leases: z.number().int(),
  })
  .loose()
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

const ReceiptSchema = z.record(z.string(), z.unknown()).openapi("Receipt", {
  description: "A lease's actual cost from the provider's records for closed windows, its parts and windows, and the estimate beside it",
});

const DateParam = z.string().max(40).describe("ISO 8601: a date (`2026-11-01`) or a time (`2026-11-01T12:00:00Z`)");

function timeOf(field: string, text: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Date.parse(text);
  if (!Number.isFinite(ms) || ms < 0) throw badRequest("invalid_request", `${field}: "${text}" is not an ISO 8601 date or time`, { field });
  return ms;
}

function renderBudget(b: Budget, s: Standing) {
  const usd = (m: number | null) => (m === null ? null : microsToUsd(m));
  return {
    monthly_usd: usd(b.monthly_micro_usd),
    concurrent_hourly_usd: usd(b.concurrent_hourly_micro_usd),
    month: s.month,
    month_committed_usd: microsToUsd(s.month_committed_micro_usd),
    live_hourly_usd: microsToUsd(s.live_hourly_micro_usd),
    updated_at: b.updated_at === null ? null : new Date(b.updated_at).toISOString(),
  };
}

export const billingRoutes = router()
  .openapi(
    createRoute({
      method: "get",
      path: "/budget",
      summary: "The org's caps, and what counts against them now",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      responses: { 200: jsonResponse(BudgetSchema, "The budget"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const orgId = c.var.principal.org_id;
      const [budget, standing] = await Promise.all([getBudget(database(c.env.DB), orgId), budgetStanding(c.env.DB, orgId, c.var.now)]);
      return c.json(renderBudget(budget, standing), 200);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/budget",
      summary: "Set the org's monthly cap and its cap on concurrent hourly spend (fields left out keep their value; null removes a cap)",
      security: BEARER,
      middleware: [requireScope("admin")] as const,
      request: jsonBody(PutBudgetSchema),
      responses: { 200: jsonResponse(BudgetSchema, "The budget now"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const orgId = c.var.principal.org_id;
      const { monthly_usd, concurrent_hourly_usd } = c.req.valid("json");
      const budget = await putBudget(database(c.env.DB), orgId, { monthly_usd, concurrent_hourly_usd }, c.var.now);
      return c.json(renderBudget(budget, await budgetStanding(c.env.DB, orgId, c.var.now)), 200);
    },
  )
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
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/receipts",
      summary: "The org's receipts, newest first",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      request: {
        query: z.object({
          status: z.enum(["settled", "disputed"]).optional(),
          lease_id: z.string().max(64).optional(),
          ...PageQuery,
        }),
      },
      responses: {
        200: jsonResponse(z.object({ data: z.array(ReceiptSchema), next_cursor: z.string().nullable() }), "A page of receipts"),
        ...COMMON_ERRORS,
      },
    }),
    async (c) => {
      const { status, lease_id, limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
      const rows = await listReceipts(database(c.env.DB), c.var.principal.org_id, { status, lease_id, after: decodeCursor(cursor), limit });
      return c.json(pageOf(rows, limit, (r) => ({ k: r.id, id: r.id }), (r) => renderReceipt(r, false) as Record<string, unknown>), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/receipts/{id}",
      summary: "A receipt, with every billing record it sums",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      request: { params: IdParam("rc") },
      responses: { 200: jsonResponse(ReceiptSchema, "The receipt"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const receipt = RECEIPT_ID.test(id) ? await getReceipt(database(c.env.DB), c.var.principal.org_id, id) : null;
      if (!receipt) throw notFound("receipt", id);
      return c.json(receipt as Record<string, unknown>, 200);
    },
  );
