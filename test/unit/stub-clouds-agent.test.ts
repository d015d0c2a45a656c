/**
 * The agent's environment and start line as each provider's document describes them, sent by the
 * real adapters to the stub clouds (which hold every request to the document, and read `env` and
 * `user_data` as the documents say): RunPod's `env` map and `args`, Vast's `-e` flags and
 * `args_str`, Lambda's cloud-init `user_data`. Values are hostile (quotes, newlines, `$()`), and
 * what the machine would get is worked out by a real `sh` or a YAML reader, never by string
 * compare alone. A refusal never carries the lease's token.
 */
import { execFileSync } from "node:child_process";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { machineLabel } from "../../src/lease/label";
import { AGENT_START, agentEnv } from "../../src/providers/agent-start";
import { ProviderError, type CreateMachineInput, type Provider } from "../../src/providers/contract";
import { LambdaProvider } from "../../src/providers/lambda/adapter";
import { RunPodProvider } from "../../src/providers/runpod/adapter";
import { VastProvider } from "../../src/providers/vast/adapter";
import { STUB_API_KEYS, STUB_LAMBDA_SSH_KEY_NAME, STUB_PROVIDERS, stubCloudAdmin, type StubProvider } from "../support/stub-clouds-admin";
import { LAMBDA_USER_DATA_MAX_BYTES } from "../support/stub-clouds/lambda";
import { readVastEnv } from "../support/stub-clouds/vast";
import { startStubClouds, type StubClouds } from "../support/stub-clouds/server";

let clouds: StubClouds;
const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);

beforeAll(async () => {
  clouds = await startStubClouds({ now: () => T0, logViolations: false });
});

afterAll(async () => {
  await clouds?.close();
});

const served = (p: StubProvider) => clouds?.health.providers.includes(p) ?? false;
const admin = (p: StubProvider) => stubCloudAdmin(clouds.url, p);

function adapter(p: StubProvider): Provider {
  const base = { apiKey: STUB_API_KEYS[p], baseUrl: clouds.baseUrl(p), sleep: async () => {} };
  if (p === "runpod") return new RunPodProvider(base);
  if (p === "vast") return new VastProvider(base);
  return new LambdaProvider({ ...base, sshKeyName: STUB_LAMBDA_SSH_KEY_NAME });
}

const label = machineLabel("stub", "ls_01jstubagent", 1);
const AGENT = { url: "https://lessor.example.com", lease_id: "ls_01jstubagent", enroll_token: "lse_Zx9-stub_token.value" };
const CMD = `python -c 'print("hi $(whoami)")' && echo "done"\nexit 0`;
const ENV = { HF_TOKEN: "hf_plainword123", PROMPT: `say "hi"\nand 'bye' $(rm -rf /)`, EMPTY: "" };

async function offerId(provider: Provider): Promise<string> {
  const { offers } = await provider.listOffers();
  // On-demand: a spot offer (Vast's by bid) is rented with a bid.
  const offer = offers.filter((o) => o.gpu === "l4" && o.gpu_count === 1 && !o.spot).sort((a, b) => a.hourly_usd - b.hourly_usd)[0];
  if (!offer) throw new Error(`${provider.name}: no l4:1 offer`);
  return offer.provider_offer_id;
}

/** What the stub cloud recorded of the create: the dialect's machine (cmd is the start field). */
function recorded(p: StubProvider, id: string) {
  const m = clouds.served[p]!.dialect.core.get(id)!;
  return { cmd: m.cmd as string, extra: m.extra as Record<string, any> };
}

/** The environment and argv a shell gets from `sh -c '<exports>; <start>'` split from an argument string. */
function shellSplit(args: string): string[] {
  return execFileSync("sh", ["-c", `set -- ${args}; printf '%s\\0' "$@"`]).toString().split("\0").slice(0, -1);
}

/** The environment a script leaves, after its exports, for the names asked (before it would fetch anything). */
function exportedBy(script: string, names: readonly string[]): Record<string, string> {
  const prefix = script.slice(0, script.indexOf(AGENT_START));
  const out = execFileSync("sh", ["-c", `${prefix}${names.map((n) => `printf '%s\\0' "\${${n}-<unset>}"`).join("; ")}`], { env: { PATH: process.env.PATH } });
  const values = out.toString().split("\0").slice(0, -1);
  return Object.fromEntries(names.map((n, i) => [n, values[i]!]).filter(([, v]) => v !== "<unset>"));
}

beforeEach(async (ctx) => {
  const p = STUB_PROVIDERS.find((x) => ctx.task.name.includes(`on ${x}`))!;
  if (!served(p)) ctx.skip();
  await admin(p).reset();
});

afterEach(async (ctx) => {
  const p = STUB_PROVIDERS.find((x) => ctx.task.name.includes(`on ${x}`))!;
  if (!served(p)) return;
  for (const q of STUB_PROVIDERS) if (served(q)) clouds.served[q]!.dialect.injected.length = 0;
  expect((await admin(p).getViolations()).violations).toEqual([]);
});

describe("the agent's environment and start line, as each document describes them", () => {
  const input = (offer: string, more: Partial<CreateMachineInput> = {}): CreateMachineInput => ({ label, offer_id: offer, cmd: CMD, env: ENV, agent: AGENT, ...more });
  const want = agentEnv("test", { agent: AGENT, cmd: CMD, env: ENV });

  it("on runpod: `env` is the whole map, as written; `args` is `sh -c <start line>`", async () => {
    const provider = adapter("runpod");
    const m = await provider.createMachine(input(await offerId(provider)));
    const { cmd, extra } = recorded("runpod", m.id);
    expect(extra.env).toEqual(want);
    expect(shellSplit(cmd)).toEqual(["sh", "-c", AGENT_START]);
    expect(cmd).not.toContain(AGENT.enroll_token);
  });

  it("on vast: plain values in `env` flags as Vast reads them, the others exported by `args_str`, together the whole map", async () => {
    const provider = adapter("vast");
    const m = await provider.createMachine(input(await offerId(provider)));
    const { cmd, extra } = recorded("vast", m.id);
    const argv = shellSplit(cmd);
    expect(argv.slice(0, 2)).toEqual(["sh", "-c"]);
    expect(argv).toHaveLength(3);
    expect(argv[2]!.endsWith(AGENT_START)).toBe(true);
    const exported = exportedBy(argv[2]!, Object.keys(want));
    // The token is a plain word: it travels in `env`, never in the start line.
    expect(extra.env).toMatchObject({ LESSOR_ENROLL_TOKEN: AGENT.enroll_token, LESSOR_URL: AGENT.url, HF_TOKEN: ENV.HF_TOKEN, EMPTY: "" });
    expect(Object.keys(exported).sort()).toEqual(["LESSOR_CMD", "PROMPT"]);
    expect({ ...extra.env, ...exported }).toEqual(want);
    expect(cmd).not.toContain(AGENT.enroll_token);
  });

  it("on lambda: `user_data` is a cloud-config whose one runcmd sets the whole map for the agent", async () => {
    const provider = adapter("lambda");
    const m = await provider.createMachine(input(await offerId(provider), { image: "vllm/vllm-openai@sha256:abc" }));
    const { cmd } = recorded("lambda", m.id);
    const doc = parse(cmd) as { runcmd: string[][] };
    const argv = doc.runcmd[0]!;
    expect(argv.slice(-3)).toEqual(["sh", "-c", AGENT_START]);
    const env = Object.fromEntries(argv.flatMap((a, n) => (argv[n - 1] === "-e" ? [[a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)]] : [])));
    expect(env).toEqual(want);
  });

  it("on vast: a value that is not a plain word with no command to export it is refused before anything is sent", async () => {
    const provider = adapter("vast");
    const offer = await offerId(provider);
    const e = await provider.createMachine({ label, offer_id: offer, env: { PROMPT: "two words" } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProviderError);
    expect((e as ProviderError).kind).toBe("refused");
    expect(await provider.listMachines(label)).toEqual([]);
  });
});

describe("the stub clouds refuse what the real APIs would", () => {
  it("on vast: `env` that is not Docker's -e/-p flags is refused (400 invalid_args), and the refusal is `refused`", () => {
    expect(readVastEnv("-e A=1 -p 8000:8000")).toEqual({ A: "1" });
    expect(readVastEnv("")).toEqual({});
    for (const bad of ["A=1", "-e", "-e 1A=x", `-e A="x y"`, "-e A=it's", "-v /:/host", "-p 80"]) expect(typeof readVastEnv(bad), bad).toBe("string");
  });

  it("on vast: a create whose env flags it cannot read is 400 invalid_args, nothing is rented", async () => {
    const res = await fetch(`${clouds.baseUrl("vast")}/api/v0/asks/${await offerId(adapter("vast"))}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${STUB_API_KEYS.vast}`, "content-type": "application/json" },
      body: JSON.stringify({ image: "img", label, env: `-e A="x y"` }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ success: false, error: "invalid_args" });
    expect(await adapter("vast").listMachines(label)).toEqual([]);
  });

  it("on lambda: user_data over 1MB, or in no cloud-init format, is 400 invalid-parameters, and the launch is `refused`", async () => {
    const provider = adapter("lambda");
    const offer = await offerId(provider);
    for (const [cmd, why] of [
      ["x".repeat(LAMBDA_USER_DATA_MAX_BYTES), /exceeds 1MB/],
      // Under 1MB as characters, over it as UTF-8 bytes.
      ["✓".repeat(LAMBDA_USER_DATA_MAX_BYTES / 3 + 1), /exceeds 1MB/],
    ] as const) {
      const e = (await provider.createMachine({ label, offer_id: offer, cmd, agent: AGENT }).catch((x: unknown) => x)) as ProviderError;
      expect(e).toBeInstanceOf(ProviderError);
      expect([e.kind, e.message]).toEqual(["refused", expect.stringMatching(why)]);
    }
    const res = await fetch(`${clouds.baseUrl("lambda")}/api/v1/instance-operations/launch`, {
      method: "POST",
      headers: { authorization: `Bearer ${STUB_API_KEYS.lambda}`, "content-type": "application/json" },
      body: JSON.stringify({ region_name: offer.split(":")[0], instance_type_name: offer.slice(offer.indexOf(":") + 1), ssh_key_names: [STUB_LAMBDA_SSH_KEY_NAME], user_data: "runcmd: [echo]" }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "global/invalid-parameters" } });
    expect(await provider.listMachines(label)).toEqual([]);
  });

  it("on runpod: an env value that is not a string breaks the document (a violation, 400)", async () => {
    const res = await fetch(`${clouds.baseUrl("runpod")}/v2/pods`, {
      method: "POST",
      headers: { authorization: `Bearer ${STUB_API_KEYS.runpod}`, "content-type": "application/json" },
      body: JSON.stringify({ name: label, image: "img", gpu: { id: "NVIDIA L4", count: 1 }, env: { A: 1 } }),
    });
    expect(res.status).toBe(400);
    expect((await admin("runpod").getViolations()).violations.map((v) => v.message).join("\n")).toMatch(/env/);
    await admin("runpod").clearViolations();
  });
});

describe("a refusal never carries the lease's token", () => {
  const echo: Record<StubProvider, (body: string) => { status: number; body: unknown }> = {
    runpod: (b) => ({ status: 400, body: { title: "Bad Request", status: 400, detail: `invalid request: ${b}` } }),
    vast: (b) => ({ status: 400, body: { success: false, error: "invalid_args", msg: `invalid args: ${b}` } }),
    lambda: (b) => ({ status: 400, body: { error: { code: "global/invalid-parameters", message: `invalid: ${b}` } } }),
  };

  it.each(STUB_PROVIDERS.map((p) => [`on ${p}`, p] as const))("a refusal that echoes the request is redacted %s", async (_, p) => {
    const provider = adapter(p);
    const offer = await offerId(provider);
    // The provider's answer holds the token in both forms an echo may take: as written and JSON-escaped.
    await admin(p).injectCreate({ ...echo[p](`LESSOR_ENROLL_TOKEN=${AGENT.enroll_token} env=${JSON.stringify({ HF_TOKEN: ENV.HF_TOKEN })}`), match: label });
    const e = (await provider.createMachine({ label, offer_id: offer, cmd: "serve", env: ENV, agent: AGENT }).catch((x: unknown) => x)) as ProviderError;
    expect(e).toBeInstanceOf(ProviderError);
    expect(e.kind).toBe("refused");
    expect(e.message).toContain("[redacted]");
    expect(e.message).not.toContain(AGENT.enroll_token);
    expect(e.message).not.toContain(ENV.HF_TOKEN);
  });
});
