/**
 * The pure parts of the webhook queue's consumer (src/webhooks/consumer.ts): how one endpoint's
 * attempts of a batch are judged in the order they ended, and how a batch's sends are spread.
 */
import { describe, expect, it } from "vitest";
import { judgeEndpoint, limiter, MAX_QUEUE_DELAY_S, roundRobin, type Done } from "../../src/webhooks/consumer";
import { FAILING_DISABLE_MS, MAX_ATTEMPTS, MAX_CONSECUTIVE_FAILURES, RETRY_SCHEDULE_MS } from "../../src/webhooks/schedule";

const T0 = Date.UTC(2030, 0, 1);
const healthy = { failing_since: null, consecutive_failures: 0 };

let n = 0;
/** One attempt of the batch: its answer (a status, or null for none), when it ended, the delivery's attempts before, the message's delivery count. */
function done(status: number | null, at: number, attempts = 0, deliveries = 1): Done {
  const id = `dlv_${++n}`;
  const m = { id: `m${n}`, attempts: deliveries, body: { kind: "delivery", org: "org_1", id, token: 1 } } as unknown as Done["m"];
  return {
    m,
    claimed: { endpoint_id: "wh_1", msg_id: `msg_${n}`, body: "{}", attempts },
    outcome: status === null ? { status: null, error: "could not connect" } : { status, error: null },
    attempted: true,
    latency_ms: 5,
    at,
  };
}
const mid = () => 0.5;

describe("judgeEndpoint", () => {
  it("judges in the order the attempts ended: a delivery after failures clears them, failures after it count", () => {
    const batch = [done(500, T0 + 30), done(200, T0 + 20), done(500, T0 + 10)];
    const j = judgeEndpoint(healthy, batch, mid);
    expect(j.run).toEqual({ cleared: true, failures: 1, first_failure_at: T0 + 30 });
    expect(j.disable).toBeNull();
    expect(j.settled.map((s) => [s.status, s.next_at])).toEqual([
      ["pending", T0 + 10 + RETRY_SCHEDULE_MS[1]],
      ["succeeded", null],
      ["pending", T0 + 30 + RETRY_SCHEDULE_MS[1]],
    ]);
    expect(j.retries.map(([, delay]) => delay)).toEqual([RETRY_SCHEDULE_MS[1] / 1000, RETRY_SCHEDULE_MS[1] / 1000]);
  });

  it("adds a batch's failures to the endpoint's, keeping its first failure time", () => {
    const j = judgeEndpoint({ failing_since: T0 - 1_000, consecutive_failures: 4 }, [done(503, T0), done(null, T0 + 1)], mid);
    expect(j.run).toEqual({ cleared: false, failures: 2, first_failure_at: T0 });
    expect(j.settled.every((s) => s.status === "pending")).toBe(true);
  });

  it("a 410 disables the endpoint; what ended after it in the batch is recorded as it came, never retried", () => {
    const j = judgeEndpoint(healthy, [done(410, T0), done(500, T0 + 1), done(204, T0 + 2)], mid);
    expect(j.disable).toEqual({ reason: "gone", health: { failing_since: T0, consecutive_failures: 1 }, at: T0 });
    expect(j.settled.map((s) => s.status)).toEqual(["failed", "failed", "succeeded"]);
    expect(j.retries).toEqual([]);
  });

  it(`disables at the ${MAX_CONSECUTIVE_FAILURES}th failure in a row, counting those of the batch before it, and after five days failing`, () => {
    const j = judgeEndpoint({ failing_since: T0 - 60_000, consecutive_failures: MAX_CONSECUTIVE_FAILURES - 2 }, [done(500, T0), done(500, T0 + 1)], mid);
    expect(j.settled.map((s) => s.status)).toEqual(["pending", "failed"]);
    expect(j.disable).toMatchObject({ reason: "failing", health: { consecutive_failures: MAX_CONSECUTIVE_FAILURES } });
    const old = judgeEndpoint({ failing_since: T0 - FAILING_DISABLE_MS, consecutive_failures: 1 }, [done(500, T0)], mid);
    expect(old.disable).toMatchObject({ reason: "failing", health: { consecutive_failures: 2 } });
  });

  it(`fails a delivery for good at its ${MAX_ATTEMPTS}th attempt, and at the queue's last delivery of its message`, () => {
    const j = judgeEndpoint(healthy, [done(500, T0, MAX_ATTEMPTS - 1), done(500, T0 + 1, 0, MAX_ATTEMPTS)], mid);
    expect(j.settled.map((s) => [s.status, s.next_at])).toEqual([
      ["failed", null],
      ["failed", null],
    ]);
    expect(j.retries).toEqual([]);
  });

  it("retries in whole seconds of the schedule's wait, the record saying when it comes", () => {
    const j = judgeEndpoint(healthy, [done(500, T0, 6)], () => 0.999);
    const [[, delay]] = j.retries as [[unknown, number]];
    expect(delay).toBe(Math.round((RETRY_SCHEDULE_MS[7] * 1.0998) / 1000));
    expect(delay).toBeLessThanOrEqual(MAX_QUEUE_DELAY_S);
    expect(j.settled[0]!.next_at).toBe(T0 + delay * 1000);
  });

  it("a request never made (its URL refused, its secret unreadable) fails without counting against the endpoint", () => {
    const refused = { ...done(null, T0), attempted: false };
    const j = judgeEndpoint(healthy, [refused], mid);
    expect(j.settled.map((s) => s.status)).toEqual(["failed"]);
    expect(j.run).toEqual({ cleared: false, failures: 0, first_failure_at: null });
  });
});

describe("spreading a batch's sends", () => {
  it("takes one of each endpoint in turn", () => {
    const items = ["a1", "a2", "a3", "b1", "c1", "c2"];
    expect(roundRobin(items, (x) => x[0]!)).toEqual(["a1", "b1", "c1", "a2", "c2", "a3"]);
    expect(roundRobin([], (x: string) => x)).toEqual([]);
  });

  it("runs everything it is given, never more than its limit at once, the rest in the order they came", async () => {
    let open = 0;
    let most = 0;
    const started: number[] = [];
    const slots = limiter(6);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        slots(async () => {
          started.push(i);
          most = Math.max(most, ++open);
          await new Promise((r) => setTimeout(r, 5));
          open--;
          if (i === 3) throw new Error("a failure gives its slot back");
          return i;
        }).catch(() => -1),
      ),
    );
    expect(most).toBe(6);
    expect(started).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(answers.filter((a) => a === -1)).toHaveLength(1);
    expect(open).toBe(0);
  });
});
