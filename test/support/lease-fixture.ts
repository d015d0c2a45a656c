/**
 * A lease record and a machine for the pure lease tests (decide, transitions): a ready scratch
 * lease on one sim offer, patched per case.
 */
import type { Offer } from "../../src/catalog/offer";
import { POLICY_DEFAULTS } from "../../src/lease/policy";
import type { LeaseRecord, LeaseState, MachinedLease, MachineState } from "../../src/lease/state";
import type { Machine } from "../../src/providers/contract";

export const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);
export const S = 1000;
export const M = 60 * S;
export const H = 60 * M;

export const offer: Offer = {
  id: "sim:o1", provider: "sim", provider_offer_id: "o1", gpu: "l40s", gpu_count: 1, vram_gb: 48, vcpu: 16,
  memory_gb: 64, disk_gb: 200, region: "us-east", host_id: "h1", hourly_usd: 2, availability: "high", spot: false,
};

export function lease(state: MachineState, patch?: Partial<LeaseRecord>): MachinedLease;
export function lease(state: LeaseState, patch?: Partial<LeaseRecord>): LeaseRecord;
export function lease(state: LeaseState, patch: Partial<LeaseRecord> = {}): LeaseRecord {
  const base = {
    id: "ls_test", org_id: "org_test", kind: "scratch", state, state_since: T0,
    policy: { ...POLICY_DEFAULTS.scratch, ttl: 4 * H, idle_timeout: 30 * M, max_lifetime: 24 * H, stopped_ttl: 2 * H,
      heartbeat_grace: 2 * M, boot_timeout: 10 * M, startup_timeout: null, host_attempts: 3, max_session_usd: null },
    spec: null, quote_id: null, offers: [offer], offer_index: 0, excluded_hosts: [], attempt: 1, provider: "sim",
    can_stop: true, machine_id: "m1", label: "lessor-dev-ls_test-a1", machine_status: "running", observed_at: T0,
    hourly_usd: 2, stopped_hourly_usd: 0.2, machine_ids: ["m1"],
    billing: { status: "accruing", segments: [{ from: T0, to: null, kind: "running", rate: 2_000_000 }], receipt_id: null, actual_micro_usd: null },
    reconcile_required: false, retry_at: null, created_at: T0, session_started_at: T0, ready_at: T0,
    ttl_deadline: T0 + 4 * H, last_activity_at: T0, lock_until: null, stopped_at: null, stop_failing_since: null,
    stop_issued_at: null, release_reason: null, released_at: null, image: null, cmd: null, warnings: [], version: 1,
  };
  return { ...base, ...patch } as LeaseRecord;
}

export function machine(status: Machine["status"]): Machine {
  return { id: "m1", label: "lessor-dev-ls_test-a1", status, offer_id: "o1", host_id: "h1", region: "us-east",
    hourly_usd: 2, stopped_hourly_usd: 0.2, created_at: T0 };
}

