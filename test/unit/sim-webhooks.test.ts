/** The sim's webhooks as pure rules (src/providers/sim/webhooks.ts): where, when, and after an attempt. */
import { describe, expect, it } from "vitest";
import { afterAttempt, nextClockChangeAt, SIM_WEBHOOK_MAX_ATTEMPTS, simWebhookBody, simWebhookTarget } from "../../src/providers/sim/webhooks";

const T = 1_000_000;
const clock = { since: T, provision_ms: 50, boot_ms: 100, vanish_at: null as number | null };

describe("simWebhookTarget", () => {
  it("is the public URL's ingress for the sim, only with both settings", () => {
    expect(simWebhookTarget({ LESSOR_PUBLIC_URL: "http://127.0.0.1:8787", LESSOR_INGRESS_TOKEN: "tok" })).toEqual({ url: "http://127.0.0.1:8787/v1/ingress/sim/tok", token: "tok" });
    expect(simWebhookTarget({ LESSOR_PUBLIC_URL: "https://lessor.example.com/", LESSOR_INGRESS_TOKEN: "tok" })?.url).toBe("https://lessor.example.com/v1/ingress/sim/tok");
    expect(simWebhookTarget({ LESSOR_PUBLIC_URL: "http://127.0.0.1:8787" })).toBeNull();
    expect(simWebhookTarget({ LESSOR_PUBLIC_URL: "http://127.0.0.1:8787", LESSOR_INGRESS_TOKEN: "" })).toBeNull();
    expect(simWebhookTarget({ LESSOR_INGRESS_TOKEN: "tok" })).toBeNull();
  });
});

describe("nextClockChangeAt", () => {
  it("is the end of provisioning or of the boot, or the vanishing, whichever is first; never for a machine that only waits", () => {
    expect(nextClockChangeAt({ ...clock, status: "PROVISIONING" })).toBe(T + 50);
    expect(nextClockChangeAt({ ...clock, status: "STARTING" })).toBe(T + 100);
    expect(nextClockChangeAt({ ...clock, status: "STARTING", vanish_at: T + 99 })).toBe(T + 99);
    expect(nextClockChangeAt({ ...clock, status: "STARTING", vanish_at: T + 101 })).toBe(T + 100);
    expect(nextClockChangeAt({ ...clock, status: "RUNNING" })).toBeNull();
    expect(nextClockChangeAt({ ...clock, status: "RUNNING", vanish_at: T + 3000 })).toBe(T + 3000);
    expect(nextClockChangeAt({ ...clock, status: "EXITED", vanish_at: T + 3000 })).toBe(T + 3000);
    expect(nextClockChangeAt({ ...clock, status: "TERMINATED", vanish_at: T + 3000 })).toBeNull();
  });
});

describe("afterAttempt", () => {
  it("a 2xx is done; a 4xx but 408 and 429 is done (a retry cannot change it)", () => {
    for (const status of [200, 202, 299, 400, 401, 404, 413]) expect(afterAttempt(status, 1, T), String(status)).toEqual({ done: true });
  });

  it("anything else is retried after 1, 2, 4, 8 s, and given up after the fifth attempt", () => {
    for (const status of [null, 408, 429, 500, 503]) expect(afterAttempt(status, 1, T), String(status)).toEqual({ done: false, next_at: T + 1000 });
    expect([1, 2, 3, 4].map((n) => afterAttempt(500, n, T))).toEqual([1000, 2000, 4000, 8000].map((d) => ({ done: false, next_at: T + d })));
    expect(afterAttempt(500, SIM_WEBHOOK_MAX_ATTEMPTS, T)).toEqual({ done: true });
  });
});

describe("simWebhookBody", () => {
  it("names the machine, its new status and when", () => {
    expect(JSON.parse(simWebhookBody({ machine_id: "sim-m-1", status: "TERMINATED", at: T }))).toEqual({ type: "machine.status", machine_id: "sim-m-1", status: "TERMINATED", at: T });
  });
});
