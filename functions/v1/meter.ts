/**
 * `GET /v1/meter`: what the control plane has consumed in this isolate since it started
 * (src/metering.ts, docs/cost.md), for the installation's operator (bootstrap token). The cost
 * bench reads it before and after a lease.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { meterCounts, type MeterCounts } from "../../src/metering";
import { sameShape } from "../../src/same-shape";
import { BEARER, COMMON_ERRORS, jsonResponse, router } from "../context";
import { requireBootstrapToken } from "../middleware";

const Count = z.number().int().min(0);

const MeterSchema = z
  .object({
    worker_requests: Count.describe("HTTP requests and cron runs the Worker served, and calls a sim machine's agent made"),
    do_requests: Count.describe("calls to lessor's Durable Objects (each RPC call or fetch is one billed request)"),
    do_alarms: Count,
    do_wall_ms: Count.describe("from each call to an object until its answer, plus each alarm's run"),
    d1_queries: Count,
    d1_rows_read: Count,
    d1_rows_written: Count,
    do_rows_read: Count.describe("rows of the objects' own SQLite storage"),
    do_rows_written: Count,
    provider_calls: z.record(z.string(), Count).describe("calls to each provider's API, the sim's included"),
  })
  .openapi("Meter", { description: "What the control plane consumed in this isolate since it started (counts only grow)" });

sameShape<z.infer<typeof MeterSchema>, MeterCounts>(true);

export const meterRoutes = router().openapi(
  createRoute({
    method: "get",
    path: "/meter",
    summary: "What the control plane consumed in this isolate since it started (bootstrap token)",
    security: BEARER,
    middleware: [requireBootstrapToken] as const,
    responses: { 200: jsonResponse(MeterSchema, "The counts"), ...COMMON_ERRORS },
  }),
  (c) => c.json(meterCounts(), 200),
);
