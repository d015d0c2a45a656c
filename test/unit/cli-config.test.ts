/**
 * Where the CLI finds its URL and key: flags, then the environment, then the file `lessor login`
 * writes (XDG_CONFIG_HOME respected), which is readable by its owner only.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configFile, resolveConfig, writeConfigFile } from "../../cli/config.mjs";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "lessor-cli-config-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("configFile", () => {
  it("is under XDG_CONFIG_HOME when it is an absolute path, else ~/.config", () => {
    expect(configFile({ XDG_CONFIG_HOME: "/x/conf", HOME: "/home/u" })).toBe("/x/conf/lessor/config.json");
    expect(configFile({ HOME: "/home/u" })).toBe("/home/u/.config/lessor/config.json");
    // The XDG spec: a relative path is invalid and ignored.
    expect(configFile({ XDG_CONFIG_HOME: "rel", HOME: "/home/u" })).toBe("/home/u/.config/lessor/config.json");
  });
});

describe("resolveConfig", () => {
  const stored = () => {
    writeConfigFile(path.join(dir, "lessor", "config.json"), { url: "https://file.example", api_key: "lsr_file" });
    return { XDG_CONFIG_HOME: dir };
  };

  it("takes the file when nothing else is set", () => {
    expect(resolveConfig({}, stored())).toEqual({ url: "https://file.example", apiKey: "lsr_file" });
  });

  it("the environment wins over the file, field by field", () => {
    expect(resolveConfig({}, { ...stored(), LESSOR_URL: "https://env.example/" })).toEqual({ url: "https://env.example", apiKey: "lsr_file" });
    expect(resolveConfig({}, { ...stored(), LESSOR_API_KEY: "lsr_env" })).toEqual({ url: "https://file.example", apiKey: "lsr_env" });
  });

  it("flags win over the environment", () => {
    const keyFile = path.join(dir, "key");
    writeFileSync(keyFile, "lsr_flag\n");
    const env = { ...stored(), LESSOR_URL: "https://env.example", LESSOR_API_KEY: "lsr_env" };
    expect(resolveConfig({ url: "https://flag.example/base/", apiKeyFile: keyFile }, env)).toEqual({ url: "https://flag.example/base", apiKey: "lsr_flag" });
  });

  it("refuses what it cannot use, naming where it came from", () => {
    expect(() => resolveConfig({}, { XDG_CONFIG_HOME: dir })).toThrow(/no lessor URL/);
    expect(() => resolveConfig({}, { XDG_CONFIG_HOME: dir, LESSOR_URL: "http://x" })).toThrow(/no API key/);
    expect(() => resolveConfig({ url: "ftp://x" }, { LESSOR_API_KEY: "k" })).toThrow(/--url.*not an http/);
    expect(() => resolveConfig({}, { LESSOR_URL: "not a url", LESSOR_API_KEY: "k" })).toThrow(/LESSOR_URL/);
    expect(() => resolveConfig({ apiKeyFile: path.join(dir, "missing") }, { LESSOR_URL: "http://x" })).toThrow(/--api-key-file/);
    writeFileSync(path.join(dir, "empty"), "\n");
    expect(() => resolveConfig({ apiKeyFile: path.join(dir, "empty") }, { LESSOR_URL: "http://x" })).toThrow(/empty/);
  });

  it("a file that is not a JSON object is a configuration error, not a crash", () => {
    const file = path.join(dir, "lessor", "config.json");
    writeConfigFile(file, { url: "http://x", api_key: "k" });
    writeFileSync(file, "[1]");
    expect(() => resolveConfig({}, { XDG_CONFIG_HOME: dir })).toThrow(/not a JSON object/);
  });
});

describe("writeConfigFile", () => {
  it("writes mode 0600, also over a file that was readable by others", () => {
    const file = path.join(dir, "deep", "lessor", "config.json");
    writeConfigFile(file, { url: "http://a", api_key: "lsr_1" });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    chmodSync(file, 0o644);
    expect(statSync(file).mode & 0o777).toBe(0o644);
    writeConfigFile(file, { url: "http://b", api_key: "lsr_2" });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ url: "http://b", api_key: "lsr_2" });
  });
});
