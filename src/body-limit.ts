/** The most one request body may hold, on every route: past it functions/app.ts answers 413 `payload_too_large`. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The routes that stream a raw body of their own into R2 (docs/artifacts.md): a bundle, an
 * artifact, a part. Each checks its own Content-Length against its own cap before a byte is read,
 * and hashes the bytes as they pass; the limit above is not theirs.
 */
export function streamsOwnBody(method: string, path: string): boolean {
  return (method === "POST" && path === "/v1/uploads") || (method === "PUT" && path.startsWith("/v1/agent/artifacts/"));
}
