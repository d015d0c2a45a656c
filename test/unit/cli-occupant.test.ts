/**
 * The CLI's commands for what runs on a machine, their pure parts: how `run` and `scratch exec`
 * turn their words into the command line the agent runs under `sh -c` (checked by a real sh), the
 * exit codes of a job's end and of a lease released too early, `kill`'s outcomes, how run's and
 * scratch's flags parse, and the Server-Sent Events parser the follows read.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { main } from "../../cli/main.mjs";
import { commandLine, exitCodeOf, exitCodeOfRelease, recoveryOf, restartNote } from "../../cli/occupant.mjs";
import { sseFrames } from "../../cli/stream.mjs";
import { captureIo, parsed } from "../support/cli-io";


const sh = (line: string) => execFileSync("sh", ["-c", `printf '%s\\n' ${line}`], { encoding: "utf8" });

describe("the command line a job runs", () => {
  it("one word is a shell line as given; several are quoted so sh sees the same words", () => {
    expect(commandLine(["echo hi; exit 3"])).toBe("echo hi; exit 3");
    const words = ["it's", "$HOME", "a b", "--json", "`id`", "", "back\\slash", "*"];
    expect(sh(commandLine(words))).toBe(words.map((w) => `${w}\n`).join(""));
    expect(commandLine(["python", "train.py", "--lr=3e-4"])).toBe("python train.py --lr=3e-4");
  });
  it("no words is a usage error (exit 2)", () => {
    expect(() => commandLine([])).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});

describe("exit codes", () => {
  it("a job's own code, or 128 + the signal's number", () => {
    expect(exitCodeOf({ code: 3, signal: null, at: "" })).toBe(3);
    expect(exitCodeOf({ code: 0, signal: null, at: "" })).toBe(0);
    expect(exitCodeOf({ code: null, signal: "TERM", at: "" })).toBe(143);
    expect(exitCodeOf({ code: null, signal: "KILL", at: "" })).toBe(137);
    expect(exitCodeOf({ code: null, signal: "NOSUCH", at: "" })).toBe(128);
  });
  it("a lease released before its command exited, by reason", () => {
    expect(exitCodeOfRelease("no_capacity")).toBe(6);
    expect(exitCodeOfRelease("budget_exceeded")).toBe(10);
    expect(exitCodeOfRelease("quota_exceeded")).toBe(10);
    for (const r of ["boot_timeout", "startup_timeout", "host_failed", "provider_refused", "provider_lost"]) expect(exitCodeOfRelease(r)).toBe(7);
    expect(exitCodeOfRelease("user_end")).toBe(1);
    expect(exitCodeOfRelease(null)).toBe(1);
  });
});

describe("parsing", () => {
  it("run: the words after -- are the command's, --json among them included", async () => {
    const call = await parsed(["run", "--gpu", "l4", "--env", "A=1", "--env", "B=2", "--rm", "--", "tool", "--json", "-x"]);
    expect(call.name).toBe("run");
    expect(call.args).toEqual([["tool", "--json", "-x"]]);
    expect(call.flags).toMatchObject({ gpu: "l4", env: ["A=1", "B=2"], rm: true });
    expect(call.flags.json).toBeUndefined();
  });
  it("run without --gpu, and kill's --no-escalate", async () => {
    const io = captureIo();
    expect(await main(["run", "--", "echo"], io)).toBe(2);
    expect(io.err()).toMatch(/^error: required option '--gpu <class>' not specified/m);
    expect((await parsed(["kill", "ls_x", "--no-escalate", "--timeout", "5s"])).flags).toMatchObject({ escalate: false, timeout: "5s" });
    expect((await parsed(["kill", "ls_x"])).flags).toMatchObject({ escalate: true });
  });
  it("scratch: exec's lease and words; ls lists scratch leases only; logs and events follow with -f", async () => {
    expect(await parsed(["scratch", "exec", "dev", "--", "nvidia-smi", "-L"])).toMatchObject({ name: "scratchExec", args: ["dev", ["nvidia-smi", "-L"]] });
    expect((await parsed(["scratch", "ls"])).flags).toMatchObject({ kind: "scratch" });
    expect(await parsed(["scratch", "logs", "dev", "-f"])).toMatchObject({ name: "logs", flags: expect.objectContaining({ follow: true }) });
    expect(await parsed(["logs", "dev", "--tail", "5"])).toMatchObject({ name: "logs", flags: expect.objectContaining({ tail: "5" }) });
    expect(await parsed(["events", "dev", "-f"])).toMatchObject({ name: "events", flags: expect.objectContaining({ follow: true }) });
  });
});

describe("sseFrames", () => {
  const body = (...parts: string[]) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const p of parts) c.enqueue(new TextEncoder().encode(p));
        c.close();
      },
    });
  const all = async (stream: ReadableStream<Uint8Array>) => {
    const out = [];
    for await (const f of sseFrames(stream)) out.push(f);
    return out;
  };
  it("dispatches frames with data only, joins data lines with LF, keeps the last id, and reads across chunk and CRLF boundaries", async () => {
    const frames = await all(body("retry: 3000\n\n: keepalive\n\nid: 1\nda", "ta: one\ndata: \n\nid: 2\r\nevent: dropped\r\ndata:x\r\n\r\n", "event: end\ndata: {}\n\n"));
    expect(frames).toEqual([
      { id: "1", event: "message", data: "one\n" },
      { id: "2", event: "dropped", data: "x" },
      { id: "2", event: "end", data: "{}" },
    ]);
  });
});

describe("run's recovery flags and restart notes (docs/cli.md)", () => {
  it("--recover alone recovers from every loss; a list names some; the others imply it", () => {
    expect(recoveryOf({})).toBeNull();
    expect(recoveryOf({ recover: true })).toEqual({ on: ["preempted", "host_failed", "provider_lost"] });
    expect(recoveryOf({ recover: "preempted", maxRestarts: "2", restartBackoff: "10s", fallbackOnDemand: true })).toEqual({
      on: ["preempted"], max_restarts: 2, backoff: "10s", fallback_on_demand: true,
    });
    expect(recoveryOf({ maxRestarts: "5" })).toEqual({ on: ["preempted", "host_failed", "provider_lost"], max_restarts: 5 });
    expect(() => recoveryOf({ recover: "ttl_expired" })).toThrow(/not one of/);
    expect(() => recoveryOf({ maxRestarts: "x" })).toThrow(/whole number/);
  });
  it("says each restart as the events tell it", () => {
    expect(restartNote({ type: "attempt_ended", reason: "preempted", detail: { attempt: 1, machine_ms: 12_400, restart: 1, next_offer: "sim:o2", next_at: "2026-12-06T10:00:05.000Z" } })).toBe(
      "attempt 1 lost its machine (preempted) after 12 s; restart 1 on sim:o2 at 10:00:05",
    );
    expect(restartNote({ type: "ready", detail: { restart: 2, loss_to_running_ms: 3456 } })).toBe("restart 2: running again 3.5 s after the loss");
    expect(restartNote({ type: "ready", detail: {} })).toBeNull();
  });
});
