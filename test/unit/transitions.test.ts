/**
 * transitions.ts: every user action in every state (allowed, refused, or no change), what each
 * allowed one writes, and the rules that pick the next host or the release reason. Like
 * decide.test.ts, each boundary is tested on both sides.
 */
import { describe, expect, it } from "vitest";
import {
  agentSilent,
  markExited,
  markReady,
  signalQueued,
  stalled,
  afterHostFailed,
  beginRelease,
  createFailure,
  exhaustedReason,
  markStopped,
  newLease,
  observed,
  observationChanged,
  released,
  preemption,
  releaseStarted,
  rentable,
  started,
  stopFailed,
  stopIssued,
  stopRequested,
  USER_ACTIONS,
  userAction,
  withMachine,
  withReserved,
  type UserAction,
} from "../../src/lease/transitions";
import { deadlines, decide } from "../../src/lease/decide";
import { orphanRule } from "../../src/lease/reaper";
import { LEASE_STATES, type LeaseState, type MachinedLease } from "../../src/lease/state";
import { H, lease, M, machine, offer, S, T0 } from "../support/lease-fixture";

const NOW = T0 + 10 * M;

/** What each action does in each state: "ok" (a change), "same" (nothing changes, no error), "409". */
const TABLE: Record<UserAction, Record<LeaseState, "ok" | "same" | "409">> = {
  end: { pending: "ok", provisioning: "ok", booting: "ok", ready: "ok", stopping: "ok", stopped: "ok", starting: "ok", releasing: "same", released: "same" },
  stop: { pending: "409", provisioning: "409", booting: "ok", ready: "ok", stopping: "409", stopped: "409", starting: "409", releasing: "409", released: "409" },
  start: { pending: "409", provisioning: "409", booting: "409", ready: "409", stopping: "409", stopped: "ok", starting: "409", releasing: "409", released: "409" },
  extend: { pending: "ok", provisioning: "ok", booting: "ok", ready: "ok", stopping: "ok", stopped: "ok", starting: "ok", releasing: "409", released: "409" },
  lock: { pending: "409", provisioning: "409", booting: "ok", ready: "ok", stopping: "409", stopped: "409", starting: "409", releasing: "409", released: "409" },
  unlock: { pending: "ok", provisioning: "ok", booting: "ok", ready: "ok", stopping: "ok", stopped: "ok", starting: "ok", releasing: "409", released: "409" },
  heartbeat: { pending: "409", provisioning: "409", booting: "ok", ready: "ok", stopping: "409", stopped: "409", starting: "409", releasing: "409", released: "409" },
};

const cells = USER_ACTIONS.flatMap((action) => LEASE_STATES.map((state) => ({ action, state, expected: TABLE[action][state] })));

describe("userAction: every action in every state", () => {
  it("the table covers every action and state", () => {
    expect(cells).toHaveLength(USER_ACTIONS.length * LEASE_STATES.length);
  });
  it.each(cells)("$action in $state: $expected", ({ action, state, expected }) => {
    const plan = userAction(lease(state, { release_reason: state === "releasing" ? "user_end" : null }), action, { ms: H }, NOW);
    if (expected === "409") {
      expect(plan).toMatchObject({ ok: false, details: { state, action } });
      return;
    }
    expect(plan.ok).toBe(true);
    if (!plan.ok) return;
    if (expected === "same") expect(plan.change).toBeNull();
    else expect(plan.change).not.toBeNull();
  });
});

describe("userAction: what an allowed action writes", () => {
  it("end: releasing at once, a backoff dropped", () => {
    const plan = userAction(lease("stopping", { retry_at: NOW + H }), "end", {}, NOW);
    expect(plan.ok && plan.change).toMatchObject({ next: { state: "releasing", release_reason: "user_end", retry_at: null, state_since: NOW }, effect: { event: "release_requested", reason: "user_end" } });
  });
  it("stop: where the provider cannot stop, 409 naming the capability", () => {
    expect(userAction(lease("ready", { can_stop: false }), "stop", {}, NOW)).toMatchObject({ ok: false, details: { capability: "stop" } });
  });
  it("stop: stopping, the lock dropped", () => {
    const plan = userAction(lease("ready", { lock_until: NOW + H }), "stop", {}, NOW);
    expect(plan.ok && plan.change?.next).toMatchObject({ state: "stopping", lock_until: null, stop_issued_at: null });
  });
  it("start: the session before the stop no longer counts, so a stop longer than max_lifetime is not a release at once", () => {
    // Ran an hour, stopped for 30: the session before the stop ended long past max_lifetime (1 d).
    const stopped = lease("stopped", { session_started_at: T0, stopped_at: T0 + H, ttl_deadline: null, policy: { ...lease("stopped").policy, stopped_ttl: 48 * H, max_session_usd: 0.5 } });
    const later = T0 + 31 * H;
    const plan = userAction(stopped, "start", {}, later);
    const next = plan.ok ? plan.change!.next : null;
    expect(next).toMatchObject({ state: "starting" });
    expect(decide(next!, { machine: undefined }, later)).toMatchObject({ action: "start" });
    // Neither max_lifetime nor the session budget of the session before: the next begins when the start is accepted.
    expect(deadlines(next!, { machine: undefined }, later).map((c) => c.reason)).not.toContain("max_lifetime");
    expect(started(next as MachinedLease, later + 1).next).toMatchObject({ session_started_at: later + 1 });
  });
  it("start: a reservation for a new session when the one held does not cover it", () => {
    const plan = userAction(lease("stopped", { reserved: null }), "start", {}, NOW);
    expect(plan.ok && plan.change?.next.state).toBe("starting");
    expect(plan.ok && plan.reserve).not.toBeNull();
  });
  it("extend: moves the ttl; without a ttl, 409", () => {
    const plan = userAction(lease("ready"), "extend", { ms: H }, NOW);
    expect(plan.ok && plan.change?.next.ttl_deadline).toBe(T0 + 5 * H);
    expect(userAction(lease("ready", { ttl_deadline: null }), "extend", { ms: H }, NOW)).toMatchObject({ ok: false });
  });
  it("lock: never past a hard cap (one ms either side of the ttl)", () => {
    const l = lease("ready", { ttl_deadline: NOW + H });
    const under = userAction(l, "lock", { ms: H - 1 }, NOW);
    expect(under.ok && under.change?.next.lock_until).toBe(NOW + H - 1);
    const over = userAction(l, "lock", { ms: H + 1 }, NOW);
    expect(over.ok && over.change?.next.lock_until).toBe(NOW + H);
  });
  it("heartbeat: activity now, written without an event", () => {
    const plan = userAction(lease("ready"), "heartbeat", {}, NOW);
    expect(plan).toMatchObject({ ok: true, quiet: true, change: { next: { last_activity_at: NOW } } });
  });
  it("heartbeat: activity never moves backwards (the gateway's is written after it happened)", () => {
    const later = userAction(lease("ready", { last_activity_at: NOW + 1 }), "heartbeat", {}, NOW);
    expect(later.ok && later.change?.next.last_activity_at).toBe(NOW + 1);
    const earlier = userAction(lease("ready", { last_activity_at: NOW - 1 }), "heartbeat", {}, NOW);
    expect(earlier.ok && earlier.change?.next.last_activity_at).toBe(NOW);
  });
});

describe("hosts running out: one rule", () => {
  it("no machine ever created (attempt 0): no_capacity; one created: host_failed", () => {
    expect(exhaustedReason(lease("provisioning", { attempt: 0 }))).toBe("no_capacity");
    expect(exhaustedReason(lease("provisioning", { attempt: 1 }))).toBe("host_failed");
  });
  it("rentable: the offer while attempts are left (one either side of host_attempts)", () => {
    expect(rentable(lease("provisioning", { attempt: 2, machine_id: null }))).toEqual({ offer });
    expect(rentable(lease("provisioning", { attempt: 3, machine_id: null }))).toMatchObject({ release: "host_failed" });
    expect(rentable(lease("provisioning", { attempt: 0, offer_index: 1, machine_id: null }))).toMatchObject({ release: "no_capacity" });
  });
  const second = { ...offer, id: "runpod:o2", provider: "runpod", host_id: "h2", hourly_usd: 3 };
  const canStop = (p: string) => p === "sim";
  it("afterHostFailed: the next offer on another host, following its provider and price", () => {
    const step = afterHostFailed(lease("booting", { offers: [offer, second] }), "h1", "boot_timeout", canStop, NOW);
    expect(step.next).toMatchObject({ state: "provisioning", offer_index: 1, excluded_hosts: ["h1"], machine_id: null, provider: "runpod", can_stop: false, hourly_usd: 3 });
    expect(step.effect).toMatchObject({ event: "host_excluded", reason: "boot_timeout", detail: { next_provider: "runpod" } });
  });
  it("afterHostFailed: an offer on an excluded host is skipped; none left releases by the one rule", () => {
    const l = lease("booting", { offers: [offer, { ...second, host_id: "h1" }] });
    expect(afterHostFailed(l, "h1", "host_failed", canStop, NOW)).toMatchObject({ next: { state: "releasing", release_reason: "host_failed" } });
    expect(afterHostFailed({ ...l, attempt: 0 }, "h1", "no_capacity", canStop, NOW)).toMatchObject({ next: { state: "releasing", release_reason: "no_capacity" } });
  });
  it("afterHostFailed: attempts used up releases even with offers left", () => {
    expect(afterHostFailed(lease("booting", { offers: [offer, second], attempt: 3 }), "h1", "host_failed", canStop, NOW).next.state).toBe("releasing");
  });
  it("createFailure: capacity tries the next host, refusals release, rate limits retry, the rest is unknown", () => {
    expect(createFailure("no_capacity")).toBe("next_offer");
    expect(["auth", "insufficient_funds", "refused"].map((k) => createFailure(k as "auth"))).toEqual(["refused", "refused", "refused"]);
    expect(createFailure("rate_limited")).toBe("retry");
    expect(createFailure("unavailable")).toBe("ambiguous");
    expect(createFailure("ambiguous")).toBe("ambiguous");
  });
});

describe("machine transitions", () => {
  it("withMachine: a first machine begins the session; a replacement continues it", () => {
    const m = machine("starting");
    expect(withMachine(lease("provisioning", { session_started_at: T0 }), m, "", NOW)).toMatchObject({ state: "booting", machine_id: "m1", session_started_at: NOW, start_issued_at: null });
    expect(withMachine(lease("booting", { session_started_at: T0 }), m, "acct", NOW)).toMatchObject({ session_started_at: T0, machine_account: "acct" });
  });
  it("started: a new session, and the start remembered for the restart grace", () => {
    expect(started(lease("starting", { stopped_at: T0 }), NOW).next).toMatchObject({ state: "booting", session_started_at: NOW, start_issued_at: NOW, stopped_at: null });
  });
  it("stopRequested: from ready and stopped (unexpected_start), not while already stopping", () => {
    expect(stopRequested(lease("ready"), "idle_timeout", NOW)).toMatchObject({ next: { state: "stopping" }, effect: { reason: "idle_timeout" } });
    expect(stopRequested(lease("stopped", { stopped_at: T0 }), "unexpected_start", NOW)).toMatchObject({ next: { state: "stopping", stopped_at: null }, effect: { detail: { machine_id: "m1" } } });
    expect(stopRequested(lease("stopping"), null, NOW)).toBeNull();
  });
  it("markStopped keeps the first time seen stopped", () => {
    expect(markStopped(lease("stopping", { stopped_at: T0 }), null, NOW).next.stopped_at).toBe(T0);
    expect(markStopped(lease("stopping", { stopped_at: null }), null, NOW).next.stopped_at).toBe(NOW);
  });
  it("beginRelease drops the lock and the backoff", () => {
    expect(beginRelease(lease("ready", { lock_until: NOW + H, retry_at: NOW + M }), "ttl_expired", NOW).next).toMatchObject({ state: "releasing", lock_until: null, retry_at: null });
  });
  it("a read-back that changed only when the machine was read is not written; a new status or an ended backoff is", () => {
    const l = lease("booting", { machine_status: "starting", observed_change_at: T0, observed_at: T0, retry_at: null });
    expect(observationChanged(l, observed(l, "starting", NOW))).toBe(false);
    expect(observationChanged(l, observed(l, "running", NOW))).toBe(true);
    expect(observationChanged({ ...l, retry_at: NOW - 1 }, observed({ ...l, retry_at: NOW - 1 }, "starting", NOW))).toBe(true);
  });
  it("observed: a change of status restarts the read-back schedule; the same status keeps it", () => {
    const l = lease("booting", { machine_status: "starting", observed_change_at: T0 });
    expect(observed(l, "starting", NOW)).toMatchObject({ observed_at: NOW, observed_change_at: T0 });
    expect(observed(l, "running", NOW)).toMatchObject({ observed_at: NOW, observed_change_at: NOW, machine_status: "running" });
  });
});

describe("the object's writes, as steps", () => {
  const init = {
    id: "ls_new", org_id: "org_test", kind: "scratch" as const, policy: lease("ready").policy, spec: null, quote_id: null,
    offers: [offer], image: null, cmd: null, warnings: [], reserved: null, now: NOW,
  };
  it("newLease: pending on its first offer, the ttl counted from now; no ttl, no deadline", () => {
    const step = newLease(init, () => false);
    expect(step.next).toMatchObject({ state: "pending", version: 0, attempt: 0, provider: "sim", can_stop: false, hourly_usd: 2, ttl_deadline: NOW + 4 * H });
    expect(step.effect).toEqual({ event: "created", detail: { offer: offer.id, kind: "scratch" } });
    expect(newLease({ ...init, policy: { ...init.policy, ttl: null } }, () => true).next).toMatchObject({ ttl_deadline: null, can_stop: true });
  });
  it("withReserved: the lease holds what admission reserved, and the event says how much", () => {
    const reserve = { hourly_micro_usd: 2_000_000, unbounded: false, months: { "2026-11": 1_500_000 } };
    const step = withReserved({ next: lease("stopped"), effect: { event: "start_requested", detail: { a: 1 } } }, reserve);
    expect(step.next.reserved).toBe(reserve);
    expect(step.effect).toEqual({ event: "start_requested", detail: { a: 1, reserved_usd: 1.5 } });
  });
  it("stopIssued clears a failing stop and the backoff; stopFailed keeps when stops began failing", () => {
    const failing = lease("stopping", { stop_failing_since: T0, retry_at: NOW + M });
    expect(stopIssued(failing, NOW)).toEqual({ next: { ...failing, stop_issued_at: NOW, stop_failing_since: null, retry_at: null }, effect: { event: "stop_issued" } });
    expect(stopFailed(failing, NOW).stop_failing_since).toBe(T0);
    expect(stopFailed(lease("stopping"), NOW).stop_failing_since).toBe(NOW);
  });
  it("releaseStarted: a step from any live state, none when already releasing", () => {
    expect(releaseStarted(lease("ready"), "ttl_expired", NOW)).toMatchObject({ next: { state: "releasing", release_reason: "ttl_expired" } });
    expect(releaseStarted(lease("releasing", { release_reason: "user_end" }), "ttl_expired", NOW)).toBeNull();
  });
  it("preemption: released with reason preempted and the displacing lease named, from any live state; none once ending", () => {
    for (const state of ["pending", "booting", "ready", "stopped"] as const) {
      expect(preemption(lease(state, { lock_until: NOW + H }), "ls_dep", NOW)).toMatchObject({
        next: { state: "releasing", release_reason: "preempted", lock_until: null },
        effect: { event: "release_requested", reason: "preempted", detail: { by: "ls_dep" } },
      });
    }
    expect(preemption(lease("releasing", { release_reason: "ttl_expired" }), "ls_dep", NOW)).toBeNull();
    expect(preemption(lease("released"), "ls_dep", NOW)).toBeNull();
  });
  it("released: at the confirmed destroy, every destroyed machine attributed once", () => {
    const l = lease("releasing", { release_reason: "user_end", machine_ids: ["m1"], lock_until: NOW, retry_at: NOW });
    const step = released(l, ["m1", "m2"], NOW);
    expect(step.next).toMatchObject({ state: "released", released_at: NOW, state_since: NOW, machine_status: "terminated", machine_ids: ["m1", "m2"], lock_until: null, retry_at: null });
    expect(step.effect).toEqual({ event: "released", reason: "user_end", detail: { destroyed: ["m1", "m2"] } });
    expect(released(lease("releasing", { machine_id: null, machine_ids: [] }), [], NOW).next.machine_status).toBeNull();
  });
});

describe("orphanRule: both sides of the grace and the stopped time-to-live", () => {
  const limits = { grace_ms: 5 * M, stopped_ttl_ms: H, can_stop: true };
  it("a running orphan: nothing before the grace, stopped at it", () => {
    expect(orphanRule({ status: "running", first_seen_at: T0, stopped_at: null }, limits, T0 + 5 * M - 1)).toEqual({ action: "none", stopped_at: null });
    expect(orphanRule({ status: "running", first_seen_at: T0, stopped_at: null }, limits, T0 + 5 * M)).toEqual({ action: "stop", stopped_at: T0 + 5 * M });
  });
  it("first seen now: the grace starts now", () => {
    expect(orphanRule({ status: "running", first_seen_at: null, stopped_at: null }, limits, T0)).toEqual({ action: "none", stopped_at: null });
  });
  it("where the provider cannot stop: destroyed at the grace", () => {
    expect(orphanRule({ status: "running", first_seen_at: T0, stopped_at: null }, { ...limits, can_stop: false }, T0 + 5 * M)).toEqual({ action: "destroy", stopped_at: null });
  });
  it("a stopped orphan: destroyed at its stopped time-to-live, not before", () => {
    expect(orphanRule({ status: "stopped", first_seen_at: T0, stopped_at: T0 }, limits, T0 + H - 1)).toEqual({ action: "none", stopped_at: T0 });
    expect(orphanRule({ status: "stopped", first_seen_at: T0, stopped_at: T0 }, limits, T0 + H)).toEqual({ action: "destroy", stopped_at: T0 });
  });
  it("first seen stopped (or in error): its time-to-live counts from now", () => {
    expect(orphanRule({ status: "error", first_seen_at: null, stopped_at: null }, limits, T0)).toEqual({ action: "none", stopped_at: T0 });
  });
  it("a stopped orphan started again: stopped again at once (past its grace)", () => {
    expect(orphanRule({ status: "running", first_seen_at: T0, stopped_at: T0 + 10 * M }, limits, T0 + 20 * M)).toEqual({ action: "stop", stopped_at: T0 + 20 * M });
  });
});


describe("the command's transitions", () => {
  const ready = () => lease("ready", { kind: "job", cmd: "hang" });
  it("an exit is recorded with its event; a TERM starts a kill, the KILL follows it; each names its cause", () => {
    const exited = markExited(ready(), { code: 3, signal: null, at: T0 + S });
    expect(exited.next.job).toMatchObject({ exit: { code: 3, signal: null, at: T0 + S }, kill_cause: null });
    expect(exited.effect).toMatchObject({ event: "exited", detail: { code: 3, signal: null } });
    const term = signalQueued(ready(), "TERM", "max_runtime", "cmd_1", T0 + 2 * S);
    expect(term.next.job).toMatchObject({ kill_cause: "max_runtime", term_at: T0 + 2 * S, kill_at: null });
    expect(term.effect).toMatchObject({ event: "killed_by_runtime_cap", reason: "max_runtime", detail: { signal: "TERM", command_id: "cmd_1" } });
    const kill = signalQueued(term.next, "KILL", "max_runtime", "cmd_2", T0 + 12 * S);
    expect(kill.next.job).toMatchObject({ term_at: T0 + 2 * S, kill_at: T0 + 12 * S });
    expect(signalQueued(ready(), "TERM", "inactivity", "cmd_3", T0).effect.event).toBe("killed_by_inactivity");
  });
  it("a stall and a silence are remembered so that each is reported once; ready starts the rules over", () => {
    const s1 = stalled(ready(), T0, "cmd_9", T0 + 5 * S);
    expect(s1.next.job).toMatchObject({ stalled_since: T0, diagnostics_id: "cmd_9" });
    expect(s1.effect).toMatchObject({ event: "stalled", reason: "inactivity", detail: { silent_ms: 5 * S, diagnostics_id: "cmd_9" } });
    const quiet = agentSilent(s1.next, T0 + S);
    expect(quiet.next.job).toMatchObject({ stalled_since: T0, silent_after: T0 + S });
    expect(quiet.effect).toMatchObject({ event: "agent_silent", detail: { last_heartbeat_at: new Date(T0 + S).toISOString() } });
    const again = markReady(lease("booting", { job: quiet.next.job }), T0 + H);
    expect(again.next.job).toBeNull();
  });
});
