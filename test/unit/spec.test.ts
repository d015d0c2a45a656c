import { describe, expect, it } from "vitest";
import { assertSpecAsksForSomething, parseGpuToken, SpecSchema } from "../../src/catalog/spec";
import { formatDuration, parseDuration } from "../../src/duration";
import { ApiError } from "../../src/errors";

function errorOf(f: () => unknown): ApiError {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected an ApiError");
}

describe("parseGpuToken", () => {
  it.each([
    ["l40s", { gpu: "l40s", provider: null, count: 1 }],
    ["l40s:2", { gpu: "l40s", provider: null, count: 2 }],
    ["L40S:2", { gpu: "l40s", provider: null, count: 2 }],
    [" H100:8 ", { gpu: "h100", provider: null, count: 8 }],
    ["l40s-sim:1", { gpu: "l40s", provider: "sim", count: 1 }],
    ["a100-80gb:8", { gpu: "a100-80gb", provider: null, count: 8 }],
    ["a100-80gb-runpod:8", { gpu: "a100-80gb", provider: "runpod", count: 8 }],
    ["h100-nvl", { gpu: "h100-nvl", provider: null, count: 1 }],
    ["h100-nvl-vast:2", { gpu: "h100-nvl", provider: "vast", count: 2 }],
    ["rtx-a6000-lambda", { gpu: "rtx-a6000", provider: "lambda", count: 1 }],
  ])("%s", (token, expected) => {
    expect(parseGpuToken(token)).toEqual(expected);
  });

  it.each(["h1000", "l40s-nowhere:1", "nvidia l40s", "l40s:", "sim", "l40s::2", "-sim:1", "l40s-:1"])(
    "refuses to guess %j and lists the known classes",
    (token) => {
      const e = errorOf(() => parseGpuToken(token));
      expect(e.status).toBe(400);
      expect(["unknown_gpu", "invalid_gpu_count"]).toContain(e.code);
      if (e.code === "unknown_gpu") expect(e.details.known_classes).toContain("l40s");
    },
  );

  it.each(["l40s:0", "l40s:-1", "l40s:1.5", "l40s:two", "l40s:01", "l40s:1e2", "l40s:99999"])("refuses the count in %j", (token) => {
    const e = errorOf(() => parseGpuToken(token));
    expect(e.status).toBe(400);
    expect(e.code).toBe("invalid_gpu_count");
  });
});

describe("SpecSchema", () => {
  it("accepts a full spec", () => {
    const spec = {
      gpu: "l40s:2",
      min_vram_gb: 48,
      min_cpu: 8,
      min_memory_gb: 64,
      min_disk_gb: 100,
      regions: ["us-east"],
      providers: ["sim"],
      exclude_providers: ["vast"],
      exclude_hosts: ["h1"],
      max_hourly_usd: 3,
      spot: false,
    };
    expect(SpecSchema.parse(spec)).toEqual(spec);
  });

  it.each([
    [{ gpu: "l40s", colour: "red" }, "unknown field"],
    [{ cpu: 0 }, "cpu below 1"],
    [{ cpu: 2.5 }, "fractional cpu"],
    [{ min_gpus: 0 }, "min_gpus below 1"],
    [{ min_vram_gb: -1 }, "negative minimum"],
    [{ max_hourly_usd: 0 }, "zero price ceiling"],
    [{ regions: "us-east" }, "regions not a list"],
    [{ spot: "yes" }, "spot not a boolean"],
    [{ gpu: "" }, "empty gpu"],
  ] as Array<[unknown, string]>)("refuses %j (%s)", (spec) => {
    expect(SpecSchema.safeParse(spec).success).toBe(false);
  });

  it("needs something to ask for, and not both gpu and cpu", () => {
    expect(errorOf(() => assertSpecAsksForSomething({ regions: ["us-east"] })).code).toBe("invalid_spec");
    expect(errorOf(() => assertSpecAsksForSomething({ gpu: "l4", cpu: 4 })).code).toBe("invalid_spec");
    expect(() => assertSpecAsksForSomething({ min_vram_gb: 80 })).not.toThrow();
  });
});

describe("durations", () => {
  it.each([
    ["90s", 90_000],
    ["15m", 900_000],
    ["2h", 7_200_000],
    ["1d", 86_400_000],
    ["366d", 366 * 86_400_000],
  ])("%s is %d ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["", "0s", "1", "1.5h", "2H", "1w", " 2h", "2h ", "-1h", "1h30m", "367d", "9999999d", "01h", "PT1H"])(
    "refuses %j",
    (text) => {
      expect(parseDuration(text)).toBeNull();
    },
  );

  it("formats with the largest exact unit", () => {
    expect(formatDuration(7_200_000)).toBe("2h");
    expect(formatDuration(5_400_000)).toBe("90m");
    expect(formatDuration(86_400_000)).toBe("1d");
    expect(formatDuration(90_000)).toBe("90s");
  });
});
