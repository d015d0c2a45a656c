/**
 * What every dialect is: a provider's words over the one simulated cloud core. A dialect answers
 * the operations the adapter calls (and its billing read), each answer a StubAnswer that the
 * provider's ContractStub then holds to the document; it never writes HTTP itself.
 */
import type { Operation, StubAnswer, StubCall } from "../contract-stub";
import type { StubProvider } from "../stub-clouds-admin";
import type { AmbiguousAnswer, Gate, StubCloudCore } from "./core";

export interface Dialect {
  readonly provider: StubProvider;
  /** The provider's document in ../shared/provider-contracts. */
  readonly contractFile: string;
  readonly core: StubCloudCore<unknown>;
  /** Answers one checked call; throws ConnectionCut when the connection must drop instead. */
  handle(call: StubCall): StubAnswer;
  /** The provider's answer to a wrong or missing key on this operation. */
  refuse(op: Operation): StubAnswer;
  /**
   * Answers given to creates instead of creating, first in first out (a test's documented
   * refusals; still held to the document like every answer). Emptied by a reset.
   */
  readonly injected: InjectedCreate[];
  /** Forgets every test hook the dialect has beyond the core (the injected answers, overrides); called by a reset. */
  clearTestHooks(): void;
}

/** An answer for a create: the next one, or the next whose request body contains `match`. */
export interface InjectedCreate {
  answer: StubAnswer;
  /** Only a create whose JSON body contains this (a test's unique image, say); any create when absent. */
  match?: string;
}

/** The injected answer this create gets (taken off the queue), or null to go on with the create. */
export function takeInjected(injected: InjectedCreate[], body: unknown): StubAnswer | null {
  const text = JSON.stringify(body ?? null);
  const n = injected.findIndex((i) => i.match === undefined || text.includes(i.match));
  return n < 0 ? null : injected.splice(n, 1)[0]!.answer;
}

/** Thrown by a handler after it acted: the server drops the connection without answering. */
export class ConnectionCut extends Error {
  constructor(readonly why: string) {
    super(`connection cut: ${why}`);
    this.name = "ConnectionCut";
  }
}

/** How one provider words the injected faults. */
export interface FaultWords {
  /** api_error_rate: a 5xx; nothing was done. */
  unavailable(): StubAnswer;
  /** rate_limit_rate: a 429, with Retry-After where the provider sends one. */
  rateLimited(retryAfterS: number): StubAnswer;
  /** ambiguous_create_rate: a gateway's 502 or 504 after the machine was made. */
  gateway(status: 502 | 504): StubAnswer;
}

/** The gate's refusal in the provider's words, or null to go on with the call. */
export function refusal(gate: Gate, words: FaultWords): StubAnswer | null {
  if (gate.kind === "unavailable") return words.unavailable();
  if (gate.kind === "rate_limited") return words.rateLimited(gate.retry_after_s);
  return null;
}

/** An ambiguous create's answer: the gateway's, or no answer (the connection drops). */
export function ambiguous(answer: AmbiguousAnswer, words: FaultWords): StubAnswer {
  if (answer === "cut") throw new ConnectionCut("an ambiguous create: the machine was made, the answer is lost");
  return words.gateway(answer);
}

/** An HTML page, as a proxy in front of the provider answers a 5xx the document cannot list. */
export function gatewayPage(status: number): StubAnswer {
  const words: Record<number, string> = { 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Time-out" };
  return { status, text: `<html><body><h1>${status} ${words[status] ?? "Error"}</h1></body></html>`, undocumented: `a proxy's ${status}` };
}
