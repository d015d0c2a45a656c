/** `lessor up`'s exit code when its deployment was released before the model answered; its `--replicas` and how replicas are shown. */
import { describe, expect, it } from "vitest";
// @ts-ignore plain JavaScript module, typed by JSDoc
import { exitCodeOfDeployment, parseReplicas, replicaFields } from "../../cli/deployments.mjs";
import { EXIT } from "../../cli/exit-codes.mjs";

describe("exitCodeOfDeployment", () => {
  it("a model server that failed, answered anyone, or never answered is 11", () => {
    for (const reason of ["model_server_failed", "endpoint_exposed", "startup_timeout"]) expect(exitCodeOfDeployment(reason), reason).toBe(EXIT.MODEL_SERVER);
  });
  it("a machine that never came is what `run` answers for it", () => {
    expect(exitCodeOfDeployment("boot_timeout")).toBe(EXIT.PROVISIONING);
    expect(exitCodeOfDeployment("no_capacity")).toBe(EXIT.NO_CAPACITY);
    expect(exitCodeOfDeployment("budget_exceeded")).toBe(EXIT.OVER_BUDGET);
    expect(exitCodeOfDeployment("user_end")).toBe(EXIT.UNEXPECTED);
    expect(exitCodeOfDeployment(null)).toBe(EXIT.UNEXPECTED);
  });
});

describe("--replicas", () => {
  it("MIN:MAX, or N for both (at least one)", () => {
    expect(parseReplicas("1:3")).toEqual({ min: 1, max: 3 });
    expect(parseReplicas("0:2")).toEqual({ min: 0, max: 2 });
    expect(parseReplicas("2")).toEqual({ min: 2, max: 2 });
    expect(parseReplicas("0")).toEqual({ min: 0, max: 1 });
  });
  it("anything else is a usage error", () => {
    for (const bad of ["", "a:b", "1:", ":3", "1:2:3", "-1:2"]) expect(() => parseReplicas(bad), bad).toThrow(expect.objectContaining({ exitCode: EXIT.USAGE }));
  });
});

describe("replicaFields", () => {
  const replicas = { min: 1, max: 3, target_inflight: 8, idle_timeout: "30m", scale_down_delay: "1m", drain_timeout: "5m", sleep: "stop" } as const;
  it("the settings alone until the scaler has seen the deployment", () => {
    expect(replicaFields({ replicas, scaler: null })).toEqual([["replicas", "min 1, max 3, 8 in flight each; idle 30m, then stop"]]);
  });
  it("each replica with its state and requests in flight, and the scaler's next action and why", () => {
    const scaler = {
      replicas: [
        { lease_id: "ls_a", primary: true, state: "ready" as const, lease_state: "ready" as const, in_flight: 5, failures: 0 },
        { lease_id: "ls_b", primary: false, state: "draining" as const, lease_state: "ready" as const, in_flight: 1, failures: 0 },
      ],
      in_flight: 6,
      queued: 0,
      desired: 1,
      next: { action: "release" as const, reason: "draining: 1 request in flight", at: "2026-12-06T10:00:00.000Z" },
      events: [],
    };
    const [r, s] = replicaFields({ replicas, scaler });
    expect(r![1]).toContain("ls_a* ready (5 in flight); ls_b draining (1 in flight)");
    expect(s).toEqual(["scaler", "1 wanted, 6 in flight, 0 waiting; next: release at 2026-12-06T10:00:00.000Z (draining: 1 request in flight)"]);
  });
});
