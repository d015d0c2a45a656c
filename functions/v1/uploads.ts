/**
 * `POST /v1/uploads` and `GET /v1/uploads/:id`: workdir bundles (docs/artifacts.md "Bundles"). The
 * bytes stream through into R2; src/artifacts/store.ts does the storing.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { storageLimits, tooLarge } from "../../src/artifacts/limits";
import { getUpload, storeUpload } from "../../src/artifacts/store";
import { ApiError, notFound } from "../../src/errors";
import { BEARER, BINARY, COMMON_ERRORS, errorResponse, IdParam, jsonResponse, rawBody, RawHeaders, router } from "../context";
import { requireScope } from "../middleware";

const UploadSchema = z
  .object({ id: z.string(), size: z.number().int(), sha256: z.string(), created_at: z.string(), expires_at: z.string() })
  .openapi("Upload");

const uploadPost = createRoute({
  method: "post",
  path: "/uploads",
  summary: "Upload a workdir bundle (tar.gz) for a job or scratch lease's `workdir`; 400 checksum_mismatch stores nothing",
  security: BEARER,
  middleware: [requireScope("write")] as const,
  request: { headers: z.object(RawHeaders), body: { content: { "application/gzip": { schema: BINARY } }, required: true } },
  responses: {
    201: jsonResponse(UploadSchema, "Stored"),
    ...COMMON_ERRORS,
    409: errorResponse("storage_quota_exceeded: the org's storage quota (details: limit_bytes, used_bytes)", ["storage_quota_exceeded"]),
    413: errorResponse("upload_too_large: over LESSOR_UPLOAD_MAX_BYTES (details: limit_bytes)", ["upload_too_large", "payload_too_large"]),
    415: errorResponse("unsupported_media_type: send application/gzip", ["unsupported_media_type"]),
  },
});

const app = router()
  .openapi(uploadPost, async (c) => {
    const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (!["application/gzip", "application/x-gzip", "application/octet-stream"].includes(type)) {
      throw new ApiError(415, "unsupported_media_type", "a bundle is sent as application/gzip");
    }
    const { size, sha256, body } = rawBody(c, storageLimits(c.env).upload_bytes, (limit) => tooLarge("upload_too_large", `a bundle is at most ${limit} bytes`, limit));
    return c.json(await storeUpload(c.env, c.var.principal.org_id, body, size, sha256, c.var.now), 201);
  })
  .openapi(
    createRoute({
      method: "get",
      path: "/uploads/{id}",
      summary: "One workdir bundle",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      request: { params: IdParam("upl") },
      responses: { 200: jsonResponse(UploadSchema, "The bundle"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const upload = await getUpload(c.env, c.var.principal.org_id, id);
      if (!upload) throw notFound("upload", id);
      return c.json(upload, 200);
    },
  );

export const uploadRoutes = app;
