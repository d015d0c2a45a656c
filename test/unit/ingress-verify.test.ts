/**
 * The providers' proofs (src/ingress/verify.ts) at their boundaries, with the clock passed in: the
 * 5-minute window to the second on both sides, and signatures made here from the documented formats.
 */
import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it, vi } from "vitest";
import { ApiError } from "../../src/errors";
import { ingressProvider, PROVIDER_CLOCK_SLACK_MS, signedWebhooks } from "../../src/ingress/providers";
import { simSigningSecret } from "../../src/ingress/sim-key";
import { sign } from "../../src/webhooks/secrets";
import { INGRESS_TOLERANCE_S, vastSecrets, verifyStandard, verifyVast } from "../../src/ingress/verify";

const NOW_S = 1_800_000_000;
const NOW = NOW_S * 1000 + 400;
const BODY = '{"instance_id":42}';

function vast(secret: string, ts: string, body = BODY, id: string | null = "evt-1") {
  const hex = createHmac("sha256", secret).update(`${ts}.${body}`).digest("hex");
  const h = new Headers({ "x-vast-timestamp": ts, "x-vast-signature-256": `sha256=${hex}` });
  if (id !== null) h.set("x-vast-event-id", id);
  return h;
}

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(() => null, (err: unknown) => err);
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
}

describe("Vast's signature", () => {
  it("takes a timestamp up to 5 minutes away either way (to the second), and refuses one a second further", async () => {
    for (const ts of [NOW_S - INGRESS_TOLERANCE_S + 1, NOW_S + INGRESS_TOLERANCE_S]) {
      await expect(verifyVast(vast("s", String(ts)), BODY, ["s"], NOW)).resolves.toEqual({ event_id: "evt-1", sent_at: ts * 1000 });
    }
    for (const ts of [NOW_S - INGRESS_TOLERANCE_S - 1, NOW_S + INGRESS_TOLERANCE_S + 1]) {
      const e = await refusal(verifyVast(vast("s", String(ts)), BODY, ["s"], NOW));
      expect([e.status, e.code]).toEqual([401, "unauthenticated"]);
    }
  });

  it("checks the timestamp as sent: a fraction is signed as written, a malformed one refused", async () => {
    await expect(verifyVast(vast("s", `${NOW_S}.5`), BODY, ["s"], NOW)).resolves.toBeTruthy();
    for (const ts of ["", "abc", "-5", `${NOW_S}e0`, " 1", `${NOW_S}.1234567`]) {
      expect((await refusal(verifyVast(vast("s", ts), BODY, ["s"], NOW))).status, ts).toBe(401);
    }
  });

  it("verifies under any of several secrets, none when there are none, upper-case hex too", async () => {
    await expect(verifyVast(vast("new", String(NOW_S)), BODY, ["old", "new"], NOW)).resolves.toBeTruthy();
    expect((await refusal(verifyVast(vast("new", String(NOW_S)), BODY, [], NOW))).status).toBe(401);
    const h = vast("s", String(NOW_S));
    h.set("x-vast-signature-256", h.get("x-vast-signature-256")!.replace(/^sha256=(.*)$/, (_, x: string) => `sha256=${x.toUpperCase()}`));
    await expect(verifyVast(h, BODY, ["s"], NOW)).resolves.toBeTruthy();
  });

  it("an event id is optional, and at most 256 characters (400 past that)", async () => {
    await expect(verifyVast(vast("s", String(NOW_S), BODY, null), BODY, ["s"], NOW)).resolves.toEqual({ event_id: null, sent_at: NOW_S * 1000 });
    await expect(verifyVast(vast("s", String(NOW_S), BODY, "e".repeat(256)), BODY, ["s"], NOW)).resolves.toEqual({ event_id: "e".repeat(256), sent_at: NOW_S * 1000 });
    expect((await refusal(verifyVast(vast("s", String(NOW_S), BODY, "e".repeat(257)), BODY, ["s"], NOW))).status).toBe(400);
  });

  it("reads its secrets from a comma-separated setting", () => {
    expect(vastSecrets(undefined)).toEqual([]);
    expect(vastSecrets(" a , ,b,")).toEqual(["a", "b"]);
  });
});

describe("Standard Webhooks (the sim's)", () => {
  it("verifies what the standardwebhooks package signs, within the window and not outside it", async () => {
    const secret = await simSigningSecret("t".repeat(32));
    const sign = (ts: number) => {
      const h = new Headers({ "webhook-id": "msg_1", "webhook-timestamp": String(ts) });
      h.set("webhook-signature", new Webhook(secret).sign("msg_1", new Date(ts * 1000), BODY));
      return h;
    };
    await expect(verifyStandard(sign(NOW_S - INGRESS_TOLERANCE_S + 1), BODY, secret, NOW)).resolves.toEqual({ event_id: "msg_1", sent_at: (NOW_S - INGRESS_TOLERANCE_S + 1) * 1000 });
    expect((await refusal(verifyStandard(sign(NOW_S - INGRESS_TOLERANCE_S - 1), BODY, secret, NOW))).status).toBe(401);
    expect((await refusal(verifyStandard(sign(NOW_S), BODY, await simSigningSecret("u".repeat(32)), NOW))).status).toBe(401);
  });

  it("derives the sim's key from the token: the same token, the same key; another, another", async () => {
    expect(await simSigningSecret("t".repeat(32))).toBe(await simSigningSecret("t".repeat(32)));
    expect(await simSigningSecret("t".repeat(32))).not.toBe(await simSigningSecret("t".repeat(31) + "u"));
    expect(await simSigningSecret("t".repeat(32))).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  });

  it("imports each signing key once per isolate: signing again with it imports nothing, a new key is imported", async () => {
    const secret = await simSigningSecret("k".repeat(32));
    const imports = vi.spyOn(crypto.subtle, "importKey");
    try {
      const first = await sign(secret, "msg_1", NOW_S, BODY);
      expect(await sign(secret, "msg_1", NOW_S, BODY)).toBe(first);
      expect(await simSigningSecret("k".repeat(32))).toBe(secret);
      expect(imports).toHaveBeenCalledTimes(1);
      const other = await sign(await simSigningSecret("l".repeat(32)), "msg_1", NOW_S, BODY);
      expect(other).not.toBe(first);
      expect(imports).toHaveBeenCalledTimes(3); // the new token's key, then the secret derived from it
      // What the standardwebhooks package makes with the same secret.
      expect(first).toBe(new Webhook(secret).sign("msg_1", new Date(NOW_S * 1000), BODY));
    } finally {
      imports.mockRestore();
    }
  });
});

describe("which providers' webhooks are signed", () => {
  it("sim and vast are; runpod is taken unsigned; lambda and unknown names have no ingress", () => {
    expect(["sim", "vast", "runpod", "lambda", "__proto__", "toString"].map(signedWebhooks)).toEqual([true, true, false, false, false, false]);
  });
});

describe("when a delivery's change had happened by (what lets a lease skip a read-back)", () => {
  const told = (provider: string, payload: unknown, sent_at: number | null) => ingressProvider(provider)!.toldAt(payload, { event_id: null, sent_at });

  it("the sim: the time its signed body gives, in ms; nothing else", () => {
    expect(told("sim", { machine_id: "m", at: NOW }, NOW_S * 1000)).toBe(NOW);
    for (const at of [undefined, null, "1800000000400", 1.5, Number.NaN, Infinity]) expect(told("sim", { machine_id: "m", at }, NOW_S * 1000)).toBeNull();
    expect(told("sim", null, NOW_S * 1000)).toBeNull();
  });

  it("Vast: its signed time plus the clocks' slack, never earlier", () => {
    expect(told("vast", { instance_id: 1 }, NOW_S * 1000)).toBe(NOW_S * 1000 + PROVIDER_CLOCK_SLACK_MS);
    expect(told("vast", { instance_id: 1 }, null)).toBeNull();
  });

  it("RunPod, unsigned: never, whatever its payload says", () => {
    expect(told("runpod", { podId: "p", at: NOW }, NOW)).toBeNull();
  });
});
