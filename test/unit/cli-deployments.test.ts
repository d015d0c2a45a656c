/** `lessor up`'s exit code when its deployment was released before the model answered. */
import { describe, expect, it } from "vitest";
// @ts-ignore plain JavaScript module, typed by JSDoc
import { exitCodeOfDeployment } from "../../cli/deployments.mjs";
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
