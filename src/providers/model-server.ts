/**
 * The command that starts a deployment's model server on a machine of each provider
 * (docs/deployments.md). It serves the OpenAI API on MODEL_PORT and requires the machine's own key,
 * which reaches the machine as LESSOR_MODEL_KEY in its environment (never on the command line).
 * On the sim it is the command language's `serve` (docs/sim.md); on a real cloud it is vLLM's
 * OpenAI server, which the deployment's image must hold.
 */
import { shQuote } from "./agent-start";
import { MODEL_PORT } from "./contract";
import type { ProviderName } from "./names";

/** What a model server is started with. */
export interface ModelServerConfig {
  /** The model to serve: a catalog id, which is also what `GET /v1/models` lists. */
  model: string;
  /** More arguments for the engine, each one shell word. */
  engine_args: readonly string[];
}

/** vLLM's OpenAI-compatible server on every interface, its key from the environment, each argument one shell word. */
export function vllmCommand(c: ModelServerConfig): string {
  const args = ["--model", c.model, "--served-model-name", c.model, "--host", "0.0.0.0", "--port", String(MODEL_PORT), ...c.engine_args];
  return `exec python3 -m vllm.entrypoints.openai.api_server ${args.map(shQuote).join(" ")} --api-key "$LESSOR_MODEL_KEY"`;
}

/** The sim's model server: `serve MODEL` (engine arguments mean nothing to it). */
export function simServeCommand(c: ModelServerConfig): string {
  return `serve ${c.model}`;
}

const COMMANDS: Record<ProviderName, (c: ModelServerConfig) => string> = {
  sim: simServeCommand,
  runpod: vllmCommand,
  vast: vllmCommand,
  lambda: vllmCommand,
};

/** The command that starts the model server on `provider`'s machine. */
export function modelServerCommand(provider: string, c: ModelServerConfig): string {
  return (COMMANDS[provider as ProviderName] ?? vllmCommand)(c);
}
