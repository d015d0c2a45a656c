/**
 * The providers ingress takes webhooks from (docs/ingress.md): how each proves a webhook is its own
 * (verify.ts), and where its payload names the machine. A provider's `webhooks` capability
 * (src/providers/contract.ts) is true exactly where its webhooks carry a signature lessor checks.
 */
import type { Env } from "../env";
import { simSigningSecret } from "./sim-key";
import { vastSecrets, verifyStandard, verifyVast, type Verified } from "./verify";

export interface IngressProvider {
  /**
   * Whose accounts it has (accounts.ts): `installation`, the installation's own (the sim's, under
   * LESSOR_INGRESS_TOKEN); `org`, each org's own key, under a token of its own.
   */
  accounts: "installation" | "org";
  /** Whether its webhooks are signed; false: the URL's token is the only proof. */
  signed: boolean;
  /** Checks the delivery's proof beyond the token (401 when it fails); what it says of itself. */
  verify(env: Env, token: string, headers: Headers, body: string, now: number): Promise<Verified>;
  /** The payload fields, at its top level or under `data`, that hold the provider's machine id. */
  machineFields: readonly string[];
  /**
   * A moment, on lessor's clock, by which the change a verified delivery tells of had happened;
   * null when it cannot say. A lease that has read its machine back since then has nothing to
   * learn from the delivery (docs/ingress.md), so it is never later than the change could be.
   */
  toldAt(payload: unknown, verified: Verified): number | null;
}

/**
 * How far a provider's clock may lag lessor's. A delivery's signed time plus this is taken as the
 * latest its change could have happened; a clock that lags further costs a hint, never a lease:
 * its alarm and the cron backstop still read the machine.
 */
export const PROVIDER_CLOCK_SLACK_MS = 5_000;

export const INGRESS_PROVIDERS: Readonly<Record<string, IngressProvider>> = {
  // Standard Webhooks, under a key derived from the ingress token (sim-key.ts).
  sim: {
    accounts: "installation",
    signed: true,
    verify: async (_env, token, headers, body, now) => verifyStandard(headers, body, await simSigningSecret(token), now),
    machineFields: ["machine_id"],
    // The sim runs on lessor's own clock and says, in the signed body, when the change happened.
    toldAt: (payload) => {
      const at = (payload as { at?: unknown } | null)?.at;
      return typeof at === "number" && Number.isSafeInteger(at) ? at : null;
    },
  },
  // Vast's documents describe the signature, not the payload: the instance id is looked for under
  // the name its instance objects give it.
  vast: {
    accounts: "org",
    signed: true,
    verify: (env, _token, headers, body, now) => verifyVast(headers, body, vastSecrets(env.LESSOR_VAST_WEBHOOK_SECRET), now),
    machineFields: ["instance_id"],
    // Signed after the change, on Vast's clock.
    toldAt: (_payload, verified) => (verified.sent_at === null ? null : verified.sent_at + PROVIDER_CLOCK_SLACK_MS),
  },
  // RunPod signs nothing: the token is the only proof, and the payload only a hint.
  // Nothing in an unsigned payload decides anything, not even that a read-back can be skipped.
  runpod: { accounts: "org", signed: false, verify: async () => ({ event_id: null, sent_at: null }), machineFields: ["podId", "pod_id"], toldAt: () => null },
};

/** The ingress entry of `provider`; null when ingress takes nothing from it. */
export function ingressProvider(provider: string): IngressProvider | null {
  return Object.hasOwn(INGRESS_PROVIDERS, provider) ? INGRESS_PROVIDERS[provider]! : null;
}

/** Whether `provider`'s webhooks are signed and checked (its `webhooks` capability). */
export function signedWebhooks(provider: string): boolean {
  return ingressProvider(provider)?.signed ?? false;
}
