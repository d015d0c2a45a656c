/** What the console says about a lease: its cost so far and its next deadline. */
// The types straight from the generated document, not through ./api, so that this pure module
// loads in Node (test/unit/console-facts.test.ts) without the browser's globals.
import type { components } from "../../cli/api-types";
import { costOver, duration } from "./format";

type Lease = components["schemas"]["Lease"];
type Guard = components["schemas"]["GuardedLease"]["guard"];

const RUNNING = new Set<Lease["state"]>(["booting", "ready", "starting", "stopping"]);

/**
 * The cost so far: the receipt's actual amount once settled, else lessor's estimate carried
 * forward from its `as_of` at the lease's current rate (an estimate, never a bill).
 */
export function costSoFar(lease: Lease, now: number): { usd: number; estimate: boolean } {
  const b = lease.billing;
  if (b.actual_usd !== null) return { usd: b.actual_usd, estimate: false };
  const since = now - Date.parse(b.estimate.as_of);
  const hourly = RUNNING.has(lease.state) ? b.estimate.hourly_usd : lease.state === "stopped" ? b.estimate.stopped_hourly_usd : 0;
  return { usd: b.estimate.amount_usd + (since > 0 ? costOver(hourly, since) : 0), estimate: true };
}

const ACTIONS: Partial<Record<Guard["action"], string>> = {
  release: "release",
  stop: "stop",
  start: "start",
  replace_host: "replace host",
  signal: "signal the command",
  diagnose: "diagnose",
  report_silent: "report silent",
};

/** "release in 59m 10s (ttl_expired)", or null when nothing is scheduled. */
export function nextDeadline(guard: Guard | undefined, now: number): string | null {
  if (!guard || guard.at === null || guard.action === "none") return null;
  const what = ACTIONS[guard.action] ?? guard.action.replace(/_/g, " ");
  const why = guard.reason ? ` (${guard.reason})` : "";
  const left = Date.parse(guard.at) - now;
  return guard.due || left <= 0 ? `${what} due now${why}` : `${what} in ${duration(left)}${why}`;
}
