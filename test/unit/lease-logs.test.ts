/**
 * The user's side of a lease's agent, its pure parts (docs/agent.md "The user's side"): a log's
 * last lines, the events of a follow and how followers are fed (pushed when caught up, from
 * storage when behind), an exec's wait, state and cut output.
 */
import { describe, expect, it, vi } from "vitest";
import { cutOutput, EXEC_MAX_WAIT_MS, EXEC_OUTPUT_MAX_BYTES, execView, execWaitMs } from "../../src/occupant/exec";
import { KEEPALIVE_COMMENT, RECONNECT_MS, sseFrame } from "../../src/events/sse";
import { endEvent, FOLLOW_BATCH_BYTES, logFollowers, type FollowEnd, type StoredLogChunk } from "../../src/occupant/follow";
import { tailLines } from "../../src/occupant/logs";
import type { CommandView } from "../../src/occupant/occupant";

describe("tailLines", () => {
  it("takes the last N lines, a final newline ending the last one", () => {
    expect(tailLines("a\nb\nc\n", 2)).toBe("b\nc\n");
    expect(tailLines("a\nb\nc", 2)).toBe("b\nc");
    expect(tailLines("a\nb\nc\n", 3)).toBe("a\nb\nc\n");
    expect(tailLines("a\nb\nc\n", 4)).toBe("a\nb\nc\n");
    expect(tailLines("a\nb\nc\n", 0)).toBe("");
    expect(tailLines("", 5)).toBe("");
    expect(tailLines("\n\n", 1)).toBe("\n");
  });
});

describe("events", () => {
  it("writes one data line per line of the text, so any line break survives as LF", () => {
    expect(sseFrame({ id: 7 }, "a\nb\n")).toBe("id: 7\ndata: a\ndata: b\ndata: \n\n");
    expect(sseFrame({ id: 8 }, "x\r\ny\rz")).toBe("id: 8\ndata: x\ndata: y\ndata: z\n\n");
    expect(endEvent({ reason: "released" })).toBe('event: end\ndata: {"reason":"released"}\n\n');
  });
});

/** A log in memory, as the lease's storage answers it. */
function memorySource() {
  const chunks: StoredLogChunk[] = [];
  let end: FollowEnd | null = null;
  const dropped = { through: -1, bytes: 0 };
  return {
    chunks,
    dropped,
    setEnd: (e: FollowEnd) => (end = e),
    source: {
      chunksAfter: (after: number, maxBytes: number) => {
        const out: StoredLogChunk[] = [];
        let bytes = 0;
        for (const c of chunks) {
          if (c.seq <= after) continue;
          out.push(c);
          bytes += c.data.byteLength;
          if (bytes >= maxBytes) break;
        }
        return out;
      },
      dropped: () => dropped,
      ended: () => end,
    },
  };
}

const bytes = (text: string) => new TextEncoder().encode(text);

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

const RETRY = `retry: ${RECONNECT_MS}\n\n`;

describe("log followers", () => {
  it("sends the stored log, then pushes each new chunk, and ends when told", async () => {
    const mem = memorySource();
    mem.chunks.push({ seq: 1, data: bytes("one\n") });
    const followers = logFollowers(mem.source, () => undefined);
    const stream = followers.open(-1);
    const reader = stream.getReader();
    const decoder = new TextDecoder();
    expect(decoder.decode((await reader.read()).value)).toBe(RETRY);
    expect(decoder.decode((await reader.read()).value)).toBe("id: 1\ndata: one\ndata: \n\n");
    mem.chunks.push({ seq: 2, data: bytes("two") });
    followers.push({ seq: 2, data: bytes("two") });
    expect(decoder.decode((await reader.read()).value)).toBe("id: 2\ndata: two\n\n");
    followers.push({ seq: 2, data: bytes("two") }); // already sent: not again
    mem.setEnd({ reason: "released" });
    followers.end();
    expect(decoder.decode((await reader.read()).value)).toContain("event: end");
    expect((await reader.read()).done).toBe(true);
    expect(followers.size).toBe(0);
  });

  it("starts after a resumed id, with the marker when what it had not read was dropped", async () => {
    const mem = memorySource();
    mem.chunks.push({ seq: 5, data: bytes("five\n") }, { seq: 6, data: bytes("six\n") });
    mem.setEnd({ reason: "released" });
    const followers = logFollowers(mem.source, () => undefined);
    expect(await readAll(followers.open(5))).toBe(`${RETRY}id: 6\ndata: six\ndata: \n\n${endEvent({ reason: "released" })}`);
    mem.dropped.through = 4;
    mem.dropped.bytes = 40;
    const text = await readAll(followers.open(2));
    expect(text.startsWith(`${RETRY}event: dropped\ndata: [lessor: 40 bytes`)).toBe(true);
    expect(text).toContain("id: 5\n");
    expect(await readAll(followers.open(4))).not.toContain("dropped");
  });

  it("keeps a slow reader's queue bounded: behind, it is fed from storage and loses nothing", async () => {
    const mem = memorySource();
    const followers = logFollowers(mem.source, () => undefined);
    const stream = followers.open(-1);
    const reader = stream.getReader();
    await new Promise((r) => setTimeout(r, 0)); // its first pull finds the log empty: it is caught up
    const big = new Uint8Array(FOLLOW_BATCH_BYTES / 4).fill(0x61);
    const fromStorage = vi.spyOn(mem.source, "chunksAfter");
    for (let seq = 0; seq < 40; seq++) {
      mem.chunks.push({ seq, data: big });
      followers.push({ seq, data: big });
    }
    const ids: string[] = [];
    mem.setEnd({ reason: "exited", exit: { code: 0, signal: null, at: "2026-01-01T00:00:00.000Z" } });
    followers.end();
    const decoder = new TextDecoder();
    let text = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    for (const m of text.matchAll(/^id: (\d+)$/gm)) ids.push(m[1]!);
    expect(ids).toEqual(Array.from({ length: 40 }, (_, i) => String(i)));
    expect(text.endsWith(endEvent({ reason: "exited", exit: { code: 0, signal: null, at: "2026-01-01T00:00:00.000Z" } }))).toBe(true);
    // Not read while 40 chunks (10 MiB) arrived: past its queue's worth, the rest came from storage.
    expect(fromStorage.mock.calls.length).toBeGreaterThan(1);
    expect(fromStorage.mock.calls[0]![0]).toBeGreaterThanOrEqual(2);
  });

  it("sends one keep-alive comment to every follower on one timer, and reports it", async () => {
    vi.useFakeTimers();
    try {
      const mem = memorySource();
      const ticks = vi.fn();
      const followers = logFollowers(mem.source, ticks, 1000);
      const a = followers.open(-1).getReader();
      const b = followers.open(-1).getReader();
      const decoder = new TextDecoder();
      expect(decoder.decode((await a.read()).value)).toBe(RETRY);
      expect(decoder.decode((await b.read()).value)).toBe(RETRY);
      vi.advanceTimersByTime(999);
      expect(ticks).not.toHaveBeenCalled();
      vi.advanceTimersByTime(1);
      expect(ticks).toHaveBeenCalledTimes(1);
      expect(decoder.decode((await a.read()).value)).toBe(KEEPALIVE_COMMENT);
      expect(decoder.decode((await b.read()).value)).toBe(KEEPALIVE_COMMENT);
      await a.cancel();
      await b.cancel();
      expect(followers.size).toBe(0);
      vi.advanceTimersByTime(5000);
      expect(ticks).toHaveBeenCalledTimes(1); // no follower, no timer
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("exec", () => {
  it("waits what was asked, never past the ttl nor EXEC_MAX_WAIT_MS", () => {
    expect(execWaitMs(5_000, null, 0)).toBe(5_000);
    expect(execWaitMs(5_000, 3_000, 1_000)).toBe(2_000);
    expect(execWaitMs(5_000, 500, 1_000)).toBe(0);
    expect(execWaitMs(3_600_000, null, 0)).toBe(EXEC_MAX_WAIT_MS);
  });

  it("reads a command as pending, running, done or failed", () => {
    const c: CommandView = { id: "cmd_1", kind: "exec", arg: "ls", state: "queued", created_at: "t", exit_code: null, output: null };
    expect(execView(c).state).toBe("pending");
    expect(execView({ ...c, state: "delivered" }).state).toBe("running");
    expect(execView({ ...c, state: "done", exit_code: 0, output: "" }).state).toBe("done");
    expect(execView({ ...c, state: "done", exit_code: 1, output: "" }).state).toBe("failed");
    expect(execView({ ...c, state: "done", exit_code: null, output: "" }).state).toBe("failed");
  });

  it("cuts an output over the limit to its last whole characters, after a marker, within the limit", () => {
    expect(cutOutput("x".repeat(100), 100)).toEqual({ output: "x".repeat(100), truncated: false });
    const cut = cutOutput("é".repeat(200) + "end", 120);
    expect(cut.truncated).toBe(true);
    expect(new TextEncoder().encode(cut.output).byteLength).toBeLessThanOrEqual(120);
    expect(cut.output).toMatch(/^\[lessor: \d+ bytes of earlier output were cut to keep this answer within 1048576 bytes\]\n(é)+end$/);
    expect(cutOutput("a".repeat(EXEC_OUTPUT_MAX_BYTES)).truncated).toBe(false);
    expect(cutOutput("a".repeat(EXEC_OUTPUT_MAX_BYTES + 1)).truncated).toBe(true);
  });
});
