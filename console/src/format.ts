/** How the console writes money, times and durations. */

export const usd = (n: number | null | undefined, digits = 2): string => (n === null || n === undefined ? "—" : `$${n.toFixed(digits)}`);

export const rate = (n: number | null | undefined): string => (n === null || n === undefined ? "—" : `${usd(n, 3)}/h`);

/** `1h 02m`, `4m 05s`, `12s`: a countdown's remaining time. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, "0")}m`;
  if (m > 0) return `${m}m ${String(sec).padStart(2, "0")}s`;
  return `${sec}s`;
}

export const time = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : "—");

/** What a lease (or anything billed by the hour) costs over `ms`. */
export const costOver = (hourly: number, ms: number): number => (hourly * ms) / 3_600_000;
