/**
 * RunPod's `dataCenterIds` are "Preferred data centers for placement" (runpod-v2-openapi.yaml): a
 * pod may come up elsewhere. The lease reads the pod's data center back after a create; outside
 * the lease's regions, it destroys the pod and tries the next offer, and records the host it
 * actually rented (src/lease/placement.ts). Through the real adapter against the stub cloud, which
 * places this lease's first create in another data center than it asked.
 */
import { beforeAll, describe, expect, inject, it } from "vitest";
import { stubCloudAdmin } from "../support/stub-clouds-admin";
import { orgOnStubCloud } from "./helpers";
import { createLease, events, waitForState } from "./lease-helpers";

const stubs = inject("stubClouds");
const served = stubs?.providers.includes("runpod") ?? false;

describe("a pod placed outside the lease's regions", () => {
  const admin = () => stubCloudAdmin(stubs!.url, "runpod");
  let key: string;

  beforeAll(async () => {
    if (served) ({ key } = await orgOnStubCloud("runpod"));
  });

  it.skipIf(!served)("is destroyed, and the next offer is rented; each event names the host actually rented", async () => {
    const image = `ghcr.io/acme/placed-${crypto.randomUUID().slice(0, 8)}@sha256:${"0".repeat(64)}`;
    await admin().misplaceCreate({ data_center_id: "EU-RO-1", match: image.split("@")[0]! });
    const lease = await createLease(key, { kind: "scratch", spec: { gpu: "l40s-runpod:1", regions: ["us-ks-2"] }, image, policy: { host_attempts: 3 } });
    await waitForState(key, lease.id, "ready", 30_000);
    const all = await events(key, lease.id);
    const created = all.filter((e) => e.type === "machine_created");
    expect(created).toHaveLength(2);
    // The first: asked for US-KS-2, rented in EU-RO-1, and recorded so.
    expect(created[0]!.detail.region).toBe("eu-ro-1");
    expect(String(created[0]!.detail.host)).toMatch(/^eu-ro-1\//);
    const destroyed = all.find((e) => e.type === "machine_destroyed")!;
    expect(destroyed.reason).toBe("host_failed");
    expect(destroyed.detail).toMatchObject({ machine_id: created[0]!.detail.machine_id, misplaced_in: "eu-ro-1", allowed: ["us-ks-2"] });
    expect(created[1]!.detail.region).toBe("us-ks-2");
    // Never two machines at once (guarantee 1): the misplaced pod is gone.
    const ledger = await admin().getLedger(`lessor-dev-${lease.id}-`);
    const live = ledger.machines.filter((m) => m.status !== "TERMINATED");
    expect(live).toHaveLength(1);
    expect((await admin().getViolations()).violations).toEqual([]);
  });
});
