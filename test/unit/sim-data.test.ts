/**
 * The sim's data in and out, its pure parts (docs/sim.md "Data in and out"): the `cat` and `write`
 * statements, the bytes a write makes, and the tar reader that unpacks a workdir, checked against
 * archives node-tar (the CLI's packer) writes and against a hand-written ustar.
 */
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import * as tar from "tar";
import { describe, expect, it } from "vitest";
import { fileLines, parseScript, runScript, SCRIPT_CAT_LINE_MAX, SCRIPT_MAX_OUTPUT_FILES, SCRIPT_MAX_WRITE_BYTES, type ScriptProgram } from "../../src/providers/sim/script";
import { simFileBytes, SIM_WORKDIR_LIMITS } from "../../src/providers/sim/files";
import { readTar, TarError, type TarLimits } from "../../src/providers/sim/tar";
import { tarOf } from "../support/tar-write";

const T0 = 1_000_000;
const program = (source: string): ScriptProgram => {
  const parsed = parseScript(source);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.program;
};
const files = (entries: Record<string, string>) => ({ read: (p: string) => (p in entries ? new TextEncoder().encode(entries[p]) : null) });

describe("cat and write parse", () => {
  it("accepts a path, a size in bytes or with K, M, G, and an optional seed", () => {
    expect(program("cat data/a.txt; cat ./b")).toEqual([{ op: "cat", path: "data/a.txt" }, { op: "cat", path: "b" }]);
    expect(program("write out.bin 10; write m/x 2K s1; write y 3m; write z 1G")).toEqual([
      { op: "write", path: "out.bin", size: 10, seed: "out.bin" },
      { op: "write", path: "m/x", size: 2048, seed: "s1" },
      { op: "write", path: "y", size: 3 * 1024 ** 2, seed: "y" },
      { op: "write", path: "z", size: SCRIPT_MAX_WRITE_BYTES, seed: "z" },
    ]);
  });

  it.each([
    ["cat", "cat takes one path in the workdir"],
    ["cat a b", 'cat takes one path in the workdir, not "a b"'],
    ["cat ../etc/passwd", "cat: no segment of a path is empty, `.` or `..`"],
    ["cat /etc/passwd", "cat: a path is relative (no leading /)"],
    ["write a", "write takes a path under $LESSOR_OUT"],
    ["write a/../b 1", "write: no segment"],
    ["write a 2G", "write: the size is from 0 to 1073741824 bytes"],
    ["write a -1", "write: the size is from 0"],
    ["write a 1 b c", "write takes a path"],
    ["write a 1 s$", "write: the seed is one word"],
  ])("refuses %j", (source, message) => {
    const parsed = parseScript(source);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error.message).toContain(message);
  });
});

describe("cat and write run", () => {
  it("cat prints a file's lines at its time; a missing file is said and the run goes on", () => {
    const r = runScript(program("cat a.txt; sleep 1; cat nope; cat empty"), T0, [], T0 + 5000, files({ "a.txt": "one\ntwo\n\nthree", empty: "" }));
    expect(r.output).toEqual([
      { at: T0, text: "one" },
      { at: T0, text: "two" },
      { at: T0, text: "" },
      { at: T0, text: "three" },
      { at: T0 + 1000, text: "cat: nope: No such file or directory" },
    ]);
    expect(r.end).toEqual({ code: 0, signal: null, at: T0 + 1000 });
    // Without files (a machine without lessor's agent) every cat finds nothing.
    expect(runScript(program("cat a.txt"), T0, [], T0).output).toEqual([{ at: T0, text: "cat: a.txt: No such file or directory" }]);
  });

  it("cat cuts a long line and replaces bad UTF-8", () => {
    const lines = fileLines(new Uint8Array([0x61, 0xff, 0x0a, ...new Array(SCRIPT_CAT_LINE_MAX + 10).fill(0x62)]));
    expect(lines).toEqual(["a\ufffd", "b".repeat(SCRIPT_CAT_LINE_MAX)]);
  });

  it("write records each path's last write, in the order first written, and only what ran by then", () => {
    const p = program("write a 10; write b 20 x; sleep 2; write a 5 y");
    expect(runScript(p, T0, [], T0 + 1000).writes).toEqual([
      { path: "a", size: 10, seed: "a", at: T0 },
      { path: "b", size: 20, seed: "x", at: T0 },
    ]);
    expect(runScript(p, T0, [], T0 + 2000).writes).toEqual([
      { path: "a", size: 5, seed: "y", at: T0 + 2000 },
      { path: "b", size: 20, seed: "x", at: T0 },
    ]);
    // A KILL before the second write of `a` leaves the first.
    expect(runScript(p, T0, [{ signal: "KILL", at: T0 + 1500 }], T0 + 3000).writes.map((w) => w.size)).toEqual([10, 20]);
  });

  it("a write past the run's outputs is refused as a full disk refuses it, and the run goes on", () => {
    const source = Array.from({ length: SCRIPT_MAX_OUTPUT_FILES + 1 }, (_, i) => `write f${i} 1`).join("\n") + "\nwrite f0 2\nwrite a 1G; write b 1G; write c 1G; write d 1G; echo done";
    const r = runScript(program(source), T0, [], T0);
    expect(r.writes).toHaveLength(SCRIPT_MAX_OUTPUT_FILES);
    expect(r.writes[0]).toMatchObject({ path: "f0", size: 2 });
    expect(r.output.map((l) => l.text)).toEqual([
      `write: f${SCRIPT_MAX_OUTPUT_FILES}: No space left on device`,
      "write: a: No space left on device",
      "write: b: No space left on device",
      "write: c: No space left on device",
      "write: d: No space left on device",
      "done",
    ]);
    const room = runScript(program("write a 1G; write b 1G; write c 1G; write d 1G; write e 1"), T0, [], T0);
    expect(room.writes.map((w) => w.path)).toEqual(["a", "b", "c", "d"]);
  });
});

describe("simFileBytes", () => {
  it("is a pure function of the seed and the offset: any slice equals the same slice of the whole", () => {
    const whole = simFileBytes("s1", 0, 4099);
    expect(simFileBytes("s1", 0, 4099)).toEqual(whole);
    for (const [at, n] of [[0, 1], [1, 3], [3, 9], [1000, 3099], [4095, 4]] as const) expect(simFileBytes("s1", at, n)).toEqual(whole.subarray(at, at + n));
    expect(simFileBytes("s2", 0, 64)).not.toEqual(whole.subarray(0, 64));
    expect(simFileBytes("s1", 0, 0)).toHaveLength(0);
  });

  it("does not repeat or compress (a real checkpoint does neither), and its digest is fixed", () => {
    const bytes = simFileBytes("ckpt/model.bin", 0, 1 << 20);
    expect(gzipSync(bytes).byteLength).toBeGreaterThan(bytes.byteLength);
    // Written down once: the content of `write` is part of the language's contract (docs/sim.md).
    expect(createHash("sha256").update(simFileBytes("s1", 0, 1000)).digest("hex")).toBe("2055af08420606cac0b9222e9e8a5ebf85b4e0a285a5b422cd648114e71da93e");
  });
});

const stream = (bytes: Uint8Array, chunk = 700) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < bytes.byteLength; i += chunk) c.enqueue(bytes.slice(i, i + chunk));
      c.close();
    },
  });
const gunzipped = (gz: Uint8Array) => stream(gz).pipeThrough(new DecompressionStream("gzip"));
const asText = (fs: { path: string; data: Uint8Array }[]) => Object.fromEntries(fs.map((f) => [f.path, new TextDecoder().decode(f.data)]));

describe("readTar", () => {
  it("reads what node-tar (the CLI's packer) writes: nested files, a long path through pax, an empty file", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "sim-tar-"));
    const long = `${"deep/".repeat(40)}file.txt`;
    await mkdir(path.join(dir, path.dirname(long)), { recursive: true });
    await mkdir(path.join(dir, "src"));
    await writeFile(path.join(dir, "src/train.py"), "print('hi')\n");
    await writeFile(path.join(dir, long), "far down");
    await writeFile(path.join(dir, "empty"), "");
    await writeFile(path.join(dir, "bin.dat"), simFileBytes("b", 0, 70_000));
    const chunks: Buffer[] = [];
    for await (const c of tar.create({ cwd: dir, gzip: true, portable: true }, ["src", "deep", "empty", "bin.dat"])) chunks.push(c as Buffer);
    const got = await readTar(gunzipped(new Uint8Array(Buffer.concat(chunks))), SIM_WORKDIR_LIMITS);
    expect(got.map((f) => f.path).sort()).toEqual(["bin.dat", long, "empty", "src/train.py"].sort());
    expect(asText(got)["src/train.py"]).toBe("print('hi')\n");
    expect(asText(got)[long]).toBe("far down");
    expect(got.find((f) => f.path === "bin.dat")!.data).toEqual(simFileBytes("b", 0, 70_000));
  });

  it("reads a plain ustar with a prefix, drops ./ and keeps a file's last version", async () => {
    const prefixed = `${"p".repeat(120)}/name.txt`;
    const got = await readTar(stream(tarOf([{ path: "./a" }, { path: "./a/x", data: "1" }, { path: prefixed, data: "pre" }, { path: "a/x", data: "2" }]), 13), SIM_WORKDIR_LIMITS);
    expect(asText(got)).toEqual({ [prefixed]: "pre", "a/x": "2" });
  });

  const small: TarLimits = { entries: 3, bytes: 10, file_bytes: 6 };
  it.each([
    ["too many entries", tarOf([{ path: "a", data: "" }, { path: "b", data: "" }, { path: "c", data: "" }, { path: "d", data: "" }]), "more than 3 entries"],
    ["a file too big", tarOf([{ path: "a", data: "1234567" }]), "a: more than 6 bytes"],
    ["files too big together", tarOf([{ path: "a", data: "123456" }, { path: "b", data: "12345" }]), "more than 10 bytes"],
    ["a path that escapes", tarOf([{ path: "../evil", data: "x" }]), "no segment of a path"],
    ["an absolute path", tarOf([{ path: "/etc/x", data: "x" }]), "relative"],
    ["a damaged header", (() => { const t = tarOf([{ path: "a", data: "x" }]); t[10] = 1; return t; })(), "checksum does not match"],
    ["an archive cut short", tarOf([{ path: "a", data: "xyz" }]).subarray(0, 514), "ends inside an entry"],
  ])("refuses %s", async (_, bytes, message) => {
    const e = await readTar(stream(bytes), small).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TarError);
    expect((e as Error).message).toContain(message);
  });

  it("refuses what is not gzip as a TarError", async () => {
    const e = await readTar(gunzipped(new TextEncoder().encode("not gzip at all")), SIM_WORKDIR_LIMITS).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TarError);
    expect((e as Error).message).toContain("not a gzip-compressed tar archive");
  });
});
