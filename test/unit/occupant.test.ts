/**
 * The machine agent's pure parts (docs/agent.md): the lease token's format, hash and check; the
 * enrollment that stands for it in a create; the log's duplicate and cap rules; and the agent
 * script as the Worker embeds it.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { render, SOURCE, TARGET } from "../../scripts/gen-agent-script.mjs";
import { sha256Hex } from "../../src/ids";
import { chunksToDrop, droppedMarker, LOG_CAP_BYTES, LOG_MAX_CHUNKS, planAppend, type LogLedger } from "../../src/occupant/logs";
import {
  ENROLL_GRACE_MS,
  ENROLL_NONCE,
  enrollOpenUntil,
  hashLeaseToken,
  LEASE_TOKEN_FORMAT,
  looksLikeEnrollToken,
  looksLikeLeaseToken,
  mayEnroll,
  mintEnrollToken,
  mintLeaseToken,
  verifyLeaseToken,
  type Enrollment,
} from "../../src/occupant/token";
import { AGENT_SCRIPT } from "../../src/agent/script";
import { BEAT_WRITE_MS, beatBound, beatWritten } from "../../src/occupant/heartbeat";
import { AGENT_SILENT_MS } from "../../src/lease/decide";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

describe("the lease token", () => {
  it("is lsl_ and 43 base62 characters, different every time", () => {
    const tokens = Array.from({ length: 200 }, mintLeaseToken);
    for (const t of tokens) expect(t).toMatch(/^lsl_[0-9A-Za-z]{43}$/);
    expect(new Set(tokens).size).toBe(tokens.length);
    expect(LEASE_TOKEN_FORMAT.source).toBe("^lsl_[0-9A-Za-z]{43}$");
  });

  it("is recognised only in its exact format", () => {
    const t = mintLeaseToken();
    expect(looksLikeLeaseToken(t)).toBe(true);
    for (const bad of [t.slice(0, -1), `${t}x`, t.replace("lsl_", "lsr_"), `lsl_${"-".repeat(43)}`, "", "lsl_", ` ${t}`]) {
      expect(looksLikeLeaseToken(bad), bad).toBe(false);
    }
  });

  it("is stored as its SHA-256 (hex), which is not the token", async () => {
    const t = mintLeaseToken();
    const h = await hashLeaseToken(t);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(h).toBe(await sha256Hex(t));
    expect(h).not.toContain(t.slice(4));
  });

  it("verifies against its own hash only", async () => {
    const t = mintLeaseToken();
    const other = mintLeaseToken();
    const h = await hashLeaseToken(t);
    expect(await verifyLeaseToken(t, h)).toBe(true);
    expect(await verifyLeaseToken(other, h)).toBe(false);
    expect(await verifyLeaseToken(t, null)).toBe(false);
    // The hash itself is no token, and a malformed token is refused before hashing.
    expect(await verifyLeaseToken(h, h)).toBe(false);
    expect(await verifyLeaseToken(t.slice(0, -1), await hashLeaseToken(t.slice(0, -1)))).toBe(false);
  });
});

describe("the enrollment token", () => {
  it("is lse_ and 43 base62 characters, never taken for a lease token (nor one for it)", () => {
    const e = mintEnrollToken();
    expect(e).toMatch(/^lse_[0-9A-Za-z]{43}$/);
    expect([looksLikeEnrollToken(e), looksLikeLeaseToken(e)]).toEqual([true, false]);
    expect(looksLikeEnrollToken(mintLeaseToken())).toBe(false);
    expect(ENROLL_NONCE.test("a".repeat(31))).toBe(false);
    expect(ENROLL_NONCE.test("aZ9".repeat(11))).toBe(true);
  });

  it("is open for the lease's boot_timeout and ENROLL_GRACE_MS after lessor creates or starts the machine", () => {
    expect(ENROLL_GRACE_MS).toBe(10 * 60_000);
    expect(enrollOpenUntil(10 * 60_000, 1_000)).toBe(1_000 + 20 * 60_000);
  });

  it("gives a lease token to the machine's token while open, then only to the nonce that enrolled", async () => {
    const [token, other, nonce, stranger] = await Promise.all(["lse_a", "lse_b", "nonce-1", "nonce-2"].map(sha256Hex));
    const open: Enrollment = { enroll_hash: token!, enroll_open_until: 2_000, enroll_nonce_hash: null };
    const enrolled: Enrollment = { ...open, enroll_open_until: null, enroll_nonce_hash: nonce! };
    const cases: [string, Enrollment, string, string, number, boolean][] = [
      ["open, the machine's token", open, token!, stranger!, 1_999, true],
      ["open, another token", open, other!, stranger!, 1_000, false],
      ["its window passed", open, token!, stranger!, 2_000, false],
      ["no enrollment (the operator handed a lease token over)", { enroll_hash: null, enroll_open_until: 2_000, enroll_nonce_hash: null }, token!, stranger!, 1_000, false],
      ["closed, the nonce that enrolled (an answer lost, an agent started again)", enrolled, token!, nonce!, 9_999_999, true],
      ["closed, another nonce (a reader of the provider's records)", enrolled, token!, stranger!, 1_000, false],
      ["closed, the nonce with another token", enrolled, other!, nonce!, 1_000, false],
      ["open again after a start: any nonce", { ...enrolled, enroll_open_until: 5_000 }, token!, stranger!, 4_000, true],
    ];
    for (const [what, e, t, n, now, expected] of cases) expect(mayEnroll(e, t, n, now), what).toBe(expected);
  });
});

describe("the log's rules", () => {
  const empty: LogLedger = { bytes: 0, chunks: 0, dropped_through: -1, has_seq: false };

  it("stores a new chunk, and a chunk whose number is stored or was dropped once", () => {
    expect(planAppend(empty, 0, 10)).toEqual({ duplicate: false, excess_bytes: 0, excess_chunks: 0 });
    expect(planAppend({ ...empty, has_seq: true }, 0, 10)).toEqual({ duplicate: true });
    expect(planAppend({ ...empty, dropped_through: 7 }, 7, 10)).toEqual({ duplicate: true });
    expect(planAppend({ ...empty, dropped_through: 7 }, 3, 10)).toEqual({ duplicate: true });
    expect(planAppend({ ...empty, dropped_through: 7 }, 8, 10).duplicate).toBe(false);
  });

  it("keeps the cap exactly: at the cap nothing goes, one byte over something does", () => {
    const full = { ...empty, bytes: LOG_CAP_BYTES - 10, chunks: 5 };
    expect(planAppend(full, 9, 10)).toMatchObject({ excess_bytes: 0 });
    expect(planAppend(full, 9, 11)).toMatchObject({ excess_bytes: 1 });
    expect(planAppend({ ...empty, chunks: LOG_MAX_CHUNKS - 1 }, 9, 1)).toMatchObject({ excess_chunks: 0 });
    expect(planAppend({ ...empty, chunks: LOG_MAX_CHUNKS }, 9, 1)).toMatchObject({ excess_chunks: 1 });
  });

  it("drops the oldest chunks until the excess is covered, and no more", () => {
    const stored = [
      { seq: 1, bytes: 5 },
      { seq: 2, bytes: 5 },
      { seq: 3, bytes: 5 },
    ];
    expect(chunksToDrop(stored, 0, 0)).toEqual([]);
    expect(chunksToDrop(stored, 1, 0)).toEqual([stored[0]]);
    expect(chunksToDrop(stored, 5, 0)).toEqual([stored[0]]);
    expect(chunksToDrop(stored, 6, 0)).toEqual([stored[0], stored[1]]);
    expect(chunksToDrop(stored, 1, 2)).toEqual([stored[0], stored[1]]);
  });

  it("says how many bytes were dropped", () => {
    expect(droppedMarker(1234)).toBe(`[lessor: 1234 bytes of earlier output were dropped to keep this log within ${LOG_CAP_BYTES} bytes]\n`);
  });
});

describe("the heartbeat's writes", () => {
  const T = 1_800_000_000_000;
  it("writes the first, the first after a new token, and one each BEAT_WRITE_MS; holds the rest", () => {
    expect(BEAT_WRITE_MS).toBe(AGENT_SILENT_MS);
    expect(beatWritten(null, T, T + 1)).toBe(true);
    // Enrolled (or minted) after the stored heartbeat: the new agent's first is written.
    expect(beatWritten(T, T + 5_000, T + 6_000)).toBe(true);
    expect(beatWritten(T, T - 5_000, T + BEAT_WRITE_MS - 1)).toBe(false);
    expect(beatWritten(T, T - 5_000, T + BEAT_WRITE_MS)).toBe(true);
    // agent.sh's 30 s: every third is written.
    let stored = T;
    const written = [30, 60, 90, 120, 150, 180].map((s) => {
      const now = T + s * 1000 + s; // a few ms late each time
      const w = beatWritten(stored, T - 1, now);
      if (w) stored = now;
      return w;
    });
    expect(written).toEqual([false, false, true, false, false, true]);
  });

  it("after a restart, a lost heartbeat came less than BEAT_WRITE_MS after the stored one and before the object started", () => {
    expect(beatBound(null, T, false)).toBeNull();
    expect(beatBound(T, T + 10 * 60_000, false)).toBe(T + BEAT_WRITE_MS);
    expect(beatBound(T, T + 20_000, false)).toBe(T + 20_000);
    // Heard since the start: anything lost is older than what it heard.
    expect(beatBound(T, T + 20_000, true)).toBeNull();
    expect(beatBound(T, T, false)).toBeNull();
  });
});

describe("the agent script", () => {
  it("is embedded as it is in src/agent/agent.sh (run node scripts/gen-agent-script.mjs)", () => {
    const sh = readFileSync(SOURCE, "utf8");
    expect(readFileSync(TARGET, "utf8")).toBe(render(sh));
    expect(AGENT_SCRIPT).toBe(sh);
  });

  it("--check accepts the committed copy, and another script renders otherwise", () => {
    expect(render("#!/bin/sh\necho other\n")).not.toBe(readFileSync(TARGET, "utf8"));
    const check = spawnSync(process.execPath, [path.join(root, "scripts/gen-agent-script.mjs"), "--check"], { encoding: "utf8" });
    expect(check.status, check.stderr).toBe(0);
  });

  it("parses under /bin/sh (dash on Debian)", () => {
    const parsed = spawnSync("/bin/sh", ["-n", SOURCE], { encoding: "utf8" });
    expect(parsed.status, parsed.stderr).toBe(0);
  });

  it("uses no bash-only syntax", () => {
    const sh = readFileSync(SOURCE, "utf8");
    for (const bashism of ["[[", "function ", "$'", "<<<", "local ", "source "]) expect(sh, bashism).not.toContain(bashism);
  });
});
