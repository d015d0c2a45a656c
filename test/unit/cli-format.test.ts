/** The CLI's human output: tables, money, relative times, colour only where wanted, the guard in words. */
import { describe, expect, it } from "vitest";
import { bytesText, fields, hourly, money, painter, relative, span, stateText, table, wantsColor } from "../../cli/format.mjs";
import { guardText } from "../../cli/commands.mjs";

const NOW = Date.parse("2026-12-01T12:00:00Z");
const at = (ms: number) => new Date(NOW + ms).toISOString();
const MIN = 60_000;

describe("table", () => {
  it("pads every column to its widest cell, two spaces apart, right-aligning the named ones", () => {
    const text = table(
      ["GPU", "PRICE", "REGION"],
      [
        ["l40s", "$0.79/h", "us-east"],
        ["h100-nvl", "$12.00/h", "eu"],
      ],
      { right: ["PRICE"] },
    );
    expect(text.split("\n")).toEqual(["GPU          PRICE  REGION", "l40s       $0.79/h  us-east", "h100-nvl  $12.00/h  eu"]);
  });

  it("leaves no trailing spaces and measures coloured cells by what shows", () => {
    const red = painter(true)("red", "ready");
    const text = table(["A", "B"], [[red, "x"], ["longer", ""]]);
    expect(text.split("\n").map((l) => l.replace(/\u001b\[[0-9;]*m/g, ""))).toEqual(["A       B", "ready   x", "longer"]);
  });

  it("a table with no rows is its header", () => {
    expect(table(["A", "BB"], [])).toBe("A  BB");
  });
});

describe("fields", () => {
  it("aligns the values and leaves out empty ones", () => {
    expect(fields([["state", "ready"], ["lock", null], ["warnings", ""], ["ttl", "in 5 min"]])).toBe("state: ready\nttl:   in 5 min");
  });
});

describe("money", () => {
  it.each([
    [0, "$0.00"],
    [0.005, "$0.01"],
    [0.0049, "<$0.01"],
    [0.000001, "<$0.01"],
    [1, "$1.00"],
    [12.345, "$12.35"],
    [1234.5, "$1234.50"],
    [-0.5, "-$0.50"],
    [null, "-"],
    [Number.NaN, "-"],
  ])("%s is %s", (usd, text) => {
    expect(money(usd)).toBe(text);
  });

  it("a rate is per hour", () => {
    expect(hourly(0.79)).toBe("$0.79/h");
    expect(hourly(null)).toBe("-");
  });
});

describe("relative times", () => {
  it.each([
    [0, "now"],
    [999, "now"],
    [1000, "in 1 s"],
    [-45_000, "45 s ago"],
    [59_000, "in 59 s"],
    [60_000, "in 1 min"],
    [14 * MIN, "in 14 min"],
    [-14 * MIN - 20_000, "14 min ago"],
    [59 * MIN, "in 59 min"],
    [60 * MIN, "in 1 h"],
    [125 * MIN, "in 2 h 5 min"],
    [-47 * 60 * MIN, "47 h ago"],
    [48 * 60 * MIN, "in 2 d"],
    [75 * 60 * MIN, "in 3 d 3 h"],
  ])("%s ms from now is %j", (ms, text) => {
    expect(relative(at(ms), NOW)).toBe(text);
  });

  it("no time is -, and a text that is not a time is shown as it is", () => {
    expect(relative(null, NOW)).toBe("-");
    expect(relative("soon", NOW)).toBe("soon");
  });

  it("spans round to the unit shown", () => {
    expect(span(89_000)).toBe("1 min");
    expect(span(90_000)).toBe("2 min");
    expect(span(59 * MIN + 30_000)).toBe("1 h");
    expect(span(47 * 60 * MIN + 59 * MIN + 40_000)).toBe("2 d");
  });
});

describe("colour", () => {
  it("only on a terminal, never with NO_COLOR set to anything but empty", () => {
    expect(wantsColor({ isTTY: true }, {})).toBe(true);
    expect(wantsColor({ isTTY: false }, {})).toBe(false);
    expect(wantsColor({}, {})).toBe(false);
    expect(wantsColor({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    expect(wantsColor({ isTTY: true }, { NO_COLOR: "" })).toBe(true);
  });

  it("a painter that is off returns the text as it is", () => {
    expect(painter(false)("green", "ready")).toBe("ready");
    expect(painter(true)("green", "ready")).toBe("\u001b[32mready\u001b[39m");
    expect(stateText("released", painter(false))).toBe("released");
  });
});

describe("the guard in words", () => {
  it.each([
    [{ action: "none", reason: null, at: null, due: false, agent_silent_since: null, activity: null }, "nothing planned"],
    [{ action: "stop", reason: "ttl_expired", at: at(14 * MIN), due: false, agent_silent_since: null, activity: null }, "stop in 14 min (ttl_expired)"],
    [{ action: "release", reason: "max_lifetime", at: at(-1000), due: true, agent_silent_since: null, activity: null }, "release now (max_lifetime)"],
    [{ action: "stop", reason: null, at: null, due: false, agent_silent_since: null, activity: null }, "stop when due"],
  ] as const)("%j", (guard, text) => {
    expect(guardText(guard, NOW)).toBe(text);
  });
});

describe("bytesText", () => {
  it("bytes below a KiB as they are, then KiB, MiB, GiB with one decimal", () => {
    expect(bytesText(0)).toBe("0 B");
    expect(bytesText(1023)).toBe("1023 B");
    expect(bytesText(1024)).toBe("1.0 KiB");
    expect(bytesText(50 * 1024 * 1024)).toBe("50.0 MiB");
    expect(bytesText(5.5 * 1024 ** 3)).toBe("5.5 GiB");
  });
});
