import { describe, expect, it } from "vitest";
import {
  bearerMatches,
  completionBody,
  countTokens,
  generate,
  metricsText,
  MODEL_DEFAULT_MAX_TOKENS,
  MODEL_MAX_TOKENS,
  modelsList,
  parseModelRequest,
  SSE_DONE,
  streamEvents,
  tokenReadyAt,
  type ModelRequest,
} from "../../src/providers/sim/model-server";
import { parseScript, scriptErrorText, servingAt, type ScriptProgram } from "../../src/providers/sim/script";

const MODEL = "meta-llama/Llama-3.1-8B-Instruct";
const META = { id: "chatcmpl-1", created: 1_700_000_000 };

function request(kind: "chat" | "completion", body: unknown): ModelRequest {
  const parsed = parseModelRequest(kind, JSON.stringify(body), MODEL);
  if (!parsed.ok) throw new Error(parsed.error.body.error.message);
  return parsed.request;
}

const chat = (extra: Record<string, unknown> = {}) => request("chat", { model: MODEL, messages: [{ role: "user", content: "Hello there, GPU!" }], ...extra });

describe("parseModelRequest", () => {
  it("reads a chat request: the messages rendered one per line, the default max_tokens, no stream", () => {
    expect(chat()).toEqual({
      kind: "chat",
      model: MODEL,
      prompt: "user: Hello there, GPU!",
      prompt_tokens: countTokens("user: Hello there, GPU!"),
      max_tokens: MODEL_DEFAULT_MAX_TOKENS,
      stream: false,
      include_usage: false,
    });
  });

  it("reads text parts, max_completion_tokens over max_tokens, stream and include_usage", () => {
    const r = request("chat", {
      model: MODEL,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] },
      ],
      max_tokens: 5,
      max_completion_tokens: 7,
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.2,
    });
    expect(r).toMatchObject({ prompt: "system: Be brief.\nuser: ab", max_tokens: 7, stream: true, include_usage: true });
  });

  it("reads a completion's prompt, a string or a list of one", () => {
    expect(request("completion", { model: MODEL, prompt: "Once upon", max_tokens: 3 })).toMatchObject({ kind: "completion", prompt: "Once upon", max_tokens: 3 });
    expect(request("completion", { model: MODEL, prompt: ["Once upon"] }).prompt).toBe("Once upon");
  });

  it.each([
    ["not JSON", "{", 400, "invalid_json"],
    ["no messages", JSON.stringify({ model: MODEL, messages: [] }), 400, "invalid_request"],
    ["not an object", "[]", 400, "invalid_request"],
    ["max_tokens 0", JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "x" }], max_tokens: 0 }), 400, "invalid_request"],
    ["max_tokens above the window", JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "x" }], max_tokens: MODEL_MAX_TOKENS + 1 }), 400, "invalid_request"],
    ["stream not a boolean", JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "x" }], stream: "yes" }), 400, "invalid_request"],
    ["another model", JSON.stringify({ model: "gpt-4", messages: [{ role: "user", content: "x" }] }), 404, "model_not_found"],
  ])("refuses %s in OpenAI's error shape", (_name, text, status, code) => {
    const parsed = parseModelRequest("chat", text, MODEL);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error.status).toBe(status);
    expect(parsed.error.body.error).toMatchObject({ code, type: "invalid_request_error" });
    expect(typeof parsed.error.body.error.message).toBe("string");
  });

  it("accepts max_tokens at the window and refuses a completion's prompt list of two", () => {
    expect(request("completion", { model: MODEL, prompt: "x", max_tokens: MODEL_MAX_TOKENS }).max_tokens).toBe(MODEL_MAX_TOKENS);
    expect(parseModelRequest("completion", JSON.stringify({ model: MODEL, prompt: ["a", "b"] }), MODEL).ok).toBe(false);
  });
});

describe("generate", () => {
  it("is a pure function of the model, the prompt and max_tokens", () => {
    expect(generate(MODEL, "hi", 50)).toEqual(generate(MODEL, "hi", 50));
    expect(generate(MODEL, "hi", 50).tokens.join("")).not.toBe(generate(MODEL, "hello", 50).tokens.join(""));
    expect(generate(MODEL, "hi", 50).tokens.join("")).not.toBe(generate("other/model", "hi", 50).tokens.join(""));
  });

  it("stops by itself (8 to 64 tokens, a full stop) or is cut by max_tokens", () => {
    const whole = generate(MODEL, "hi", MODEL_MAX_TOKENS);
    expect(whole.finish_reason).toBe("stop");
    expect(whole.tokens.length).toBeGreaterThanOrEqual(8);
    expect(whole.tokens.length).toBeLessThanOrEqual(64);
    expect(whole.tokens.at(-1)).toMatch(/\.$/);
    const n = whole.tokens.length;
    expect(generate(MODEL, "hi", n)).toEqual(whole);
    const cut = generate(MODEL, "hi", n - 1);
    expect(cut).toEqual({ tokens: whole.tokens.slice(0, n - 1), finish_reason: "length" });
  });
});

describe("answers", () => {
  it("a chat completion carries the text and its usage", () => {
    const r = chat({ max_tokens: 4 });
    const g = generate(MODEL, r.prompt, 4);
    expect(completionBody(r, g, META)).toEqual({
      id: "chatcmpl-1",
      object: "chat.completion",
      created: META.created,
      model: MODEL,
      choices: [{ index: 0, message: { role: "assistant", content: g.tokens.join("") }, logprobs: null, finish_reason: "length" }],
      usage: { prompt_tokens: r.prompt_tokens, completion_tokens: 4, total_tokens: r.prompt_tokens + 4 },
    });
  });

  it("a text completion carries `text`", () => {
    const r = request("completion", { model: MODEL, prompt: "x", max_tokens: 2 });
    const body = completionBody(r, generate(MODEL, "x", 2), META) as { object: string; choices: { text: string }[] };
    expect(body.object).toBe("text_completion");
    expect(body.choices[0]!.text).toBe(generate(MODEL, "x", 2).tokens.join(""));
  });

  it("a chat stream: the role, one chunk per token at its time, the finish, the usage when asked, [DONE]", () => {
    const r = chat({ max_tokens: 3, stream: true, stream_options: { include_usage: true } });
    const g = generate(MODEL, r.prompt, 3);
    const events = streamEvents(r, g, META);
    expect(events.map((e) => e.after_tokens)).toEqual([0, 1, 2, 3, 3, 3, 3]);
    expect(events.at(-1)!.data).toBe(SSE_DONE);
    const chunks = events.slice(0, -1).map((e) => {
      expect(e.data).toMatch(/^data: .*\n\n$/);
      return JSON.parse(e.data.slice("data: ".length)) as { object: string; choices: { delta: Record<string, unknown>; finish_reason: string | null }[]; usage?: unknown };
    });
    expect(chunks.every((c) => c.object === "chat.completion.chunk")).toBe(true);
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: "assistant", content: "" });
    expect(chunks.slice(1, 4).map((c) => c.choices[0]!.delta.content)).toEqual(g.tokens);
    expect(chunks[4]!.choices[0]).toMatchObject({ delta: {}, finish_reason: "length" });
    expect(chunks[5]).toMatchObject({ choices: [], usage: { completion_tokens: 3 } });
  });

  it("a completion stream has no role chunk and no usage unless asked", () => {
    const r = request("completion", { model: MODEL, prompt: "x", max_tokens: 2, stream: true });
    const events = streamEvents(r, generate(MODEL, "x", 2), META);
    expect(events.map((e) => e.after_tokens)).toEqual([1, 2, 2, 2]);
    expect(JSON.parse(events[0]!.data.slice(6))).toMatchObject({ object: "text_completion", choices: [{ text: generate(MODEL, "x", 2).tokens[0] }] });
  });

  it("paces tokens at the rate", () => {
    expect(tokenReadyAt(1000, 0, 200)).toBe(1000);
    expect(tokenReadyAt(1000, 1, 200)).toBe(1005);
    expect(tokenReadyAt(1000, 16, 200)).toBe(1080);
    expect(tokenReadyAt(1000, 1, 3)).toBe(1334);
  });

  it("lists the one model", () => {
    expect(modelsList(MODEL, 5)).toEqual({ object: "list", data: [{ id: MODEL, object: "model", created: 5, owned_by: "lessor-sim" }] });
  });

  it("writes the metrics under vLLM's names, labelled with the model", () => {
    const text = metricsText(MODEL, { running: 2, waiting: 0, success: 7, prompt_tokens: 30, generation_tokens: 112 });
    expect(text).toContain(`# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name="${MODEL}"} 2\n`);
    expect(text).toContain(`vllm:num_requests_waiting{model_name="${MODEL}"} 0\n`);
    expect(text).toContain(`# TYPE vllm:request_success_total counter\nvllm:request_success_total{model_name="${MODEL}"} 7\n`);
    expect(text).toContain(`vllm:prompt_tokens_total{model_name="${MODEL}"} 30\n`);
    expect(text).toContain(`vllm:generation_tokens_total{model_name="${MODEL}"} 112\n`);
  });
});

describe("bearerMatches", () => {
  it("takes exactly `Bearer <key>`", async () => {
    expect(await bearerMatches("Bearer sk-1", "sk-1")).toBe(true);
    expect(await bearerMatches("bearer sk-1", "sk-1")).toBe(true);
    expect(await bearerMatches("Bearer sk-2", "sk-1")).toBe(false);
    expect(await bearerMatches("Bearer sk-1x", "sk-1")).toBe(false);
    expect(await bearerMatches("sk-1", "sk-1")).toBe(false);
    expect(await bearerMatches(null, "sk-1")).toBe(false);
    expect(await bearerMatches("Bearer ", "sk-1")).toBe(false);
  });
});

describe("servingAt", () => {
  const T0 = 1_000_000;
  const program = (source: string): ScriptProgram => {
    const parsed = parseScript(source);
    if (!parsed.ok) throw new Error(scriptErrorText(parsed.error));
    return parsed.program;
  };
  const p = program(`echo downloading weights; sleep 2; serve ${MODEL}`);

  it("is null while the weights download and the model once serve is reached", () => {
    expect(servingAt(p, T0, [], T0)).toBeNull();
    expect(servingAt(p, T0, [], T0 + 1999)).toBeNull();
    expect(servingAt(p, T0, [], T0 + 2000)).toBe(MODEL);
    expect(servingAt(p, T0, [], T0 + 10_000_000)).toBe(MODEL);
  });

  it("is null once a signal ends the run, and before the run starts", () => {
    expect(servingAt(p, T0, [{ signal: "TERM", at: T0 + 3000 }], T0 + 2999)).toBe(MODEL);
    expect(servingAt(p, T0, [{ signal: "TERM", at: T0 + 3000 }], T0 + 3000)).toBeNull();
    expect(servingAt(p, T0, [], T0 - 1)).toBeNull();
  });

  it("is null for a run that never serves or ends first", () => {
    expect(servingAt(program("echo hi; hang"), T0, [], T0 + 5000)).toBeNull();
    expect(servingAt(program(`exit 0; serve ${MODEL}`), T0, [], T0 + 5000)).toBeNull();
    expect(servingAt(program("echo hi"), T0, [], T0 + 5000)).toBeNull();
  });
});
