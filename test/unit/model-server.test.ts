/**
 * A deployment's pure parts: the command that starts its model server (every argument one shell
 * word, the key from the environment), what a probe's answers mean, and the configuration's
 * fingerprint and checks against the model catalog.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { configFingerprint, storedConfig } from "../../src/deployments/config";
import { listsModel, refusesAnonymous } from "../../src/lease/model-probe";
import { modelServerCommand, vllmCommand } from "../../src/providers/model-server";

/** The words /bin/sh makes of `cmd` when its model server is replaced by printing them, each ended by NUL. */
function words(cmd: string, env: Record<string, string> = {}): string[] {
  const printed = cmd.replace("exec python3 -m vllm.entrypoints.openai.api_server", "printf '%s\\0'");
  return execFileSync("/bin/sh", ["-c", printed], { env: { PATH: process.env.PATH, ...env }, encoding: "utf8" }).split("\0").slice(0, -1);
}

describe("the model server's command", () => {
  it("vLLM: every argument one word, however it is written; the key read from the environment", () => {
    const nasty = ["--chat-template", "{{ 'a' }} $(rm -rf /) `x` \"q\"\n;|&"];
    const cmd = vllmCommand({ model: "Qwen/Qwen2.5-0.5B-Instruct", engine_args: nasty });
    expect(words(cmd, { LESSOR_MODEL_KEY: "k3y with space" })).toEqual([
      "--model", "Qwen/Qwen2.5-0.5B-Instruct", "--served-model-name", "Qwen/Qwen2.5-0.5B-Instruct", "--host", "0.0.0.0", "--port", "8000", ...nasty, "--api-key", "k3y with space",
    ]);
    expect(cmd).not.toContain("k3y");
  });
  it("the sim serves the model in its command language; the real clouds run vLLM", () => {
    expect(modelServerCommand("sim", { model: "m/x", engine_args: ["--a"] })).toBe("serve m/x");
    for (const p of ["runpod", "vast", "lambda"]) expect(modelServerCommand(p, { model: "m/x", engine_args: [] })).toBe(vllmCommand({ model: "m/x", engine_args: [] }));
  });
});

describe("what a probe's answers mean", () => {
  it("the model is listed only by its exact id in an OpenAI model list", () => {
    expect(listsModel({ data: [{ id: "a" }, { id: "m/x" }] }, "m/x")).toBe(true);
    for (const body of [{ data: [{ id: "M/X" }] }, { data: [] }, { data: "m/x" }, null, "m/x", { models: [{ id: "m/x" }] }]) expect(listsModel(body, "m/x")).toBe(false);
  });
  it("only 401 and 403 refuse a request without the key", () => {
    expect(refusesAnonymous(401)).toBe(true);
    expect(refusesAnonymous(403)).toBe(true);
    for (const s of [200, 204, 400, 404, 500, 502]) expect(refusesAnonymous(s)).toBe(false);
  });
});

describe("a deployment's configuration", () => {
  const MODEL = "Qwen/Qwen2.5-0.5B-Instruct";
  it("the same request, however written, has one fingerprint; the policy is not in it", async () => {
    const a = await configFingerprint(storedConfig({ model: MODEL, spec: { gpu: "l40s:1", max_hourly_usd: 2 } }));
    const b = await configFingerprint(storedConfig({ model: MODEL.toUpperCase(), spec: { max_hourly_usd: 2, gpu: "l40s:1" }, policy: { idle_timeout: "1h" }, engine_args: [] }));
    expect(b).toBe(a);
    for (const other of [
      { model: MODEL, spec: { gpu: "l40s:2" } },
      { model: MODEL, spec: { gpu: "l40s:1", max_hourly_usd: 2 }, image: "vllm/vllm-openai@sha256:" + "0".repeat(64) },
      { model: MODEL, spec: { gpu: "l40s:1", max_hourly_usd: 2 }, engine_args: ["--max-model-len", "4096"] },
      { model: "meta-llama/Llama-3.2-1B-Instruct", spec: { gpu: "l40s:1", max_hourly_usd: 2 } },
    ]) expect(await configFingerprint(storedConfig(other))).not.toBe(a);
  });
  it("without a spec, the smallest placement that fits; an unknown model is 400, below the floor 409 no_placement", () => {
    expect(storedConfig({ model: MODEL }).spec).toEqual({ gpu: "t4:1" });
    expect(() => storedConfig({ model: "nobody/nothing" })).toThrow(expect.objectContaining({ status: 400, code: "unknown_model" }));
    expect(() => storedConfig({ model: "meta-llama/Llama-3.1-8B-Instruct", spec: { gpu: "t4:1" } })).toThrow(expect.objectContaining({ status: 409, code: "no_placement" }));
    expect(storedConfig({ model: "meta-llama/Llama-3.1-8B-Instruct", spec: { gpu: "l40s:1" } }).model).toBe("meta-llama/Llama-3.1-8B-Instruct");
  });
});
