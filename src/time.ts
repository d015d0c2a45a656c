/** Instants are kept as epoch milliseconds and answered as ISO 8601 UTC strings; null stays null. */
export function iso(ms: number): string;
export function iso(ms: number | null): string | null;
export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** RFC 3339, with milliseconds only when there are some (as the providers' documents write instants). */
export function rfc3339(ms: number): string {
  return iso(ms).replace(".000Z", "Z");
}
