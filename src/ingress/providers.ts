/**
 * The providers ingress takes webhooks from (docs/ingress.md): how each proves a webhook is its own
 * (verify.ts), and where its payload names the machine. A provider's `webhooks` capability
 * (src/providers/contract.ts) is true exactly where its webhooks carry a signature lessor checks.
 */
import type { Env } from "../env";
import { simSigningSecret } from "./sim-key";
import { vastSecrets, verifyStandard, verifyVast, type Verified } from "./verify";

export interface IngressProvider {
  /** Whether its webhooks are signed; false: the URL's token is the only proof. */
  signed: boolean;
  /** Checks the delivery's proof beyond the token (401 when it fails); what it says of itself. */
  verify(env: Env, token: string, headers: Headers, body: string, now: number): Promise<Verified>;
  /** The payload fields, at its top level or under `data`, that hold the provider's machine id. */
  machineFields: readonly string[];
}

export const INGRESS_PROVIDERS: Readonly<Record<string, IngressProvider>> = {
  // Standard Webhooks, under a key derived from the ingress token (sim-key.ts).
  sim: {
    signed: true,
    verify: async (_env, token, headers, body, now) => verifyStandard(headers, body, await simSigningSecret(token), now),
    machineFields: ["machine_id"],
  },
  // Vast's documents describe the signature, not the payload: the instance id is looked for under
  // the name its instance objects give it.
  vast: {
    signed: true,
    verify: (env, _token, headers, body, now) => verifyVast(headers, body, vastSecrets(env.LESSOR_VAST_WEBHOOK_SECRET), now),
    machineFields: ["instance_id"],
  },
  // RunPod signs nothing: the token is the only proof, and the payload only a hint.
  runpod: { signed: false, verify: async () => ({ event_id: null }), machineFields: ["podId", "pod_id"] },
};

/** The ingress entry of `provider`; null when ingress takes nothing from it. */
export function ingressProvider(provider: string): IngressProvider | null {
  return Object.hasOwn(INGRESS_PROVIDERS, provider) ? INGRESS_PROVIDERS[provider]! : null;
}

/** Whether `provider`'s webhooks are signed and checked (its `webhooks` capability). */
export function signedWebhooks(provider: string): boolean {
  return ingressProvider(provider)?.signed ?? false;
}
