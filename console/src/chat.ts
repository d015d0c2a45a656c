/**
 * What the console's chat box reads and where it sends (docs/console.md, "A deployment"). Pure,
 * so that it loads in Node (test/unit/console-chat.test.ts).
 */
import type { components } from "../../cli/api-types";

type Deployment = components["schemas"]["Deployment"];

/**
 * The gateway's address for a page of `origin`: `base_url` when it is of that origin, else the
 * same Worker's gateway path, since the console's policy lets it connect to its own origin only
 * (console/_headers, `connect-src 'self'`).
 */
export function gatewayOf(d: Pick<Deployment, "id" | "base_url">, origin: string): string {
  const own = `${origin}/v1/gateway/${encodeURIComponent(d.id)}/v1`;
  if (d.base_url === null) return own;
  return new URL(d.base_url).origin === origin ? d.base_url : own;
}

/**
 * One `data:` line of a streamed chat completion: `done` at `[DONE]`, else the text it adds
 * (`choices[0].delta.content`), or the message of the error it carries.
 */
export function pieceOf(data: string): { done: true } | { done: false; text: string } | { done: false; error: string } {
  if (data === "[DONE]") return { done: true };
  let chunk: { choices?: Array<{ delta?: { content?: string | null } }>; error?: { message?: string } };
  try {
    chunk = JSON.parse(data);
  } catch {
    return { done: false, error: "the model server sent a line that is not JSON" };
  }
  if (chunk.error) return { done: false, error: chunk.error.message ?? "the model server answered an error" };
  return { done: false, text: chunk.choices?.[0]?.delta?.content ?? "" };
}
