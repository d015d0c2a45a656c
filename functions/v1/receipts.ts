/**
 * `GET /v1/receipts`, `GET /v1/receipts/:id`: the caller's org's receipts; another org's answers
 * 404 like a missing one (docs/design.md).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { getReceipt, listReceipts, renderReceipt } from "../../src/billing/receipts";
import { database } from "../../src/db";
import { notFound } from "../../src/errors";
import { decodeCursor, DEFAULT_PAGE, pageOf, PageQuery } from "../../src/pagination";
import { BEARER, COMMON_ERRORS, IdParam, jsonResponse, router } from "../context";
import { requireScope } from "../middleware";

const RECEIPT_ID = /^rc_[0-9a-z]{26}$/;

const ReceiptSchema = z.record(z.string(), z.unknown()).openapi("Receipt", {
  description: "A lease's actual cost from the provider's records for closed windows, its parts and windows, and the estimate beside it",
});

export const receiptRoutes = router()
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
