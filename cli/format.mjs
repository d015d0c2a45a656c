// @ts-check
/**
 * Human output: aligned tables, times relative to now ("in 14 min"), money with cents, colour
 * only where it is wanted. Pure functions of their input and `now`; the commands print.
 */

/** Colour on a terminal unless NO_COLOR is set to anything but "" (no-color.org). @param {{ isTTY?: boolean }} stream @param {Record<string, string | undefined>} env */
export function wantsColor(stream, env) {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return stream.isTTY === true;
}

const CODES = /** @type {const} */ ({ bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39] });
/** @typedef {keyof typeof CODES} Style */

/** @param {boolean} enabled */
export function painter(enabled) {
  /** @param {Style} style @param {string} text */
  return (style, text) => (enabled && text ? `\u001b[${CODES[style][0]}m${text}\u001b[${CODES[style][1]}m` : text);
}
/** @typedef {ReturnType<typeof painter>} Paint */

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;
const width = (/** @type {string} */ s) => s.replace(ANSI, "").length;

/**
 * Columns padded to their widest cell, two spaces apart; a column whose header is listed in
 * `right` (numbers, money) is aligned right. No trailing spaces.
 * @param {string[]} headers
 * @param {string[][]} rows
 * @param {{ right?: string[] }} [options]
 */
export function table(headers, rows, options = {}) {
  const right = new Set(options.right ?? []);
  const widths = headers.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ""))));
  const line = (/** @type {string[]} */ cells) =>
    cells
      .map((cell, i) => {
        const pad = " ".repeat((widths[i] ?? 0) - width(cell));
        return right.has(headers[i] ?? "") ? pad + cell : i === cells.length - 1 ? cell : cell + pad;
      })
      .join("  ")
      .trimEnd();
  return [line(headers), ...rows.map(line)].join("\n");
}

/**
 * `label: value` lines, labels padded to the widest; a null or empty value is left out.
 * @param {Array<[string, string | null | undefined]>} pairs
 */
export function fields(pairs) {
  const shown = pairs.filter((p) => p[1] !== null && p[1] !== undefined && p[1] !== "");
  const w = Math.max(0, ...shown.map(([k]) => k.length));
  return shown.map(([k, v]) => `${`${k}:`.padEnd(w + 1)} ${v}`).join("\n");
}

/**
 * Dollars with cents; a positive amount under a cent says so rather than showing $0.00.
 * @param {number | null | undefined} usd
 */
export function money(usd) {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return "-";
  if (usd > 0 && usd < 0.005) return "<$0.01";
  const sign = usd < 0 ? "-" : "";
  return `${sign}$${Math.abs(usd).toFixed(2)}`;
}

/** An hourly rate: `$0.39/h`. @param {number | null | undefined} usd */
export const hourly = (usd) => (usd === null || usd === undefined ? "-" : `${money(usd)}/h`);

/** Bytes for a person: `812 B`, `3.4 KiB`, `51.2 MiB`. @param {number} n */
export function bytesText(n) {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n / 1024;
  let i = 0;
  for (; v >= 1024 && i < units.length - 1; i++) v /= 1024;
  return `${v.toFixed(1)} ${units[i]}`;
}

/**
 * A span in words: `45 s`, `14 min`, `2 h 5 min`, `3 d 4 h`.
 * @param {number} ms
 */
export function span(ms) {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 60) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return min % 60 === 0 ? `${h} h` : `${h} h ${min % 60} min`;
  const d = Math.floor(h / 24);
  return h % 24 === 0 ? `${d} d` : `${d} d ${h % 24} h`;
}

/**
 * An ISO time relative to `now`: `in 14 min`, `3 h ago`, `now` within a second; `-` for none.
 * @param {string | null | undefined} iso
 * @param {number} now
 */
export function relative(iso, now) {
  if (!iso) return "-";
  const at = Date.parse(iso);
  if (!Number.isFinite(at)) return iso;
  const d = at - now;
  if (Math.abs(d) < 1000) return "now";
  return d > 0 ? `in ${span(d)}` : `${span(d)} ago`;
}

/** A lease state, coloured by what it means for the bill. @param {string} state @param {Paint} paint */
export function stateText(state, paint) {
  if (state === "ready") return paint("green", state);
  if (state === "released") return paint("dim", state);
  if (state === "stopped") return paint("cyan", state);
  return paint("yellow", state);
}

/**
 * Control characters a terminal acts on rather than shows: C0 but LF and TAB, DEL, and C1
 * (U+0080 to U+009F). ESC opens every escape sequence (colours, cursor moves, a window's title,
 * OSC 8 links, OSC 52 clipboard writes), and the C1 CSI and OSC open them in one character.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text that came from a machine (its log, an exec's output, an event's text), safe to print on a
 * terminal: each control character of CONTROL shown as `\xHH`, its code point in hex, so no
 * sequence it opens reaches the terminal as one. `--raw` prints it as it came.
 * @param {string} text
 */
export function visible(text) {
  return text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/**
 * A JSON document for stdout: JSON.stringify's, with DEL and the C1 controls written as `\u00HH`
 * escapes too (JSON.stringify escapes only C0), so a terminal shown it acts on none; the value a
 * program parses is the same.
 * @param {unknown} doc
 * @param {number} [indent]
 */
export function jsonText(doc, indent) {
  // eslint-disable-next-line no-control-regex
  return JSON.stringify(doc, null, indent).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
