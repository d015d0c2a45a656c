/**
 * Cursor pagination: a cursor is the sort key and id of the last row served, base64url JSON.
 * A cursor that does not decode is a 400, never an empty page.
 */
import { z } from "@hono/zod-openapi";
import { badRequest } from "./errors";

export const MAX_PAGE = 200;
export const DEFAULT_PAGE = 50;

export const PageQuery = {
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(DEFAULT_PAGE).optional(),
  cursor: z.string().max(512).optional(),
};

export interface Cursor {
  /** The sort key of the last row (a number or a string). */
  k: number | string;
  id: string;
}

export function encodeCursor(c: Cursor): string {
  return btoa(JSON.stringify(c)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function decodeCursor(text: string | undefined): Cursor | null {
  if (text === undefined) return null;
  try {
    const c = JSON.parse(atob(text.replace(/-/g, "+").replace(/_/g, "/"))) as Cursor;
    if ((typeof c.k === "number" || typeof c.k === "string") && typeof c.id === "string") return c;
  } catch {
    // fall through
  }
  throw badRequest("invalid_cursor", "the cursor is not one this service issued");
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** Given `limit + 1` rows, the page and the cursor to the next one. */
export function pageOf<R, T>(rows: R[], limit: number, key: (r: R) => Cursor, render: (r: R) => T): Page<T> {
  const more = rows.length > limit;
  const served = more ? rows.slice(0, limit) : rows;
  const last = served[served.length - 1];
  return { data: served.map(render), next_cursor: more && last ? encodeCursor(key(last)) : null };
}
