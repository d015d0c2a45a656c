/**
 * The key the simulated cloud signs its webhooks with. It is not a setting of its own: it is
 * derived from LESSOR_INGRESS_TOKEN (HMAC-SHA256 of a fixed label under the token), so configuring
 * ingress is enough for the sim's events to verify, and the key itself never travels (the URL
 * carries the token; the signature is made with what is derived from it).
 */
import { base64, hmacSha256, SECRET_PREFIX } from "../webhooks/secrets";

const LABEL = "lessor sim webhook signing key v1";

/** A Standard Webhooks secret (`whsec_` + base64) derived from the ingress token. */
export async function simSigningSecret(ingressToken: string): Promise<string> {
  return SECRET_PREFIX + base64(await hmacSha256(new TextEncoder().encode(ingressToken), LABEL));
}
