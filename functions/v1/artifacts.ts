/**
 * `POST /v1/uploads`, `GET /v1/uploads/:id` (workdir bundles) and `GET /v1/leases/:id/artifacts`,
 * `GET/DELETE /v1/leases/:id/artifacts/{path}` (a lease's outputs): docs/artifacts.md. The bytes
 * are R2's and stream through; src/artifacts/store.ts does the storing.
 *
 * An artifact's `{path}` is the rest of the URL, slashes and all, which @hono/zod-openapi's `{x}`
 * cannot say: those routes are documented with `registerPath` and served by a Hono route with a
 * regex parameter, validated here with the same schemas.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { checkPath, SHA256_HEX, tooLarge } from "../../src/artifacts/limits";
import { deleteArtifact, findArtifact, getUpload, leaseOfOrg, listArtifacts, storeUpload } from "../../src/artifacts/store";
import { storageLimits } from "../../src/artifacts/limits";
import { ApiError, notFound } from "../../src/errors";
import { DEFAULT_PAGE, decodeCursor, encodeCursor, PageQuery } from "../../src/pagination";
import { BEARER, COMMON_ERRORS, errorResponse, IdParam, jsonResponse, router, type AppEnv } from "../context";
import { requireScope } from "../middleware";

export const SHA_HEADER = "lessor-sha256";

export const UploadSchema = z
  .object({ id: z.string(), size: z.number().int(), sha256: z.string(), created_at: z.string(), expires_at: z.string() })
  .openapi("Upload");

export const ArtifactSchema = z
  .object({
    path: z.string(),
    size: z.number().int(),
    sha256: z.string(),
    created_at: z.string(),
    expires_at: z.string().nullable().describe("null until the lease's release"),
  })
  .openapi("Artifact");

/** The headers of a raw body: its digest and its length, both required (R2 stores what it knows the length of). */
export const RawHeaders = {
  [SHA_HEADER]: z.string().regex(SHA256_HEX).openapi({ description: "the body's SHA-256, 64 hex digits" }),
  "content-length": z.string().regex(/^[0-9]{1,15}$/),
};

/** A raw body's length and digest (the headers validated), at most `max` bytes (else `tooBig`). */
export function rawBody(c: Context<AppEnv>, max: number, tooBig: (limit: number) => ApiError) {
  const parsed = z.object(RawHeaders).safeParse({ [SHA_HEADER]: c.req.header(SHA_HEADER), "content-length": c.req.header("content-length") });
  if (!parsed.success || c.req.header("transfer-encoding")) {
    throw new ApiError(400, "invalid_request", "send Content-Length and Lessor-Sha256 (64 hex digits), and the body unchunked", {
      issues: parsed.success ? [] : parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
    });
  }
  const size = Number(parsed.data["content-length"]);
  if (size > max) throw tooBig(max);
  return { size, sha256: parsed.data[SHA_HEADER].toLowerCase(), body: c.req.raw.body ?? new Blob([]).stream() };
}

/** A request's `{path}`, from the URL (percent-decoded by Hono), validated (400 invalid_path). */
export function pathParam(c: Context<AppEnv>): string {
  return checkPath(c.req.param("path") ?? "");
}

/** Validates `value` against `schema` as a route's validator would (400 invalid_request). */
export function parsed<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => ({ path: i.path.join("."), code: i.code, message: i.message }));
  throw new ApiError(400, "invalid_request", "the request does not match the schema", { issues });
}

const BINARY = z.string().openapi({ format: "binary" });
const PathParam = z.string().openapi({ param: { name: "path", in: "path" }, example: "checkpoints/model.pt", description: "the file's path under LESSOR_OUT (docs/artifacts.md \"Paths\")" });
const LEASE_ID = /^ls_[0-9a-z]{26}$/;

const STORE_ERRORS = {
  409: errorResponse("storage_quota_exceeded: the org's storage quota (details: limit_bytes, used_bytes)", ["storage_quota_exceeded"]),
} as const;

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
    ...STORE_ERRORS,
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
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/leases/{id}/artifacts",
      summary: "A lease's artifacts, by path",
      security: BEARER,
      middleware: [requireScope("read")] as const,
      request: { params: IdParam("ls"), query: z.object(PageQuery) },
      responses: { 200: jsonResponse(z.object({ data: z.array(ArtifactSchema), next_cursor: z.string().nullable() }), "A page of artifacts"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
      const after = decodeCursor(cursor);
      await ownLease(c, id);
      const rows = await listArtifacts(c.env, c.var.principal.org_id, id, after ? String(after.k) : null, limit + 1);
      const data = rows.slice(0, limit);
      const last = data[data.length - 1];
      return c.json({ data, next_cursor: rows.length > limit && last ? encodeCursor({ k: last.path, id }) : null }, 200);
    },
  );

/** The lease, when it is the caller's org's; 404 alike for another org's and a missing one (guarantee 8). */
async function ownLease(c: Context<AppEnv>, id: string): Promise<void> {
  if (!LEASE_ID.test(id) || !(await leaseOfOrg(c.env, c.var.principal.org_id, id))) throw notFound("lease", id);
}

const ArtifactParams = z.object({ id: IdParam("ls").shape.id, path: PathParam });

app.openAPIRegistry.registerPath({
  method: "get",
  path: "/leases/{id}/artifacts/{path}",
  summary: "An artifact's bytes, streamed; `Range: bytes=a-b` answers 206",
  security: BEARER,
  request: { params: ArtifactParams, headers: z.object({ range: z.string().optional() }) },
  responses: {
    200: { description: "The bytes (Lessor-Sha256, ETag, Accept-Ranges)", content: { "application/octet-stream": { schema: BINARY } } },
    206: { description: "The range asked for (Content-Range)", content: { "application/octet-stream": { schema: BINARY } } },
    ...COMMON_ERRORS,
    416: errorResponse("range_not_satisfiable: the range begins past the end (Content-Range: bytes */size)", ["range_not_satisfiable"]),
  },
});
app.openAPIRegistry.registerPath({
  method: "delete",
  path: "/leases/{id}/artifacts/{path}",
  summary: "Delete an artifact",
  security: BEARER,
  request: { params: ArtifactParams },
  responses: { 204: { description: "Deleted" }, ...COMMON_ERRORS },
});

app.get("/leases/:id/artifacts/:path{[\\s\\S]+}", requireScope("read"), async (c) => {
  const id = c.req.param("id");
  const path = pathParam(c);
  await ownLease(c, id);
  const found = await findArtifact(c.env, c.var.principal.org_id, id, path);
  if (!found) throw notFound("artifact", path);
  const { artifact, key } = found;
  const range = byteRange(c.req.header("range"), artifact.size);
  if (range === "unsatisfiable") {
    throw new ApiError(416, "range_not_satisfiable", `the artifact is ${artifact.size} bytes`, { size: artifact.size }, { "Content-Range": `bytes */${artifact.size}` });
  }
  const object = await c.env.ARTIFACTS.get(key, range ? { range: { offset: range.start, length: range.end - range.start + 1 } } : {});
  if (!object) throw notFound("artifact", path);
  const headers: Record<string, string> = {
    "content-type": "application/octet-stream",
    "lessor-sha256": artifact.sha256,
    etag: `"${artifact.sha256}"`,
    "accept-ranges": "bytes",
  };
  if (!range) return c.body(object.body, 200, { ...headers, "content-length": String(artifact.size) });
  return c.body(object.body, 206, { ...headers, "content-length": String(range.end - range.start + 1), "content-range": `bytes ${range.start}-${range.end}/${artifact.size}` });
});

app.delete("/leases/:id/artifacts/:path{[\\s\\S]+}", requireScope("write"), async (c) => {
  const id = c.req.param("id");
  const path = pathParam(c);
  await ownLease(c, id);
  if (!(await deleteArtifact(c.env, c.var.principal.org_id, id, path, c.var.now))) throw notFound("artifact", path);
  return c.body(null, 204);
});

/**
 * One `Range: bytes=a-b` (or `a-`, or `-n`) of an object of `size` bytes (RFC 9110 section 14.2):
 * null (serve it whole) without one, for one this does not read (several ranges, another unit),
 * and for an empty object; "unsatisfiable" when it begins past the end.
 */
export function byteRange(header: string | undefined, size: number): { start: number; end: number } | "unsatisfiable" | null {
  const m = header ? /^bytes=(\d{0,15})-(\d{0,15})$/.exec(header.trim()) : null;
  if (!m || (m[1] === "" && m[2] === "") || size === 0) return null;
  if (m[1] === "") {
    const n = Number(m[2]);
    return n === 0 ? "unsatisfiable" : { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== "" && Number(m[2]) < start) return null;
  return start >= size ? "unsatisfiable" : { start, end };
}

export const artifactRoutes = app;
