/**
 * The key the simulated cloud signs its webhooks with. It is not a setting of its own: it is
 * derived from LESSOR_INGRESS_TOKEN (HMAC-SHA256 of a fixed label under the token), so configuring
 * ingress is enough for the sim's events to verify, and the key itself never travels (the URL
 * carries the token; the signature is made with what is derived from it).
 */
import { base64, hmacSha256, SECRET_PREFIX } from "../webhooks/secrets";

const LABEL = "lessor sim webhook signing key v1";

let derived: { token: string; secret: Promise<string> } | null = null;

/** A Standard Webhooks secret (`whsec_` + base64) derived from the ingress token; derived once per token in an isolate. */
export function simSigningSecret(ingressToken: string): Promise<string> {
  if (derived?.token !== ingressToken) {
    const secret = hmacSha256(new TextEncoder().encode(ingressToken), LABEL).then((mac) => SECRET_PREFIX + base64(mac));
    secret.catch(() => (derived = null));
    derived = { token: ingressToken, secret };
  }
  return derived.secret;
}
