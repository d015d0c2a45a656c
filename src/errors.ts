/**
 * The one error type of lessor. Every 4xx/5xx leaves the Worker as
 * `{"error": {"code", "message", "details"}, "request_id"}` (docs/design.md),
 * rendered in one place: functions/app.ts `onError`. An error says whether its message and details
 * may be shown to the caller (STYLE.md rule 2): a 4xx's may by default, a 5xx's may not, so text
 * from deep inside (a provider's answer, a stack) never reaches a client by accident.
 */
export type ErrorDetails = Record<string, unknown>;

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetails;
  /** Extra response headers, e.g. Retry-After on 429. */
  readonly headers: Record<string, string>;
  /** Whether `message` and `details` may be sent to the caller; otherwise only `code` is. */
  readonly expose: boolean;

  constructor(
    status: number,
    code: string,
    message: string,
    details: ErrorDetails = {},
    headers: Record<string, string> = {},
    expose: boolean = status < 500,
  ) {
    super(message);
    this.expose = expose;
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

/** What a 5xx says when its own message may not be shown. */
export const HIDDEN_MESSAGE = "internal error; quote the request_id when reporting it";

/** What a thrown value says: an Error's message, anything else as a string. */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
