/**
 * A tar archive written by hand (POSIX ustar), for tests that need a workdir bundle where node-tar
 * cannot run (the Workers pool): regular files and directories, names up to 100 bytes, or up to
 * 255 with the ustar prefix. `gzip` compresses with the platform's CompressionStream.
 */
const BLOCK = 512;

export interface TarInput {
  path: string;
  /** A directory when absent. */
  data?: Uint8Array | string;
}

function field(h: Uint8Array, at: number, length: number, value: string): void {
  h.set(new TextEncoder().encode(value).subarray(0, length), at);
}

const octal = (n: number, length: number) => n.toString(8).padStart(length - 1, "0");

/** One header block. */
function header(path: string, size: number, type: "0" | "5"): Uint8Array {
  const h = new Uint8Array(BLOCK);
  let name = path;
  let prefix = "";
  if (new TextEncoder().encode(path).byteLength > 100) {
    const cut = path.lastIndexOf("/", 155);
    prefix = path.slice(0, cut);
    name = path.slice(cut + 1);
  }
  field(h, 0, 100, name);
  field(h, 100, 8, octal(type === "5" ? 0o755 : 0o644, 8));
  field(h, 108, 8, octal(0, 8));
  field(h, 116, 8, octal(0, 8));
  field(h, 124, 12, octal(size, 12));
  field(h, 136, 12, octal(0, 12));
  field(h, 148, 8, "        ");
  field(h, 156, 1, type);
  field(h, 257, 6, "ustar\0");
  field(h, 263, 2, "00");
  field(h, 345, 155, prefix);
  let sum = 0;
  for (const b of h) sum += b;
  field(h, 148, 8, `${octal(sum, 7)}\0`);
  return h;
}

/** The archive of `entries`, in order, ended by two zero blocks. */
export function tarOf(entries: readonly TarInput[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const e of entries) {
    if (e.data === undefined) {
      parts.push(header(e.path.endsWith("/") ? e.path : `${e.path}/`, 0, "5"));
      continue;
    }
    const data = typeof e.data === "string" ? new TextEncoder().encode(e.data) : e.data;
    parts.push(header(e.path, data.byteLength, "0"), data, new Uint8Array((BLOCK - (data.byteLength % BLOCK)) % BLOCK));
  }
  parts.push(new Uint8Array(BLOCK * 2));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** `bytes` compressed with gzip. */
export async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer());
}
