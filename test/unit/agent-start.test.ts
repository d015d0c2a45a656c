/**
 * The agent's start on a machine (src/providers/agent-start.ts): the environment, quoting that
 * holds for any value (checked by a real `sh`), the start line (run against a fake `curl`), and
 * Lambda's cloud-init user data (read back with a YAML parser, as cloud-init reads it).
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  AGENT_SCRIPT_PATH,
  AGENT_START,
  agentEnv,
  agentUserData,
  redactSecrets,
  secretsOf,
  shellArgs,
  shellExports,
  shQuote,
  startScript,
  withSecretsRedacted,
} from "../../src/providers/agent-start";
import { ProviderError } from "../../src/providers/contract";

const AGENT = { url: "https://lessor.example.com", lease_id: "ls_01jagent", enroll_token: "lse_s3cr3t-t0ken-value" };

/** Values no quoting may change. */
const HOSTILE = [
  "",
  "plain",
  "it's",
  `"double"`,
  "'; touch pwned; '",
  "$(touch pwned)",
  "`id`",
  "$HOME ${PATH}",
  "back\\slash\\",
  "line one\nline two\n",
  "tab\there",
  "'\\''",
  "*?[a]~",
  "ünïcødé ✓",
];

/** Runs a script in a real sh and returns what it printed. */
function sh(script: string, env: Record<string, string> = {}): string {
  return execFileSync("sh", ["-c", script], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env } }).toString();
}

/** The argv a POSIX shell makes of a provider's argument string (RunPod's `args`, Vast's `args_str`). */
function shellSplit(args: string): string[] {
  return sh(`set -- ${args}; printf '%s\\0' "$@"`).split("\0").slice(0, -1);
}

describe("agentEnv", () => {
  it("is the lease's variables, then lessor's four, which win; never a lease token, which would skip the enrollment", () => {
    const env = agentEnv("runpod", {
      agent: AGENT,
      cmd: "serve",
      env: { HF_TOKEN: "hf_x", LESSOR_URL: "https://evil.example", LESSOR_LEASE_TOKEN: "forged", LESSOR_ENROLL_TOKEN: "forged" },
    });
    expect(env).toEqual({ HF_TOKEN: "hf_x", LESSOR_URL: AGENT.url, LESSOR_LEASE_ID: AGENT.lease_id, LESSOR_ENROLL_TOKEN: AGENT.enroll_token, LESSOR_CMD: "serve" });
  });

  it("sets LESSOR_CMD only for a lease with a command (a lease's own LESSOR_CMD is dropped)", () => {
    expect(agentEnv("runpod", { agent: AGENT, env: { LESSOR_CMD: "x" } })).not.toHaveProperty("LESSOR_CMD");
    expect(agentEnv("runpod", { agent: AGENT, cmd: "" })).toHaveProperty("LESSOR_CMD", "");
  });

  it("without the agent is the lease's variables alone", () => {
    expect(agentEnv("vast", { env: { A: "1" }, cmd: "serve" })).toEqual({ A: "1" });
    expect(agentEnv("vast", {})).toEqual({});
  });

  it.each([["1ABC"], ["A-B"], ["A B"], [""], ["A=B"], ["Ä"]])("refuses the name %j (no shell can export it)", (name) => {
    let thrown: unknown;
    try {
      agentEnv("vast", { env: { [name]: "v" } });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ProviderError);
    expect((thrown as ProviderError).kind).toBe("refused");
  });

  it.each([["A"], ["_"], ["a_1"], ["HF_TOKEN"]])("takes the name %j", (name) => {
    expect(agentEnv("vast", { env: { [name]: "v" } })).toEqual({ [name]: "v" });
  });
});

describe("quoting", () => {
  it.each(HOSTILE.map((v) => [v]))("shQuote(%j) is one shell word that means exactly the value", (value) => {
    expect(sh(`printf '%s' ${shQuote(value)}`)).toBe(value);
    expect(shellSplit(`x ${shQuote(value)} y`)).toEqual(["x", value, "y"]);
  });

  it("shellExports sets every hostile value exactly, and runs none of them", () => {
    const env = Object.fromEntries(HOSTILE.map((v, n) => [`V${n}`, v]));
    const script = shellExports(env) + HOSTILE.map((_, n) => `printf '%s\\0' "$V${n}"`).join("; ");
    const dir = mkdtempSync(path.join(tmpdir(), "lessor-quote-"));
    const got = execFileSync("sh", ["-c", script], { cwd: dir }).toString().split("\0").slice(0, -1);
    expect(got).toEqual(HOSTILE);
    // Nothing in a value ran: no file was made where the values say `touch`.
    expect(sh(`ls -A ${shQuote(dir)}`)).toBe("");
  });

  it("shellArgs(AGENT_START) is `sh -c <the start line>` to a shell that splits it", () => {
    expect(shellSplit(shellArgs(AGENT_START))).toEqual(["sh", "-c", AGENT_START]);
  });
});

describe("AGENT_START", () => {
  /** A directory with a fake `curl` (or `wget`) that serves `agent` for the agent's URL, and nothing else. */
  function fakeTools(tool: "curl" | "wget", agent: string): string {
    const dir = mkdtempSync(path.join(tmpdir(), "lessor-agent-"));
    writeFileSync(path.join(dir, "agent.sh"), agent);
    writeFileSync(path.join(dir, "calls"), "");
    const out = tool === "curl" ? `-o) out="$2"; shift 2 ;;` : `-O) out="$2"; shift 2 ;;`;
    writeFileSync(
      path.join(dir, tool),
      `#!/bin/sh\nout=; url=\nwhile [ $# -gt 0 ]; do case "$1" in ${out} -*) shift ;; *) url="$1"; shift ;; esac; done\n` +
        `printf '%s\\n' "$url" >> ${shQuote(path.join(dir, "calls"))}\n` +
        `[ "$url" = "https://lessor.example.com${AGENT_SCRIPT_PATH}" ] || exit 22\ncp ${shQuote(path.join(dir, "agent.sh"))} "$out"\n`,
    );
    chmodSync(path.join(dir, tool), 0o755);
    return dir;
  }

  /** Only the fake tool, sh's own needs (mktemp, cp) and nothing else of the host's downloaders. */
  function pathWith(dir: string): string {
    const bin = mkdtempSync(path.join(tmpdir(), "lessor-bin-"));
    for (const t of ["sh", "mktemp", "cp", "cat"]) {
      const real = execFileSync("sh", ["-c", `command -v ${t}`]).toString().trim();
      writeFileSync(path.join(bin, t), `#!/bin/sh\nexec ${real} "$@"\n`);
      chmodSync(path.join(bin, t), 0o755);
    }
    return `${dir}:${bin}`;
  }

  it.each(["curl", "wget"] as const)("fetches the agent from $LESSOR_URL with %s and runs it with the lease's environment", (tool) => {
    const dir = fakeTools(tool, `printf 'agent %s %s\\n' "$LESSOR_LEASE_ID" "$LESSOR_CMD"\n`);
    const env = agentEnv("test", { agent: AGENT, cmd: `echo "it's $(done)"` });
    const out = execFileSync("/bin/sh", ["-c", AGENT_START], { env: { ...env, PATH: pathWith(dir) } }).toString();
    expect(out).toBe(`agent ls_01jagent echo "it's $(done)"\n`);
  });

  it("runs nothing when the agent cannot be fetched", () => {
    const dir = fakeTools("curl", "echo ran\n");
    let status = 0;
    let out = "";
    try {
      out = execFileSync("/bin/sh", ["-c", AGENT_START], { env: { LESSOR_URL: "https://elsewhere.example", PATH: pathWith(dir) }, stdio: "pipe" }).toString();
    } catch (e) {
      status = (e as { status: number }).status;
    }
    expect(status).not.toBe(0);
    expect(out).toBe("");
  });

  it("is what runs when the agent is given (the agent runs cmd); else cmd alone, or nothing", () => {
    expect(startScript({ agent: AGENT, cmd: "serve" })).toBe(AGENT_START);
    expect(startScript({ agent: AGENT })).toBe(AGENT_START);
    expect(startScript({ cmd: "serve" })).toBe("serve");
    expect(startScript({})).toBeUndefined();
  });

  it("has no single quote, so shellArgs wraps it in one plain quoted word", () => {
    expect(AGENT_START).not.toContain("'");
    expect(shellArgs(AGENT_START)).toBe(`sh -c '${AGENT_START}'`);
  });

  it("holds no secret: the enrollment token reaches the machine only through its environment", () => {
    expect(AGENT_START).not.toContain(AGENT.enroll_token);
    expect(AGENT_START).toContain("$LESSOR_URL");
  });
});

/** The one runcmd entry of a cloud-config, as cloud-init's YAML reader sees it. */
function runcmd(userData: string): string[] {
  expect(userData.startsWith("#cloud-config\n")).toBe(true);
  const doc = parse(userData) as { runcmd: string[][] };
  expect(doc.runcmd).toHaveLength(1);
  return doc.runcmd[0]!;
}

describe("agentUserData (Lambda)", () => {
  const env = Object.fromEntries(HOSTILE.map((v, n) => [`V${n}`, v]));

  it("with an image: docker runs it detached, each variable one -e argument, the agent as its command", () => {
    const argv = runcmd(agentUserData({ image: "vllm/vllm-openai@sha256:abc", agent: AGENT, cmd: "serve 'x'", env }, "lambda")!);
    const image = argv.indexOf("vllm/vllm-openai@sha256:abc");
    expect(argv.slice(0, 3)).toEqual(["docker", "run", "-d"]);
    expect(argv.slice(image + 1)).toEqual(["sh", "-c", AGENT_START]);
    const flags = argv.slice(0, image).flatMap((a, n, all) => (all[n - 1] === "-e" ? [a] : []));
    expect(flags).toEqual(Object.entries(agentEnv("lambda", { agent: AGENT, cmd: "serve 'x'", env })).map(([k, v]) => `${k}=${v}`));
  });

  it("without an image: env(1) sets the variables for the agent on the VM itself", () => {
    const argv = runcmd(agentUserData({ agent: AGENT, cmd: "serve", env }, "lambda")!);
    const all = agentEnv("lambda", { agent: AGENT, cmd: "serve", env });
    expect(argv).toEqual(["env", ...Object.entries(all).map(([k, v]) => `${k}=${v}`), "sh", "-c", AGENT_START]);
  });

  it("without the agent: the cmd alone, through sh -c, as before", () => {
    expect(runcmd(agentUserData({ cmd: "a; b" }, "lambda")!)).toEqual(["sh", "-c", "a; b"]);
    expect(runcmd(agentUserData({ image: "img", cmd: "a" }, "lambda")!).slice(-4)).toEqual(["img", "sh", "-c", "a"]);
    expect(agentUserData({}, "lambda")).toBeNull();
    expect(agentUserData({ env: { A: "1" } }, "lambda")).toBeNull();
  });

  it("keeps the runcmd entry on one line whatever the values hold (JSON strings are YAML flow scalars)", () => {
    const ud = agentUserData({ agent: AGENT, cmd: "x\ny", env }, "lambda")!;
    expect(ud.split("\n")).toHaveLength(4);
  });
});

describe("secrets never leave in an error", () => {
  const input = { agent: AGENT, env: { HF_TOKEN: "hf_abcdefgh12345", DEBUG: "1" } };

  it("secretsOf: the token and any lease variable of eight characters or more", () => {
    expect(secretsOf(input).sort()).toEqual([AGENT.enroll_token, "hf_abcdefgh12345"].sort());
    expect(secretsOf({ env: { A: "1234567" } })).toEqual([]);
    expect(secretsOf({ env: { A: "12345678" } })).toEqual(["12345678"]);
  });

  it("redacts a ProviderError's message (plain and JSON-escaped), keeping its kind and wait", () => {
    const quoted = `tok"en\nx-long-enough`;
    const e = new ProviderError("vast", "rate_limited", `vast: 400 bad env -e LESSOR_ENROLL_TOKEN=${AGENT.enroll_token} ${JSON.stringify(quoted)}`, 1500);
    const r = redactSecrets(e, [AGENT.enroll_token, quoted]) as ProviderError;
    expect(r).toBeInstanceOf(ProviderError);
    expect(r.message).not.toContain(AGENT.enroll_token);
    expect(r.message).not.toContain("tok\\\"en");
    expect(r.message).toContain("[redacted]");
    expect([r.kind, r.retryAfterMs, r.provider]).toEqual(["rate_limited", 1500, "vast"]);
  });

  it("leaves an error without a secret as it is", () => {
    const e = new ProviderError("vast", "refused", "vast: 400 no");
    expect(redactSecrets(e, [AGENT.enroll_token])).toBe(e);
  });

  it("withSecretsRedacted redacts whatever a create throws", async () => {
    await expect(
      withSecretsRedacted(input, async () => {
        throw new TypeError(`bad ${AGENT.enroll_token} and hf_abcdefgh12345`);
      }),
    ).rejects.toThrow("bad [redacted] and [redacted]");
    await expect(withSecretsRedacted(input, async () => 7)).resolves.toBe(7);
  });
});
