/**
 * The CLI's argument parsing: which command runs with which flags, `--json` on either side of the
 * command, and every way a command line can be wrong answering exit code 2 with `error: ...` on
 * stderr (and, with --json, one error document on stdout).
 */
import { describe, expect, it } from "vitest";
import { exitCodesText, main } from "../../cli/main.mjs";
import { parseCap, parseLimit, parsePairs, parseUsd } from "../../cli/commands.mjs";
import { captureIo, parsed } from "../support/cli-io";


describe("lessor's command line", () => {
  it.each([
    [["--json", "ls"], "ls"],
    [["ls", "--json"], "ls"],
    [["ls", "--state", "ready", "--json", "--kind", "job"], "ls"],
  ])("%j: --json before or after the command", async (argv, name) => {
    const call = await parsed(argv);
    expect(call.name).toBe(name);
    expect(call.flags.json).toBe(true);
  });

  it("passes a command's flags and positional arguments", async () => {
    expect(await parsed(["offers", "--gpu", "l40s", "--region", "us-east", "--max-hourly", "2.5", "--spot"])).toMatchObject({
      name: "offers",
      flags: { gpu: "l40s", region: "us-east", maxHourly: "2.5", spot: true },
    });
    expect(await parsed(["quote", "--gpu", "l40s:1", "--region", "a", "--region", "b", "--ttl", "2h"])).toMatchObject({
      name: "quote",
      flags: { gpu: "l40s:1", region: ["a", "b"], provider: [], ttl: "2h" },
    });
    expect(await parsed(["lock", "ls_x", "--for", "2h"])).toMatchObject({ name: "lock", args: ["ls_x"], flags: { for: "2h" } });
    expect(await parsed(["extend", "train", "--by", "1h"])).toMatchObject({ name: "extend", args: ["train"], flags: { by: "1h" } });
    expect(await parsed(["usage"])).toMatchObject({ name: "usage", flags: { by: "provider" } });
    expect(await parsed(["usage", "--by", "day", "--from", "2026-11-01"])).toMatchObject({ flags: { by: "day", from: "2026-11-01" } });
    expect(await parsed(["budget"])).toMatchObject({ name: "budget" });
    expect(await parsed(["budget", "set", "--monthly", "100"])).toMatchObject({ name: "budgetSet", flags: { monthly: "100" } });
    expect(await parsed(["keys", "create", "ci", "--scope", "read"])).toMatchObject({ name: "keysCreate", args: ["ci"], flags: { scope: "read" } });
    expect(await parsed(["providers", "set", "runpod", "--option", "a=b", "--option", "c=d"])).toMatchObject({
      name: "providersSet",
      args: ["runpod"],
      flags: { option: ["a=b", "c=d"] },
    });
    expect(await parsed(["--url", "http://x", "--api-key-file", "/k", "gpus"])).toMatchObject({ name: "gpus", flags: { url: "http://x", apiKeyFile: "/k" } });
    expect(await parsed(["run", "--gpu", "l4", "--workdir", ".", "--out", "./out", "--", "python", "train.py"])).toMatchObject({
      name: "run",
      args: [["python", "train.py"]],
      flags: { gpu: "l4", workdir: ".", out: "./out" },
    });
    expect(await parsed(["scratch", "run", "--gpu", "l4", "--workdir", "src"])).toMatchObject({ name: "scratchRun", flags: { workdir: "src" } });
    expect(await parsed(["artifacts", "ls", "train", "--limit", "5"])).toMatchObject({ name: "artifactsLs", args: ["train"], flags: { limit: "5" } });
    expect(await parsed(["artifacts", "get", "train", "ckpt/", "-o", "out"])).toMatchObject({ name: "artifactsGet", args: ["train", "ckpt/"], flags: { output: "out" } });
    expect(await parsed(["artifacts", "get", "train"])).toMatchObject({ name: "artifactsGet", args: ["train", undefined] });
  });

  it.each([
    [["ls", "--bogus"], /unknown option '--bogus'/],
    [["lock", "ls_x"], /--for <duration>/],
    [["quote"], /--gpu/],
    [["status"], /missing required argument 'lease'/],
    [["ls", "--state", "happy"], /--state.*happy/],
    [["usage", "--by", "week"], /week/],
    [["keys", "create", "ci", "--scope", "root"], /root/],
    [["nonsense"], /unknown command 'nonsense'/],
    [[], /a command is needed/],
    [["keys"], /a command is needed/],
    [["help", "nonsense"], /no help for "nonsense"/],
    [["artifacts", "get"], /missing required argument 'lease'/],
    [["artifacts"], /a command is needed/],
  ])("%j is a usage error: exit 2, `error:` on stderr", async (argv, message) => {
    const io = captureIo();
    expect(await main(argv, io)).toBe(2);
    expect(io.err()).toMatch(/^error: |\nerror: /);
    expect(io.err()).toMatch(message);
    expect(io.out()).toBe("");
  });

  it("with --json, a usage error is also one JSON document on stdout", async () => {
    const io = captureIo();
    expect(await main(["ls", "--bogus", "--json"], io)).toBe(2);
    expect(JSON.parse(io.out())).toEqual({ error: { code: "usage", message: "unknown option '--bogus'", details: {} }, exit_code: 2 });
    expect(io.err()).toBe("error: unknown option '--bogus'\n");
  });

  it("without a URL or key configured: exit 2, naming the settings", async () => {
    const noUrl = captureIo({ env: { HOME: "/nonexistent" } });
    expect(await main(["gpus"], noUrl)).toBe(2);
    expect(noUrl.err()).toContain("LESSOR_URL");
    const noKey = captureIo({ env: { HOME: "/nonexistent", LESSOR_URL: "http://127.0.0.1:9" } });
    expect(await main(["gpus"], noKey)).toBe(2);
    expect(noKey.err()).toContain("LESSOR_API_KEY");
  });

  it("--version and --help exit 0 on stdout; `help exit-codes` prints the table", async () => {
    const version = captureIo();
    expect(await main(["--version"], version)).toBe(0);
    expect(version.out()).toBe("0.0.0-test\n");
    const versionJson = captureIo();
    expect(await main(["--version", "--json"], versionJson)).toBe(0);
    expect(JSON.parse(versionJson.out())).toEqual({ version: "0.0.0-test" });
    const help = captureIo();
    expect(await main(["ls", "--help"], help)).toBe(0);
    expect(help.out()).toContain("--state");
    const codes = captureIo();
    expect(await main(["help", "exit-codes"], codes)).toBe(0);
    expect(codes.out()).toBe(`${exitCodesText()}\n`);
    const codesJson = captureIo();
    expect(await main(["help", "exit-codes", "--json"], codesJson)).toBe(0);
    expect(JSON.parse(codesJson.out()).exit_codes).toHaveLength(13);
    const topic = captureIo();
    expect(await main(["help", "keys", "create"], topic)).toBe(0);
    expect(topic.out()).toContain("--scope");
  });

  it("never takes a key as an argument", async () => {
    const io = captureIo();
    expect(await main(["login", "--api-key", "lsr_secret"], io)).toBe(2);
    expect(io.err()).toContain("unknown option '--api-key'");
  });
});

describe("flag values", () => {
  it("dollars: positive numbers, a leading $ allowed", () => {
    expect(parseUsd("--max-hourly", "2.5")).toBe(2.5);
    expect(parseUsd("--max-hourly", "$0.01")).toBe(0.01);
    for (const bad of ["0", "-1", "", " ", "abc", "Infinity", "1e999"]) {
      expect(() => parseUsd("--max-hourly", bad), bad).toThrow(/--max-hourly/);
    }
  });

  it("caps: dollars or none", () => {
    expect(parseCap("--monthly", undefined)).toBeUndefined();
    expect(parseCap("--monthly", "none")).toBeNull();
    expect(parseCap("--monthly", "100")).toBe(100);
    expect(() => parseCap("--monthly", "None")).toThrow(/--monthly/);
  });

  it("limits: whole numbers from 1", () => {
    expect(parseLimit("--limit", undefined)).toBeUndefined();
    expect(parseLimit("--limit", "1")).toBe(1);
    expect(parseLimit("--limit", "200")).toBe(200);
    for (const bad of ["0", "-1", "1.5", "01", "x"]) expect(() => parseLimit("--limit", bad), bad).toThrow(/--limit/);
  });

  it("key=value pairs, the value may hold =", () => {
    expect(parsePairs("--option", ["a=b", "c=d=e", "f="])).toEqual({ a: "b", c: "d=e", f: "" });
    expect(() => parsePairs("--option", ["=b"])).toThrow(/--option/);
    expect(() => parsePairs("--option", ["ab"])).toThrow(/--option/);
  });
});
