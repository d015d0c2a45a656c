/**
 * A user's exec on the lease's machine (docs/agent.md "Exec"), as pure functions: how long the
 * request waits, and how a queued command reads to the user.
 */
import { z } from "@hono/zod-openapi";
import type { CommandView } from "./occupant";

/** An exec's command line, at most (UTF-8 bytes). */
export const EXEC_CMD_MAX_BYTES = 8 * 1024;
/** The wait when the request names none. */
export const EXEC_DEFAULT_TIMEOUT_MS = 60_000;
/** The longest a request waits for an exec's result, whatever it asks. */
export const EXEC_MAX_WAIT_MS = 600_000;
/** What an exec's answer carries of its output, at most (UTF-8 bytes, the marker included). */
export const EXEC_OUTPUT_MAX_BYTES = 1024 * 1024;

export const EXEC_STATES = ["pending", "running", "done", "failed"] as const;

export interface ExecView {
  exec_id: string;
  state: (typeof EXEC_STATES)[number];
  exit_code: number | null;
  output: string | null;
  output_truncated: boolean;
  created_at: string;
}

/** How long a request waits: what it asked, but never past the lease's ttl nor `maxMs` (EXEC_MAX_WAIT_MS). */
export function execWaitMs(timeoutMs: number, ttlDeadline: number | null, now: number, maxMs = EXEC_MAX_WAIT_MS): number {
  const ttlLeft = ttlDeadline === null ? Infinity : Math.max(0, ttlDeadline - now);
  return Math.min(timeoutMs, ttlLeft, maxMs);
}

/** The marker an output cut to EXEC_OUTPUT_MAX_BYTES begins with. */
export function cutMarker(cutBytes: number): string {
  return `[lessor: ${cutBytes} bytes of earlier output were cut to keep this answer within ${EXEC_OUTPUT_MAX_BYTES} bytes]\n`;
}

/** The last bytes of `output` that fit EXEC_OUTPUT_MAX_BYTES with the marker before them; whole characters only. */
export function cutOutput(output: string, max = EXEC_OUTPUT_MAX_BYTES): { output: string; truncated: boolean } {
  const bytes = new TextEncoder().encode(output);
  if (bytes.byteLength <= max) return { output, truncated: false };
  // The marker's length depends on the number in it; the largest number it can show bounds it.
  const room = max - new TextEncoder().encode(cutMarker(bytes.byteLength)).byteLength;
  let start = bytes.byteLength - room;
  while (start < bytes.byteLength && (bytes[start]! & 0xc0) === 0x80) start++; // not inside a character
  return { output: cutMarker(start) + new TextDecoder().decode(bytes.subarray(start)), truncated: true };
}

/** A command as its user sees it: `failed` is a result with an exit code other than 0 (or none). */
export function execView(c: CommandView): ExecView {
  const state = c.state === "queued" ? "pending" : c.state === "delivered" ? "running" : c.exit_code === 0 ? "done" : "failed";
  const cut = c.output === null ? null : cutOutput(c.output);
  return {
    exec_id: c.id,
    state,
    exit_code: c.exit_code,
    output: cut?.output ?? null,
    output_truncated: cut?.truncated ?? false,
    created_at: c.created_at,
  };
}

export const ExecSchema = z
  .object({
    exec_id: z.string().openapi({ example: "cmd_01jd0000000000000000000000" }),
    state: z.enum(EXEC_STATES).describe("pending: not yet taken by the agent; running: taken, no result yet; done: exit code 0; failed: any other result"),
    exit_code: z.number().int().nullable().describe("null until there is a result, or when the agent could not run it"),
    output: z.string().nullable().describe(`stdout and stderr, at most ${EXEC_OUTPUT_MAX_BYTES} bytes; null until there is a result`),
    output_truncated: z.boolean().describe("the output was cut: it keeps the last bytes, after a marker line saying how many were cut"),
    created_at: z.string(),
  })
  .openapi("Exec");

/** The byte length of `text` in UTF-8. */
export function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).byteLength;
}
