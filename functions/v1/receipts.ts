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
import { sameShape } from "../../src/same-shape";

const RECEIPT_ID = /^rc_[0-9a-z]{26}$/;

const Time = z.string().describe("ISO 8601, UTC");

const ReceiptSchema = z
  .object({
    id: z.string(),
    lease_id: z.string().nullable().describe("the lease it bills; null for a volume's receipt"),
    volume_id: z.string().nullable().describe("the volume whose storage it bills, for one period (billed_from to released_at); null for a lease's"),
    provider: z.string(),
    gpu: z.string().nullable().describe("the GPU class the lease ran on; null for a volume's"),
    status: z.enum(["settled", "disputed"]).describe("disputed: the provider's records differ from the estimate by more than the tolerance"),
    actual_usd: z.number().describe("the sum of the provider's billing records"),
    estimate_usd: z.number().nullable().describe("lessor's estimate for the same time; null for a volume whose provider states no price"),
    difference_usd: z.number().nullable().describe("actual_usd minus estimate_usd; null where there is no estimate"),
    components: z.record(z.string(), z.number()).describe("actual_usd by part (compute, disk, bandwidth, ...), as the provider's records name them"),
    window_count: z.number().int(),
    windows: z
      .array(
        z.object({
          record_id: z.string(),
          machine_id: z.string(),
          window_start: Time,
          window_end: Time,
          amount_usd: z.number(),
        }),
      )
      .optional()
      .describe("every billing record the receipt sums; in the answer for one receipt only, never in lists"),
    billed_from: Time.nullable().describe("a lease's first billed moment; the start of a volume's period"),
    released_at: Time.describe("a lease's release; the end of a volume's period"),
    created_at: Time,
  })
  .openapi("Receipt", {
    description: "A lease's actual cost (or a volume's storage for one period) from the provider's records for closed windows, its parts and windows, and the estimate beside it",
  });

sameShape<z.infer<typeof ReceiptSchema>, ReturnType<typeof renderReceipt>>(true);

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
          volume_id: z.string().max(64).optional().describe("a volume's receipts, one a period"),
          ...PageQuery,
        }),
      },
      responses: {
        200: jsonResponse(z.object({ data: z.array(ReceiptSchema), next_cursor: z.string().nullable() }), "A page of receipts"),
        ...COMMON_ERRORS,
      },
    }),
    async (c) => {
      const { status, lease_id, volume_id, limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
      const rows = await listReceipts(database(c.env.DB), c.var.principal.org_id, { status, lease_id, volume_id, after: decodeCursor(cursor), limit });
      return c.json(pageOf(rows, limit, (r) => ({ k: r.id, id: r.id }), (r) => renderReceipt(r, false)), 200);
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
      return c.json(receipt, 200);
    },
  );
