/**
 * decide.ts `nextMove` and `alarmAt`: the run loop's choice (read the machine, act, or stop) on
 * both sides of the backoff and of a release that falls due, and where the one alarm is set.
 */
import { describe, expect, it } from "vitest";
import { alarmAt, nextMove } from "../../src/lease/decide";
import { NO_AGENT, type Observation } from "../../src/lease/state";
import { lease, M, machine, T0 } from "../support/lease-fixture";

const NOW = T0 + 10 * M;
const unread: Observation = { machine: undefined };
const running: Observation = { machine: machine("running"), app_ready: true };

describe("nextMove: the run loop's next move", () => {
  it("no lease, or a released one: done", () => {
    expect(nextMove(null, unread, NOW)).toEqual({ move: "done" });
    expect(nextMove(lease("released", { machine_id: null }), unread, NOW)).toEqual({ move: "done" });
  });
  it("a lease with a machine not yet read: observe first", () => {
    expect(nextMove(lease("ready"), unread, NOW)).toEqual({ move: "observe" });
  });
  it("backing off (retry_at one ms ahead): no read; at retry_at: read", () => {
    expect(nextMove(lease("ready", { retry_at: NOW + 1 }), unread, NOW)).toEqual({ move: "done" });
    expect(nextMove(lease("ready", { retry_at: NOW }), unread, NOW)).toEqual({ move: "observe" });
  });
  it("a release due whatever the machine says (ttl reached) acts without a read; one ms before, it reads", () => {
    const l = lease("ready", { ttl_deadline: NOW });
    expect(nextMove(l, unread, NOW)).toMatchObject({ move: "act", decision: { action: "release", reason: "ttl_expired" } });
    expect(nextMove(l, unread, NOW - 1)).toEqual({ move: "observe" });
  });
  it("a releasing lease acts without a read", () => {
    expect(nextMove(lease("releasing", { release_reason: "user_end" }), unread, NOW)).toMatchObject({ move: "act", decision: { action: "release" } });
  });
  it("read, nothing due: done", () => {
    expect(nextMove(lease("ready", { last_activity_at: NOW }), running, NOW)).toEqual({ move: "done" });
  });
  it("read, an action due: act on it", () => {
    expect(nextMove(lease("booting"), running, NOW)).toMatchObject({ move: "act", decision: { action: "mark_ready" } });
  });
  it("a poll due: one read per run, none while backing off", () => {
    const booting = lease("booting", { state_since: NOW - M, observed_at: NOW - M, machine_status: "starting" });
    const starting: Observation = { machine: machine("starting") };
    expect(nextMove(booting, unread, NOW)).toEqual({ move: "observe" });
    expect(nextMove(booting, starting, NOW)).toEqual({ move: "done" });
    expect(nextMove({ ...booting, retry_at: NOW + 1 }, unread, NOW)).toEqual({ move: "done" });
  });
  it("a lease with no machine to read acts on its decision", () => {
    expect(nextMove(lease("pending", { machine_id: null }), unread, NOW)).toMatchObject({ move: "act", decision: { action: "provision" } });
  });
});

describe("alarmAt: the one alarm", () => {
  it("released: none", () => expect(alarmAt(lease("released", { machine_id: null }), NOW, NO_AGENT)).toBeNull());
  it("an action due: now", () => expect(alarmAt(lease("pending", { machine_id: null }), NOW, NO_AGENT)).toBe(NOW));
  it("an action due while backing off: when the backoff ends", () => {
    expect(alarmAt(lease("releasing", { release_reason: "user_end", retry_at: NOW + 5_000 }), NOW, NO_AGENT)).toBe(NOW + 5_000);
  });
  it("a backoff already over: now", () => {
    expect(alarmAt(lease("releasing", { release_reason: "user_end", retry_at: NOW - 5_000 }), NOW, NO_AGENT)).toBe(NOW);
  });
  it("nothing due: the nearest deadline (ready: idle after activity + grace + idle timeout)", () => {
    expect(alarmAt(lease("ready"), NOW, NO_AGENT)).toBe(T0 + 2 * M + 30 * M);
  });
});
