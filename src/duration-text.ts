/**
 * Durations are written `90s`, `15m`, `2h`, `1d`, and parsed here alone (STYLE.md rule 12). No
 * import: the browser console (console/) parses with the same rule without bundling zod.
 */

export const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
export const DURATION_PATTERN = /^([1-9][0-9]{0,6})(s|m|h|d)$/;
/** No policy duration is longer than a year; longer is a typo, not an intent. */
export const MAX_DURATION_MS = 366 * UNIT_MS.d;

/** Milliseconds, or null when the text is not a duration lessor accepts. */
export function parseDuration(text: string): number | null {
  const m = DURATION_PATTERN.exec(text);
  if (!m) return null;
  const ms = Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
  return ms <= MAX_DURATION_MS ? ms : null;
}

/** The shortest exact spelling: 5400000 -> "90m", 7200000 -> "2h". */
export function formatDuration(ms: number): string {
  for (const unit of ["d", "h", "m"] as const) {
    if (ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  }
  return `${Math.round(ms / 1000)}s`;
}
