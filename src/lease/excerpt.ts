/**
 * Text from outside lessor that the lease engine keeps in an event or a record: a dying model
 * server's log, a stall's diagnostics output, a provider's error. Each is an excerpt, bounded here
 * in bytes and in lines, in one place (docs/security.md "A failing deployment always releases"). A lease's event is one row of
 * its object's SQLite, which refuses a row past a few MB (SQLITE_TOOBIG): an unbounded excerpt made
 * the write that releases a failed deployment fail, again and again, while its machine billed.
 * A log without newlines (a progress bar redraws one line with `\r`) is one line, so lines alone
 * bound nothing. Pure: no I/O.
 */

/** Which end of the text an excerpt keeps: a log's last lines, a command's first output. */
export type ExcerptEnd = "start" | "end";

export interface ExcerptBound {
  keep: ExcerptEnd;
  /** At most this many lines (a final newline ends the last line). */
  lines: number;
  /** At most this many bytes of UTF-8, whole characters only. */
  bytes: number;
}

/** Every excerpt the engine stores, and its bounds. */
export const EXCERPTS = {
  /** A model server that exits while starting: its log's last lines, on `release_requested` (`log_tail`). */
  server_log: { keep: "end", lines: 30, bytes: 8 * 1024 },
  /** A stall's process list and `nvidia-smi`, on the `diagnostics` event (the machine cuts it at the same bytes). */
  diagnostics: { keep: "start", lines: 400, bytes: 8 * 1024 },
  /** A provider's or a step's error, on `<action>_failed`, `create_ambiguous` and `provider_refused` events. */
  error: { keep: "start", lines: 40, bytes: 4 * 1024 },
} as const satisfies Record<string, ExcerptBound>;

/** `text` within `bound`, and whether anything was cut. */
export function excerpt(text: string, bound: ExcerptBound): { text: string; cut: boolean } {
  const lined = byLines(text, bound);
  const bytes = new TextEncoder().encode(lined);
  if (bytes.byteLength <= bound.bytes) return { text: lined, cut: lined.length < text.length };
  let from = 0;
  let to = bytes.byteLength;
  if (bound.keep === "end") {
    from = to - bound.bytes;
    while (from < to && (bytes[from]! & 0xc0) === 0x80) from++; // never inside a character
  } else {
    to = bound.bytes;
    while (to > 0 && (bytes[to]! & 0xc0) === 0x80) to--; // the character that begins at `to` is left out whole
  }
  return { text: new TextDecoder().decode(bytes.subarray(from, to)), cut: true };
}

/** The first or last `bound.lines` lines of `text`; a final newline ends the last line and is kept. */
function byLines(text: string, bound: ExcerptBound): string {
  if (bound.lines <= 0) return "";
  const ended = text.endsWith("\n");
  const lines = (ended ? text.slice(0, -1) : text).split("\n");
  if (lines.length <= bound.lines) return text;
  if (bound.keep === "end") return lines.slice(-bound.lines).join("\n") + (ended ? "\n" : "");
  return lines.slice(0, bound.lines).join("\n") + "\n";
}

/** A list of paths an event keeps (`outputs_incomplete`'s `missing`): at most this many, and bytes of UTF-8 together. */
export const PATH_LIST = { items: 100, bytes: 8 * 1024 } as const;

/** The first items of `list` within `bound` (each path at most 1 KiB, so at least a few fit). */
export function boundedList(list: readonly string[], bound: { items: number; bytes: number } = PATH_LIST): string[] {
  const out: string[] = [];
  let bytes = 0;
  for (const item of list) {
    bytes += new TextEncoder().encode(item).byteLength;
    if (out.length >= bound.items || bytes > bound.bytes) break;
    out.push(item);
  }
  return out;
}
