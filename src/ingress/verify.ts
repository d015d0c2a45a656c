/**
 * Each provider's proof that a webhook is its own (docs/ingress.md). Pure but for the HMAC: the
 * time is passed in (STYLE.md rule 1). A proof that fails is a 401 in the one envelope; its message
 * says which check failed, never what was expected.
 *
 * - Standard Webhooks 1.0, as lessor's own outbound webhooks are signed
 *   (src/webhooks/secrets.ts): `webhook-id`, `webhook-timestamp` (seconds), `webhook-signature`
 *   (`v1,<base64 HMAC-SHA256 over "<id>.<timestamp>.<body>">`, several separated by spaces).
 * - Vast: `X-Vast-Timestamp` (seconds), `X-Vast-Signature-256: sha256=<hex HMAC-SHA256 over
 *   "<timestamp>.<raw body>">`, and `X-Vast-Event-Id` for de-duplication (not covered by the
 *   signature: a changed id only makes a replay one more hint, which is harmless).
 * - RunPod signs nothing; the URL's token is the only proof, so its payload is a hint.
 */
import { ApiError, badRequest } from "../errors";
import { hexEquals, toHex } from "../ids";
import { hmacSha256, sign } from "../webhooks/secrets";

/** How far a signed timestamp may be from now, either way (guarantee 11). */
export const INGRESS_TOLERANCE_S = 5 * 60;
/** The longest event id taken; a longer one is refused (400). */
export const MAX_EVENT_ID = 256;

/** What a verified delivery says of itself: its id (null when the provider gives none) and when it was signed. */
export interface Verified {
  event_id: string | null;
  /** The signed timestamp, in ms on the provider's clock (null: the delivery carries none). */
  sent_at: number | null;
}

const unauthenticated = (message: string) => new ApiError(401, "unauthenticated", message);

function header(headers: Headers, name: string): string {
  const value = headers.get(name);
  if (value === null || value === "") throw unauthenticated(`the ${name} header is missing`);
  return value;
}

const WHOLE_SECONDS = /^\d{1,12}$/;
/** Vast does not say whether its seconds may have a fraction; one is taken, and signed as sent. */
const SECONDS = /^\d{1,12}(?:\.\d{1,6})?$/;

/**
 * A timestamp header as sent (the signature covers it so), refused when it is not `form` or is
 * more than 5 minutes from `now` either way.
 */
function freshTimestamp(headers: Headers, name: string, form: RegExp, now: number): string {
  const raw = header(headers, name);
  if (!form.test(raw)) throw unauthenticated(`${name} must be seconds since the epoch`);
  if (Math.abs(now / 1000 - Number(raw)) > INGRESS_TOLERANCE_S) {
    throw unauthenticated(`${name} is more than ${INGRESS_TOLERANCE_S / 60} minutes from now`);
  }
  return raw;
}

function eventId(value: string | null): string | null {
  if (value === null || value === "") return null;
  if (value.length > MAX_EVENT_ID) throw badRequest("invalid_request", `an event id may be at most ${MAX_EVENT_ID} characters`);
  return value;
}

/** Checks a Standard Webhooks delivery against `secret` (`whsec_...`). */
export async function verifyStandard(headers: Headers, body: string, secret: string, now: number): Promise<Verified> {
  const id = header(headers, "webhook-id");
  const timestamp = Number(freshTimestamp(headers, "webhook-timestamp", WHOLE_SECONDS, now));
  const presented = header(headers, "webhook-signature").split(" ").filter(Boolean);
  const expected = await sign(secret, id, timestamp, body);
  // Every candidate is compared, in time independent of where a wrong one differs.
  let ok = false;
  for (const candidate of presented) ok = hexEquals(candidate, expected) || ok;
  if (!ok) throw unauthenticated("the webhook-signature does not verify");
  return { event_id: eventId(id), sent_at: timestamp * 1000 };
}

/** Checks a Vast delivery against each of `secrets` (an account's, or two during a rotation). */
export async function verifyVast(headers: Headers, body: string, secrets: readonly string[], now: number): Promise<Verified> {
  const timestamp = freshTimestamp(headers, "x-vast-timestamp", SECONDS, now);
  const presented = header(headers, "x-vast-signature-256");
  const hex = /^sha256=([0-9a-fA-F]{64})$/.exec(presented)?.[1]?.toLowerCase();
  if (!hex) throw unauthenticated("X-Vast-Signature-256 must be sha256=<64 hex digits>");
  const enc = new TextEncoder();
  let ok = false;
  for (const secret of secrets) {
    const mac = toHex(await hmacSha256(enc.encode(secret), `${timestamp}.${body}`));
    ok = hexEquals(hex, mac) || ok;
  }
  if (!ok) throw unauthenticated("X-Vast-Signature-256 does not verify");
  return { event_id: eventId(headers.get("x-vast-event-id")), sent_at: Number(timestamp) * 1000 };
}

/** The Vast signing secrets an installation holds (LESSOR_VAST_WEBHOOK_SECRET, comma-separated). */
export function vastSecrets(setting: string | undefined): string[] {
  return (setting ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}
