/**
 * How the agent's heartbeats are stored (docs/agent.md "The protocol", docs/cost.md). Each one counts
 * at once, from the object's memory (`Occupant.facts`), but is written to the object's storage only
 * when the one stored is BEAT_WRITE_MS old, or older than the agent's token (the first heartbeat of
 * a machine's agent, or of one enrolled again, is always written). At agent.sh's 30 s that is every
 * third heartbeat: one row written each 90 s, where each heartbeat wrote one.
 *
 * What the object held in memory is lost when it starts again (an eviction, a deploy). Until it
 * hears a heartbeat itself, the lease's rules (src/lease/decide.ts `heardUntil`) count the agent as
 * heard until `beatBound`: the latest a lost heartbeat can have come. So a restart never reports a
 * silence that did not happen, nor ends a job's use early; the price is that a silence that did
 * happen is reported up to BEAT_WRITE_MS later when the object started again meanwhile.
 */
import { AGENT_SILENT_MS } from "../lease/decide";

/** How old the stored heartbeat may be before a heartbeat is written: the silence the rules wait for. */
export const BEAT_WRITE_MS = AGENT_SILENT_MS;

/** Whether a heartbeat at `now` is written: none is stored, or the stored one is older than the agent's token, or BEAT_WRITE_MS old. */
export function beatWritten(stored: number | null, tokenAt: number | null, now: number): boolean {
  return stored === null || stored < (tokenAt ?? 0) || now - stored >= BEAT_WRITE_MS;
}

/**
 * The latest a heartbeat that the object before this one held in memory can have come (null: none
 * can have been lost): less than BEAT_WRITE_MS after the one stored, and before this object
 * started. Once this object has heard a heartbeat itself, any lost one is older than that: null.
 */
export function beatBound(stored: number | null, startedAt: number, heardSinceStart: boolean): number | null {
  if (stored === null || heardSinceStart) return null;
  const bound = Math.min(stored + BEAT_WRITE_MS, startedAt);
  return bound > stored ? bound : null;
}
