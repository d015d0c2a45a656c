/**
 * decideScale(): the scaler's table (issue 32). Each row is what the deployment's object observes
 * (replicas, in flight, waiting, quiet time) and what the scaler must do about it, with its reason.
 */
import { describe, expect, it } from "vitest";
import { resolveReplicas } from "../../src/deployments/replicas";
import { decideScale, FAILURE_LIMIT, type ReplicaObs, type ScalerInput } from "../../src/deployments/scaler";

const T0 = Date.UTC(2026, 11, 1);
const S = 1_000;
const M = 60 * S;

const r = (id: string, over: Partial<ReplicaObs> = {}): ReplicaObs => ({ lease_id: id, primary: id === "p", state: "ready", draining_since: null, in_flight: 0, failures: 0, ...over });
const input = (replicas: ReplicaObs[], over: Partial<ScalerInput> = {}): ScalerInput => ({ replicas, queued: 0, last_request_at: T0, below_since: null, refused_until: null, primary_asleep: false, now: T0 + S, ...over });

const oneToThree = resolveReplicas({ min: 1, max: 3, target_inflight: 8, scale_down_delay: "10s", idle_timeout: "5m" }, null);
const zeroToTwo = resolveReplicas({ min: 0, max: 2, target_inflight: 4, idle_timeout: "1m" }, null);
const zeroRelease = resolveReplicas({ min: 0, max: 2, idle_timeout: "1m", sleep: "release" }, null);
const single = resolveReplicas(undefined, 30 * M);

interface Row {
  name: string;
  cfg: ReturnType<typeof resolveReplicas>;
  input: ScalerInput;
  /** The actions as `do:lease_id|count:reason`. */
  actions: string[];
  desired: number;
  next?: string;
}

const show = (a: ReturnType<typeof decideScale>["actions"][number]) => `${a.do}:${"count" in a ? a.count : a.lease_id}:${a.reason}`;

const rows: Row[] = [
  // The default {min: 1, max: 1} is today's deployment: one lease, never more.
  { name: "default: one replica under load stays one", cfg: single, input: input([r("p", { in_flight: 50 })]), actions: [], desired: 1 },
  { name: "default: a stopped primary and a waiting request: wake it", cfg: single, input: input([r("p", { state: "stopped" })], { queued: 1 }), actions: ["wake:p:request_waiting"], desired: 1 },
  { name: "default: asleep without requests: nothing", cfg: single, input: input([r("p", { state: "stopped" })], { last_request_at: null }), actions: [], desired: 0 },
  // Up.
  { name: "load at target: no more", cfg: oneToThree, input: input([r("p", { in_flight: 8 })]), actions: [], desired: 1 },
  { name: "load over target: one more", cfg: oneToThree, input: input([r("p", { in_flight: 9 })]), actions: ["add:1:load_above_target"], desired: 2 },
  { name: "load far over target: up to max at once", cfg: oneToThree, input: input([r("p", { in_flight: 200 })]), actions: ["add:2:load_above_target"], desired: 3 },
  { name: "a starting replica counts as serving", cfg: oneToThree, input: input([r("p", { in_flight: 16 }), r("x", { state: "starting" })]), actions: [], desired: 2 },
  { name: "waiting requests count as load", cfg: oneToThree, input: input([r("p", { state: "starting" })], { queued: 20 }), actions: ["add:2:load_above_target"], desired: 3 },
  { name: "a refused replica is not asked again before the backoff", cfg: oneToThree, input: input([r("p", { in_flight: 20 })], { refused_until: T0 + 30 * S }), actions: [], desired: 3, next: "add" },
  { name: "after the backoff it is asked again", cfg: oneToThree, input: input([r("p", { in_flight: 20 })], { refused_until: T0 }), actions: ["add:2:load_above_target"], desired: 3 },
  // Down, after the delay, extras first, the least busy first; draining ends when in flight does.
  { name: "fewer needed: wait for scale_down_delay", cfg: oneToThree, input: input([r("p"), r("x"), r("y")], { below_since: T0 + S - 10 * S + 1 }), actions: [], desired: 1, next: "drain" },
  { name: "fewer needed past the delay: drain the extras", cfg: oneToThree, input: input([r("p"), r("x", { in_flight: 0 }), r("y")], { below_since: T0 + S - 10 * S }), actions: ["drain:x:load_below_target", "drain:y:load_below_target"], desired: 1 },
  { name: "one fewer: the least busy extra drains", cfg: oneToThree, input: input([r("p", { in_flight: 4 }), r("x", { in_flight: 5 }), r("y", { in_flight: 1 })], { below_since: T0 - 20 * S }), actions: ["drain:y:load_below_target"], desired: 2 },
  { name: "a starting extra drains before a ready one", cfg: oneToThree, input: input([r("p", { in_flight: 9 }), r("x", { in_flight: 0 }), r("y", { state: "starting" })], { below_since: T0 - 20 * S }), actions: ["drain:y:load_below_target"], desired: 2 },
  { name: "a draining replica with streams open waits", cfg: oneToThree, input: input([r("p"), r("x", { draining_since: T0, in_flight: 3 })]), actions: [], desired: 1, next: "release" },
  { name: "a draining replica whose requests ended is released", cfg: oneToThree, input: input([r("p"), r("x", { draining_since: T0, in_flight: 0 })]), actions: ["release:x:drained"], desired: 1 },
  { name: "a draining replica past the drain bound is released", cfg: oneToThree, input: input([r("p"), r("x", { draining_since: T0 - 5 * M, in_flight: 1 })]), actions: ["release:x:drain_timeout"], desired: 1 },
  { name: "min 1 idle: down to one, never the primary", cfg: oneToThree, input: input([r("p"), r("x")], { last_request_at: T0 - 5 * M }), actions: [], desired: 1, next: "drain" },
  // Zero and back.
  { name: "min 0: quiet but not idle yet keeps one", cfg: zeroToTwo, input: input([r("p")], { last_request_at: T0 - 30 * S }), actions: [], desired: 1, next: "sleep" },
  { name: "min 0: idle puts the last one to sleep (stop)", cfg: zeroToTwo, input: input([r("p")], { last_request_at: T0 - M }), actions: ["sleep:p:idle_timeout"], desired: 0 },
  { name: "min 0: idle drains extras and sleeps the primary", cfg: zeroToTwo, input: input([r("p"), r("x")], { last_request_at: T0 - 2 * M }), actions: ["drain:x:idle_timeout", "sleep:p:idle_timeout"], desired: 0 },
  { name: "min 0 asleep: a request wakes the primary", cfg: zeroToTwo, input: input([r("p", { state: "stopped" })], { queued: 1 }), actions: ["wake:p:request_waiting"], desired: 1 },
  { name: "min 0 asleep (released): a request makes it anew", cfg: zeroRelease, input: input([r("p", { state: "gone" })], { queued: 1, primary_asleep: true }), actions: ["wake:p:request_waiting"], desired: 1 },
  { name: "min 0 asleep, a burst: wake and add", cfg: zeroToTwo, input: input([r("p", { state: "stopped" })], { queued: 6 }), actions: ["wake:p:request_waiting", "add:1:load_above_target"], desired: 2 },
  // Failures and losses.
  { name: "an extra failing repeatedly is released and replaced", cfg: oneToThree, input: input([r("p", { in_flight: 10 }), r("x", { failures: FAILURE_LIMIT, in_flight: 6 })]), actions: ["release:x:replica_failing", "add:1:load_above_target"], desired: 2 },
  { name: "a primary failing repeatedly is replaced", cfg: oneToThree, input: input([r("p", { failures: FAILURE_LIMIT }), r("x", { in_flight: 2 })]), actions: ["replace:p:replica_failing"], desired: 1 },
  { name: "an extra whose lease ended is forgotten and made again", cfg: oneToThree, input: input([r("p", { in_flight: 12 }), r("x", { state: "gone" })]), actions: ["forget:x:replica_lost", "add:1:load_above_target"], desired: 2 },
  { name: "an extra its own idle rule stopped is released", cfg: oneToThree, input: input([r("p"), r("x", { state: "stopped" })]), actions: ["release:x:replica_stopped"], desired: 1 },
  { name: "the primary ended by its own rules: extras drain, nothing added", cfg: oneToThree, input: input([r("p", { state: "gone" }), r("x", { in_flight: 30 })]), actions: ["drain:x:deployment_ended"], desired: 0 },
];

describe("decideScale", () => {
  for (const row of rows) {
    it(row.name, () => {
      const d = decideScale(row.cfg, row.input);
      expect(d.actions.map(show)).toEqual(row.actions);
      expect(d.desired).toBe(row.desired);
      if (row.next) expect(d.next.action).toBe(row.next);
      expect(d.next.reason.length).toBeGreaterThan(0);
    });
  }

  it("is a pure function of its input", () => {
    const i = input([r("p", { in_flight: 20 }), r("x")]);
    expect(decideScale(oneToThree, i)).toEqual(decideScale(oneToThree, structuredClone(i)));
  });

  it("a min above max is refused", () => {
    expect(() => resolveReplicas({ min: 3, max: 2 }, null)).toThrow(/more than replicas.max/);
  });
});
