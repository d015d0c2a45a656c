/**
 * The one error type of lessor. Every 4xx/5xx leaves the Worker as
 * `{"error": {"code", "message", "details"}, "request_id"}` (DESIGN.md guarantee 12),
 * rendered in one place: functions/app.ts `onError`.
 */
export type ErrorDetails = Record<string, unknown>;

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetails;
  /** Extra response headers, e.g. Retry-After on 429. */
  readonly headers: Record<string, string>;

  constructor(status: number, code: string, message: string, details: ErrorDetails = {}, headers: Record<string, string> = {}) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

export const badRequest = (code: string, message: string, details?: ErrorDetails) =>
  new ApiError(400, code, message, details);

/** Used for a missing object and for another org's object alike (guarantee 8). */
export const notFound = (what: string, id: string) =>
  new ApiError(404, "not_found", `${what} ${id} was not found`, { id });

export const conflict = (code: string, message: string, details?: ErrorDetails) =>
  new ApiError(409, code, message, details);
