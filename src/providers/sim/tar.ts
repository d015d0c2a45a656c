/**
 * A small streaming reader of tar archives (POSIX ustar, with pax and GNU long names), for the
 * sim's agent unpacking a workdir bundle (docs/sim.md "Data in and out").
 *
 * Why not a library: the Worker's gzipped bundle sits at its 200 KB target (docs/scale.md), the
 * maintained streaming readers carry a writer and Node's streams along, and nanotar wants the
 * whole archive in memory, which a 100 MiB bundle of a 128 MB isolate cannot be. What the sim
 * needs is small: the regular files' paths and bytes, read as they stream, never more than its
 * limits hold. It reads what node-tar (the CLI's packer), GNU tar and bsdtar write.
 */
import { pathProblem } from "../../artifacts/limits";

const BLOCK = 512;
/** A pax header's records or a GNU long name are at most this long (a path is at most 1 KiB anyway). */
const META_MAX_BYTES = 64 * 1024;

export interface TarLimits {
  /** Entries of any kind (files, directories, links, metadata). */
  entries: number;
  /** The regular files' bytes together. */
  bytes: number;
  /** One regular file's bytes. */
  file_bytes: number;
}

export interface TarFile {
  path: string;
  data: Uint8Array;
}

/** The archive is damaged, is not one, names a path that escapes, or passes a limit. */
export class TarError extends Error {}

/** Reads exactly the bytes asked of a stream, across its chunks. */
class ByteReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  #chunk: Uint8Array = new Uint8Array(0);
  #at = 0;
  #ended = false;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.getReader();
  }

  /** `n` bytes; fewer only at the end of the stream (null: it had ended already). */
  async take(n: number): Promise<Uint8Array | null> {
    const out = new Uint8Array(n);
    let filled = 0;
    while (filled < n) {
      if (this.#at === this.#chunk.byteLength) {
        if (this.#ended || !(await this.#next())) break;
        continue;
      }
      const step = Math.min(n - filled, this.#chunk.byteLength - this.#at);
      out.set(this.#chunk.subarray(this.#at, this.#at + step), filled);
      this.#at += step;
      filled += step;
    }
    if (filled === 0 && n > 0) return null;
    return filled === n ? out : out.subarray(0, filled);
  }

  /** Passes `n` bytes without keeping them; false when the stream ended first. */
  async skip(n: number): Promise<boolean> {
    while (n > 0) {
      if (this.#at === this.#chunk.byteLength && (this.#ended || !(await this.#next()))) return false;
      const step = Math.min(n, this.#chunk.byteLength - this.#at);
      this.#at += step;
      n -= step;
    }
    return true;
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => undefined);
  }

  async #next(): Promise<boolean> {
    const { done, value } = await this.#reader.read();
    if (done) {
      this.#ended = true;
      return false;
    }
    this.#chunk = value;
    this.#at = 0;
    return true;
  }
}

const text = (b: Uint8Array) => {
  const nul = b.indexOf(0);
  return new TextDecoder().decode(nul < 0 ? b : b.subarray(0, nul));
};

/** A numeric field: octal digits (spaces and NULs around them), or GNU's base-256 when its first bit is set. */
function number(b: Uint8Array): number {
  if (b[0]! & 0x80) {
    let n = b[0]! & 0x7f;
    for (let i = 1; i < b.byteLength; i++) n = n * 256 + b[i]!;
    return n;
  }
  const s = text(b).trim();
  if (!/^[0-7]*$/.test(s)) throw new TarError("a header's number is not octal");
  return s === "" ? 0 : parseInt(s, 8);
}

/** The checksum of a header: its bytes summed with the checksum field read as spaces. */
function checksumOk(h: Uint8Array): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
  return sum === number(h.subarray(148, 156));
}

/** A pax extended header's records (`<length> <key>=<value>\n`): the ones the sim reads. */
function paxRecords(data: Uint8Array): { path?: string; size?: number } {
  const out: { path?: string; size?: number } = {};
  let at = 0;
  while (at < data.byteLength) {
    const space = data.indexOf(0x20, at);
    const length = space < 0 ? NaN : Number(new TextDecoder().decode(data.subarray(at, space)));
    if (!Number.isInteger(length) || length <= 0 || at + length > data.byteLength) throw new TarError("a pax header is damaged");
    const record = new TextDecoder().decode(data.subarray(space + 1, at + length - 1));
    const eq = record.indexOf("=");
    const key = record.slice(0, eq);
    const value = record.slice(eq + 1);
    if (key === "path") out.path = value;
    if (key === "size" && /^\d+$/.test(value)) out.size = Number(value);
    at += length;
  }
  return out;
}

/**
 * The regular files of the tar stream `stream`, in archive order, with their bytes; directories,
 * links and devices are passed over (counted as entries). Paths lose a leading `./` and must be
 * artifact-style relative paths (src/artifacts/limits.ts `pathProblem`): an absolute or `..` path
 * is an error, as it would escape the workdir. A file named twice keeps its last bytes. Reading
 * stops, and the stream is cancelled, as soon as a limit is passed.
 */
export async function readTar(stream: ReadableStream<Uint8Array>, limits: TarLimits): Promise<TarFile[]> {
  const reader = new ByteReader(stream);
  const files = new Map<string, Uint8Array>();
  let entries = 0;
  let bytes = 0;
  let pending: { path?: string; size?: number } = {};
  try {
    for (;;) {
      const h = await reader.take(BLOCK);
      // The end: two blocks of zeros (one is enough), or a stream that simply stops between entries.
      if (h === null || h.every((b) => b === 0)) break;
      if (h.byteLength < BLOCK) throw new TarError("the archive ends inside a header");
      if (!checksumOk(h)) throw new TarError("a header's checksum does not match: not a tar archive, or a damaged one");
      if (++entries > limits.entries) throw new TarError(`more than ${limits.entries} entries`);
      const type = String.fromCharCode(h[156]!);
      const size = pending.size ?? number(h.subarray(124, 136));
      const padded = Math.ceil(size / BLOCK) * BLOCK;
      if (type === "x" || type === "L" || type === "g") {
        if (size > META_MAX_BYTES) throw new TarError("a pax header or long name is too long");
        const data = await reader.take(padded);
        if (data === null || data.byteLength < padded) throw new TarError("the archive ends inside an entry");
        if (type === "x") pending = { ...pending, ...paxRecords(data.subarray(0, size)) };
        if (type === "L") pending = { ...pending, path: text(data.subarray(0, size)) };
        continue;
      }
      const ustar = text(h.subarray(257, 262)) === "ustar";
      const prefix = ustar ? text(h.subarray(345, 500)) : "";
      const name = text(h.subarray(0, 100));
      let path = pending.path ?? (prefix ? `${prefix}/${name}` : name);
      pending = {};
      path = path.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
      const regular = type === "0" || type === "\0" || type === "7";
      if (regular) {
        const problem = pathProblem(path);
        if (problem !== null) throw new TarError(`${JSON.stringify(path.slice(0, 200))}: ${problem}`);
        if (size > limits.file_bytes) throw new TarError(`${path}: more than ${limits.file_bytes} bytes`);
        bytes += size - (files.get(path)?.byteLength ?? 0);
        if (bytes > limits.bytes) throw new TarError(`the files hold more than ${limits.bytes} bytes`);
        const data = await reader.take(padded);
        if (data === null || data.byteLength < padded) throw new TarError("the archive ends inside an entry");
        files.delete(path);
        files.set(path, data.slice(0, size));
      } else if (!(await reader.skip(padded))) {
        throw new TarError("the archive ends inside an entry");
      }
    }
  } catch (e) {
    await reader.cancel();
    // A gzip stream that is damaged fails the read with the platform's own error.
    if (e instanceof TarError) throw e;
    throw new TarError(`not a gzip-compressed tar archive (${e instanceof Error ? e.message : String(e)})`);
  }
  await reader.cancel();
  return [...files].map(([path, data]) => ({ path, data }));
}
