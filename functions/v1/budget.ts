/**
 * `GET/PUT /v1/budget`: the org's caps and what counts against them now (docs/design.md).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { budgetStanding, getBudget, putBudget, type Budget, type Standing } from "../../src/billing/budget";
import { microsToUsd } from "../../src/billing/money";
import { database } from "../../src/db";
import { BEARER, COMMON_ERRORS, jsonBody, jsonResponse, router } from "../context";
import { requireScope } from "../middleware";
import { sameShape } from "../../src/same-shape";

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

sameShape<z.infer<typeof BudgetSchema>, ReturnType<typeof renderBudget>>(true);

export const budgetRoutes = router()
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
  );
