/**
 * The pure half of the sim's model server (docs/sim.md "The model server"): what a sim machine
 * that has reached `serve MODEL` answers on MODEL_PORT, in the shapes of an OpenAI-compatible
 * server (vLLM's): request parsing, the deterministic text, the chunks of a stream, the errors and
 * the Prometheus metrics. No I/O and no clock (STYLE.md rule 1): the sim cloud (cloud.ts) decides
 * whether the port is open, paces the tokens and keeps the counts.
 */
import { z } from "zod";
import { secretEquals } from "../../ids";

/** Tokens a completion produces when the request names no `max_tokens`. */
export const MODEL_DEFAULT_MAX_TOKENS = 16;
/** The most tokens one request may ask for (the sim's context window). */
export const MODEL_MAX_TOKENS = 4096;
/** A request body longer than this is refused (413). */
export const MODEL_MAX_BODY_BYTES = 1 << 20;

/**
 * Marks the sim cloud's answer that nothing listens on a port (502 `port_closed`), which the
 * adapter turns into the network error a closed port gives (docs/sim.md "The model server").
 */
export const SIM_PORT_CLOSED_HEADER = "x-sim-port-closed";

/** OpenAI's error envelope: `{error: {message, type, param, code}}`. */
export interface ModelErrorBody {
  error: { message: string; type: string; param: string | null; code: string };
}

export interface ModelError {
  status: number;
  body: ModelErrorBody;
}

export function modelError(status: number, code: string, message: string, param: string | null = null): ModelError {
  const type = status === 401 ? "authentication_error" : status === 404 && code !== "model_not_found" ? "not_found_error" : "invalid_request_error";
  return { status, body: { error: { message, type, param, code } } };
}

export type ModelRequestKind = "chat" | "completion";

/** A request the server accepted, reduced to what the answer depends on. */
export interface ModelRequest {
  kind: ModelRequestKind;
  model: string;
  /** The text the answer is a function of: the prompt, or the messages rendered one per line. */
  prompt: string;
  prompt_tokens: number;
  max_tokens: number;
  stream: boolean;
  /** `stream_options.include_usage`: a last chunk, before `[DONE]`, carries the usage. */
  include_usage: boolean;
}

const MaxTokens = z.number().int().min(1).max(MODEL_MAX_TOKENS).nullish();
const StreamFields = {
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).nullish(),
};
const TextPart = z.object({ type: z.literal("text"), text: z.string() });
const ChatSchema = z.object({
  model: z.string(),
  messages: z
    .array(z.object({ role: z.string().min(1), content: z.union([z.string(), z.array(TextPart), z.null()]).optional() }))
    .min(1),
  max_tokens: MaxTokens,
  max_completion_tokens: MaxTokens,
  ...StreamFields,
});
const CompletionSchema = z.object({
  model: z.string(),
  prompt: z.union([z.string(), z.array(z.string()).length(1)]),
  max_tokens: MaxTokens,
  ...StreamFields,
});

/**
 * A request body (`text`) for `kind`, checked for `served`, the model this server serves: 400 for
 * a body that is not JSON or not a request, 404 for another model. Fields the sim does not use
 * (temperature, stop, ...) are accepted and ignored.
 */
export function parseModelRequest(kind: ModelRequestKind, text: string, served: string): { ok: true; request: ModelRequest } | { ok: false; error: ModelError } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, error: modelError(400, "invalid_json", "The request body is not valid JSON.") };
  }
  const parsed = kind === "chat" ? ChatSchema.safeParse(raw) : CompletionSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const param = issue.path.length > 0 ? issue.path.join(".") : null;
    return { ok: false, error: modelError(400, "invalid_request", `${param ? `${param}: ` : ""}${issue.message}`, param) };
  }
  const body = parsed.data;
  if (body.model !== served) return { ok: false, error: modelError(404, "model_not_found", `The model \`${body.model}\` does not exist.`, "model") };
  const prompt =
    "messages" in body
      ? body.messages.map((m) => `${m.role}: ${typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => p.text).join("")}`).join("\n")
      : typeof body.prompt === "string"
        ? body.prompt
        : body.prompt[0]!;
  const maxTokens = ("max_completion_tokens" in body ? body.max_completion_tokens : null) ?? body.max_tokens ?? MODEL_DEFAULT_MAX_TOKENS;
  return {
    ok: true,
    request: {
      kind,
      model: body.model,
      prompt,
      prompt_tokens: countTokens(prompt),
      max_tokens: maxTokens,
      stream: body.stream === true,
      include_usage: body.stream_options?.include_usage === true,
    },
  };
}

/** The sim's tokenizer: a token is a run of word characters or one other non-space character. */
export function countTokens(text: string): number {
  return text.match(/\w+|[^\w\s]/g)?.length ?? 0;
}

const WORDS = [
  "the", "model", "is", "serving", "a", "simulated", "answer", "on", "lessor", "machine", "with", "tokens",
  "that", "arrive", "at", "steady", "rate", "and", "every", "word", "here", "depends", "only", "prompt",
  "GPU", "lease", "runs", "inside", "cloud", "of", "its", "own", "so", "tests", "can", "count", "them",
] as const;

/** FNV-1a, 32 bits: the seed of a prompt's answer. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export interface Generation {
  /** The answer's tokens, in order; their concatenation is the text. */
  tokens: string[];
  /** `stop`: the answer ended by itself; `length`: max_tokens cut it. */
  finish_reason: "stop" | "length";
}

/**
 * The answer to `prompt` from `model`: a pure function of the two and `maxTokens`. Its natural
 * length (8 to 64 tokens, ending with a full stop) is fixed by the prompt; `maxTokens` cuts it.
 */
export function generate(model: string, prompt: string, maxTokens: number): Generation {
  let state = fnv1a(`${model}\n${prompt}`);
  const natural = 8 + (state % 57);
  const n = Math.min(natural, maxTokens);
  const tokens: string[] = [];
  for (let i = 0; i < n; i++) {
    state = Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) >>> 0;
    state = (state ^ (state >>> 12)) >>> 0;
    const word = WORDS[state % WORDS.length]!;
    tokens.push(`${i === 0 ? word[0]!.toUpperCase() + word.slice(1) : ` ${word}`}${i === natural - 1 ? "." : ""}`);
  }
  return { tokens, finish_reason: n < natural ? "length" : "stop" };
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export function usageOf(request: ModelRequest, generation: Generation): Usage {
  const completion = generation.tokens.length;
  return { prompt_tokens: request.prompt_tokens, completion_tokens: completion, total_tokens: request.prompt_tokens + completion };
}

/** What identifies one answer: its id (`chatcmpl-...`, `cmpl-...`) and when it was made, in seconds. */
export interface AnswerMeta {
  id: string;
  created: number;
}

/** The non-streamed answer: a `chat.completion` or a `text_completion`. */
export function completionBody(request: ModelRequest, generation: Generation, meta: AnswerMeta): Record<string, unknown> {
  const text = generation.tokens.join("");
  const choice =
    request.kind === "chat"
      ? { index: 0, message: { role: "assistant", content: text }, logprobs: null, finish_reason: generation.finish_reason }
      : { index: 0, text, logprobs: null, finish_reason: generation.finish_reason };
  return {
    id: meta.id,
    object: request.kind === "chat" ? "chat.completion" : "text_completion",
    created: meta.created,
    model: request.model,
    choices: [choice],
    usage: usageOf(request, generation),
  };
}

/** One event of a stream: its SSE text, sent once `after_tokens` tokens have been generated. */
export interface StreamEvent {
  after_tokens: number;
  data: string;
}

/** An SSE event carrying `body` as JSON. */
export function sseData(body: unknown): string {
  return `data: ${JSON.stringify(body)}\n\n`;
}

export const SSE_DONE = "data: [DONE]\n\n";

/**
 * A streamed answer, event by event: for a chat, a first chunk with the role; one chunk per token;
 * a last chunk with the finish reason; the usage (when asked for); then `[DONE]`.
 */
export function streamEvents(request: ModelRequest, generation: Generation, meta: AnswerMeta): StreamEvent[] {
  const chat = request.kind === "chat";
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    sseData({ id: meta.id, object: chat ? "chat.completion.chunk" : "text_completion", created: meta.created, model: request.model, choices, ...extra });
  const choice = (text: string | null, finish: string | null, role = false) =>
    chat
      ? { index: 0, delta: text === null ? {} : role ? { role: "assistant", content: text } : { content: text }, logprobs: null, finish_reason: finish }
      : { index: 0, text: text ?? "", logprobs: null, finish_reason: finish };
  const events: StreamEvent[] = [];
  if (chat) events.push({ after_tokens: 0, data: chunk([choice("", null, true)]) });
  generation.tokens.forEach((token, i) => events.push({ after_tokens: i + 1, data: chunk([choice(token, null)]) }));
  const n = generation.tokens.length;
  events.push({ after_tokens: n, data: chunk([choice(null, generation.finish_reason)]) });
  if (request.include_usage) events.push({ after_tokens: n, data: chunk([], { usage: usageOf(request, generation) }) });
  events.push({ after_tokens: n, data: SSE_DONE });
  return events;
}

/** When the `tokens`-th token of an answer begun at `start` is ready, at `tokensPerS`. */
export function tokenReadyAt(start: number, tokens: number, tokensPerS: number): number {
  return start + Math.ceil((tokens * 1000) / tokensPerS);
}

/** `GET /v1/models`: the one model served, in OpenAI's list shape (`created` in seconds). */
export function modelsList(model: string, created: number): Record<string, unknown> {
  return { object: "list", data: [{ id: model, object: "model", created, owned_by: "lessor-sim" }] };
}

export interface ModelMetrics {
  running: number;
  waiting: number;
  success: number;
  prompt_tokens: number;
  generation_tokens: number;
}

export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** `GET /metrics`: Prometheus' text format, under vLLM's names, labelled with the model. */
export function metricsText(model: string, m: ModelMetrics): string {
  const label = `{model_name="${model.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, "\\n")}"}`;
  const series: [string, "gauge" | "counter", string, number][] = [
    ["vllm:num_requests_running", "gauge", "Number of requests being generated.", m.running],
    ["vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.", m.waiting],
    ["vllm:request_success_total", "counter", "Count of successfully processed requests.", m.success],
    ["vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.", m.prompt_tokens],
    ["vllm:generation_tokens_total", "counter", "Number of generation tokens processed.", m.generation_tokens],
  ];
  return series.map(([name, type, help, value]) => `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n${name}${label} ${value}\n`).join("");
}

/** Whether `authorization` carries `Bearer <key>`, compared in constant time (ids.ts `secretEquals`). */
export async function bearerMatches(authorization: string | null, key: string): Promise<boolean> {
  const given = /^Bearer (.+)$/i.exec(authorization ?? "")?.[1];
  return given !== undefined && (await secretEquals(given, key));
}
