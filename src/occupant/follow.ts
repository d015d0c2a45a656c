/**
 * Following a lease's log as Server-Sent Events (docs/agent.md "Following the log"): the log's
 * chunks as the followers of src/events/sse.ts read them. A chunk the agent posts is pushed to
 * every follower caught up; one behind is fed from storage, FOLLOW_BATCH_BYTES at a time.
 */
import { Followers, sseFrame } from "../events/sse";
import { droppedMarker } from "./logs";
import type { AgentExit } from "./occupant";

/** An exec counts as the lease's use at most this often (each is a write of the lease); a follow never does. */
export const USE_EVERY_MS = 5_000;
/** How much of the stored log one read from storage takes for a follower behind. */
export const FOLLOW_BATCH_BYTES = 1024 * 1024;

/** Why a follow ends: the command exited, or the lease was released. */
export type FollowEnd = { reason: "exited"; exit: AgentExit } | { reason: "released" };

export interface StoredLogChunk {
  seq: number;
  data: Uint8Array;
}

/** What the followers read from the lease's storage. */
export interface LogStorage {
  /** Chunks after `after` in order, at least one if there is any, about `maxBytes` in all. */
  chunksAfter(after: number, maxBytes: number): StoredLogChunk[];
  /** The highest sequence number dropped (-1: none) and the bytes dropped so far. */
  dropped(): { through: number; bytes: number };
  /** Why the follow ends now, or null while it goes on. */
  ended(): FollowEnd | null;
}

/** What a follower is sent: a chunk, or where chunks it had not read were dropped (`seq`: the last one dropped). */
export type LogItem = StoredLogChunk | { seq: number; dropped_bytes: number };

export function endEvent(end: FollowEnd): string {
  return sseFrame({ event: "end" }, JSON.stringify(end));
}

/** The followers of one lease's log; `onKeepalive` runs at each keepalive while any is open. */
export function logFollowers(storage: LogStorage, onKeepalive: () => void, keepaliveMs?: number): Followers<LogItem> {
  return new Followers<LogItem>(
    {
      itemsAfter: (cursor) => {
        const dropped = storage.dropped();
        // What it had not read is gone: one marker, then the oldest chunk kept.
        const marker: LogItem[] = cursor < dropped.through ? [{ seq: dropped.through, dropped_bytes: dropped.bytes }] : [];
        return [...marker, ...storage.chunksAfter(Math.max(cursor, dropped.through), FOLLOW_BATCH_BYTES)];
      },
      cursorOf: (item) => item.seq,
      writer: () => {
        // Per stream: a character split across two chunks is decoded whole.
        let decoder = new TextDecoder();
        return (item) => {
          if ("data" in item) return sseFrame({ id: item.seq }, decoder.decode(item.data, { stream: true }));
          decoder = new TextDecoder();
          return sseFrame({ event: "dropped" }, droppedMarker(item.dropped_bytes).trimEnd());
        };
      },
      ended: () => {
        const end = storage.ended();
        return end && endEvent(end);
      },
    },
    { onKeepalive, keepaliveMs },
  );
}
