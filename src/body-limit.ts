/** The most one request body may hold, on every route: past it functions/app.ts answers 413 `payload_too_large`. */
export const MAX_BODY_BYTES = 1024 * 1024;
