/**
 * How a machine starts lessor's agent, the same on every provider: the pieces the adapters share.
 *
 * The agent is a POSIX sh script served at `<LESSOR_URL>/v1/agent/agent.sh`. It reads its lease
 * from the environment (LESSOR_URL, LESSOR_LEASE_ID, LESSOR_ENROLL_TOKEN: agentEnv), exchanges the
 * enrollment token for the lease token on its first call, and runs the lease's command itself
 * (LESSOR_CMD). The machine is given:
 *
 * - an environment: the lease's own variables, then lessor's four, which win (agentEnv);
 * - one start line (AGENT_START), run by `sh -c` as the arguments of the image's entrypoint
 *   (RunPod's `args`, Vast's `args_str`) or by cloud-init on a Lambda VM (agentUserData).
 *
 * Entrypoint semantics: on RunPod and Vast the start line replaces the image's CMD, not its
 * ENTRYPOINT. An image without an ENTRYPOINT, or whose entrypoint ends by running its arguments
 * (`exec "$@"`, as the CUDA and PyTorch images' entrypoints do), runs the agent after its own
 * setup; an image whose entrypoint ignores its arguments never starts the agent. The image must
 * have `sh`, and `curl` or `wget`.
 *
 * Secrets: the lease token is never in what a create carries, since the provider keeps that where
 * its account's key reads it (docs/security.md); the enrollment token is in the environment only,
 * never in the start line; errors that may carry a request's words are passed through
 * redactSecrets.
 */
import { publicUrl } from "../config";
import type { Env } from "../env";
import type { CreateMachineInput } from "./contract";
import { ProviderError } from "./contract";

/** Where machines reach lessor, and the lease's own credentials (contract.ts CreateMachineInput). */
export interface AgentAccess {
  /** lessor's public origin (LESSOR_PUBLIC_URL), without a trailing slash. */
  url: string;
  lease_id: string;
  /** Secret: what the agent exchanges for the lease token on its first call (src/occupant/token.ts). */
  enroll_token: string;
}

/**
 * The `agent` of a lease's create (contract.ts CreateMachineInput): lessor's public URL, the
 * lease and its machine's enrollment token. null when LESSOR_PUBLIC_URL is unset (development without `npm start`,
 * which config.ts allows only outside production): the machine is then started without the agent.
 */
export function agentAccess(env: Pick<Env, "LESSOR_PUBLIC_URL">, leaseId: string, enrollToken: string): AgentAccess | null {
  const url = publicUrl(env);
  return url === null ? null : { url, lease_id: leaseId, enroll_token: enrollToken };
}

/** The agent script's path under LESSOR_URL. */
export const AGENT_SCRIPT_PATH = "/v1/agent/agent.sh";

/** A name a POSIX shell can export (and Docker's `-e NAME=value` accepts). */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The start line. The script is downloaded to a file before it runs, so a transfer cut short never
 * runs half a script (`curl | sh` would); `exec` leaves the agent as the container's main process.
 * It reads only `$LESSOR_URL` from the environment, so it holds no value of its own to quote, and
 * it has no `'` in it, so `sh -c '<start line>'` is one plain single-quoted word to any splitter
 * that knows single quotes (RunPod's `args`, Vast's `args_str`).
 */
export const AGENT_START =
  `set -e; a=$(mktemp); u="$LESSOR_URL${AGENT_SCRIPT_PATH}"; ` +
  `if command -v curl >/dev/null 2>&1; then curl -fsSL --retry 5 -o "$a" "$u"; else wget -q -O "$a" "$u"; fi; ` +
  `exec sh "$a"`;

/** What the machine runs through `sh -c`: the agent's start line (the agent runs `cmd`), else `cmd` alone; undefined: nothing. */
export function startScript(input: Pick<CreateMachineInput, "agent" | "cmd">): string | undefined {
  return input.agent ? AGENT_START : input.cmd;
}

/** `value` as one shell word, whatever it holds: single-quoted, each `'` closed, escaped and reopened. */
export function shQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * A lease's `cmd` (or the start line) as the argument string of a container (RunPod's `args`,
 * Vast's `args_str`): `sh -c '<cmd>'`, quoted by shQuote, so that `cmd` means the same on every
 * provider: one shell command line, run by `sh -c` in the image (Lambda: agentUserData).
 */
export function shellArgs(cmd: string): string {
  return `sh -c ${shQuote(cmd)}`;
}

/**
 * The machine's environment: the lease's variables, then lessor's (which win, so a lease cannot
 * point its agent elsewhere). LESSOR_CMD only when the lease has a command. Throws `refused` for a
 * name no shell can export: the request would be refused by the provider or mangled on the machine.
 */
export function agentEnv(provider: string, input: Pick<CreateMachineInput, "agent" | "env" | "cmd">): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.env ?? {})) {
    if (!ENV_NAME.test(name)) throw new ProviderError(provider, "refused", `${provider}: environment variable name ${JSON.stringify(name)} is not a shell name`);
    env[name] = value;
  }
  if (input.agent) {
    env.LESSOR_URL = input.agent.url;
    env.LESSOR_LEASE_ID = input.agent.lease_id;
    env.LESSOR_ENROLL_TOKEN = input.agent.enroll_token;
    // agent.sh would take a lease token given to it as is, instead of enrolling.
    delete env.LESSOR_LEASE_TOKEN;
    if (input.cmd !== undefined) env.LESSOR_CMD = input.cmd;
    else delete env.LESSOR_CMD;
  }
  return env;
}

/** `export NAME='value'; ...`: sets any values in a shell script (quoted by shQuote). */
export function shellExports(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([name, value]) => `export ${name}=${shQuote(value)}; `)
    .join("");
}

/**
 * What runs on a Lambda VM, as cloud-init user data (`#cloud-config`), or null when nothing
 * does. Lambda rents VMs, not containers, and has no environment field: the environment travels
 * inside the user data. With an image, Docker (on the default Lambda Stack image, with the NVIDIA
 * runtime) runs it detached, each variable one `-e NAME=value` argument; without one, `env(1)`
 * sets them for the command on the VM itself. Each `runcmd` entry is a list, which cloud-init
 * quotes itself, and each list item a JSON string (a YAML flow scalar), so no value is ever read
 * by a shell on the way: quotes, newlines and `$()` arrive as written.
 *
 * What runs: the agent when `agent` is given (it runs `cmd`), else `cmd` alone through `sh -c`.
 */
export function agentUserData(input: Pick<CreateMachineInput, "agent" | "env" | "cmd" | "image">, provider: string): string | null {
  const script = startScript(input);
  const env = agentEnv(provider, input);
  const pairs = Object.entries(env).map(([name, value]) => `${name}=${value}`);
  if (!input.image && script === undefined && pairs.length === 0) return null;
  const run = script !== undefined ? ["sh", "-c", script] : [];
  const argv = input.image
    ? ["docker", "run", "-d", "--restart", "unless-stopped", "--gpus", "all", "--network", "host", ...pairs.flatMap((p) => ["-e", p]), input.image, ...run]
    : run.length > 0
      ? [...(pairs.length > 0 ? ["env", ...pairs] : []), ...run]
      : null;
  if (argv === null) return null;
  return `#cloud-config\nruncmd:\n  - ${JSON.stringify(argv)}\n`;
}

/** The values an error must never repeat: the enrollment token, and any lease variable long enough to be a secret. */
export function secretsOf(input: Pick<CreateMachineInput, "agent" | "env">): string[] {
  const secrets = Object.values(input.env ?? {}).filter((v) => v.length >= SECRET_MIN_LENGTH);
  if (input.agent) secrets.push(input.agent.enroll_token);
  return secrets.filter((s) => s.length > 0);
}

/** A lease variable this long may be a key (HF_TOKEN); shorter ones (`1`, `debug`) are left readable. */
export const SECRET_MIN_LENGTH = 8;
const REDACTED = "[redacted]";

/** `e` with every secret replaced in its message: a provider may echo a refused request's body. */
export function redactSecrets(e: unknown, secrets: readonly string[]): unknown {
  if (!(e instanceof Error) || secrets.length === 0) return e;
  let message = e.message;
  // Longest first, so a secret that contains another is replaced whole.
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) message = message.split(s).join(REDACTED);
  // JSON-escaped, as an echoed body would write a secret with quotes or newlines in it.
  for (const s of secrets) message = message.split(JSON.stringify(s).slice(1, -1)).join(REDACTED);
  if (message === e.message) return e;
  if (e instanceof ProviderError) return new ProviderError(e.provider, e.kind, message, e.retryAfterMs);
  const copy = new Error(message);
  copy.name = e.name;
  return copy;
}

/** Runs a create, redacting the input's secrets from whatever it throws. */
export async function withSecretsRedacted<T>(input: Pick<CreateMachineInput, "agent" | "env">, create: () => Promise<T>): Promise<T> {
  try {
    return await create();
  } catch (e) {
    throw redactSecrets(e, secretsOf(input));
  }
}
