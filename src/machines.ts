/**
 * `GET /v1/machines`: every machine lessor's label marks in the provider accounts an org rents in,
 * read as the reconciler reads them (src/lease/reaper.ts): `listMachines` by this installation's
 * label prefix, the lease each label names from the index, and for a machine no live lease owns,
 * when the orphan rule stops and destroys it. Nothing here acts on a machine.
 *
 * Accounts: each enabled provider the org holds a key for (its own account, every machine of this
 * installation in it is shown), and each keyless one (the sim), which every org shares, so only
 * the machines whose label names one of the org's own leases are shown there; a machine in a
 * shared account whose lease the index does not know belongs to no org that can be named, and is
 * left to the reconciler.
 */
import { z } from "@hono/zod-openapi";
import { installationId } from "./config";
import type { Db } from "./db";
import type { Env } from "./env";
import { installationPrefix, parseLabel } from "./lease/label";
import { isOrphan, leasesOfMachines, orphanLimits, orphanSchedule } from "./lease/reaper";
import { MACHINE_STATUSES, ProviderError, type Machine } from "./providers/contract";
import { providerKeyRows } from "./providers/credentials";
import { configuredProviderNames, providerSetup, providerWithAccount } from "./providers/registry";
import { iso } from "./time";

export const MachineSchema = z
  .object({
    provider: z.string(),
    account: z.string().describe("the provider account: '' for the installation's own (the sim), else the org key's fingerprint (`key:...`)"),
    id: z.string().describe("the provider's id for the machine"),
    label: z.string(),
    status: z.enum(MACHINE_STATUSES),
    lease_id: z.string().describe("the lease its label names"),
    orphan: z.boolean().describe("no live lease owns it: the reconciler stops and then destroys it"),
    orphan_stop_at: z.string().nullable().describe("an orphan's: when the reconciler stops it (null: stopped already, or the provider cannot stop)"),
    orphan_destroy_at: z.string().nullable().describe("an orphan's: when the reconciler destroys it (its runs are a minute apart)"),
    hourly_usd: z.number().nullable().describe("what it bills per hour while running, as the provider reports it (null: not reported)"),
    stopped_hourly_usd: z.number().nullable().describe("what it bills per hour while stopped (disk)"),
    region: z.string(),
    created_at: z.string().nullable(),
  })
  .openapi("Machine");

export const MachineProviderSchema = z
  .union([
    z.object({ provider: z.string(), account: z.string(), ok: z.literal(true), machines: z.number().int() }),
    z.object({ provider: z.string(), account: z.string().nullable(), ok: z.literal(false), error: z.string() }),
  ])
  .openapi("MachineProvider", { description: "how listing one provider account went; a provider that fails to list is reported here, never as a failed request" });

export const MachinesSchema = z.object({ data: z.array(MachineSchema), providers: z.array(MachineProviderSchema) }).openapi("Machines");

type MachineView = z.infer<typeof MachineSchema>;
type ProviderReport = z.infer<typeof MachineProviderSchema>;

const known = (usd: number) => (Number.isFinite(usd) && usd >= 0 ? usd : null);

/** A provider's failure in words that may be shown: its own (they never carry keys), else a generic one. */
function failure(e: unknown): string {
  return e instanceof ProviderError ? `${e.kind}: ${e.message}` : "the provider could not be listed";
}

export async function orgMachines(env: Env, db: Db, orgId: string, now: number): Promise<z.infer<typeof MachinesSchema>> {
  const installation = installationId(env);
  const keys = await providerKeyRows(db, orgId);
  const data: MachineView[] = [];
  const providers: ProviderReport[] = [];
  for (const name of configuredProviderNames(env)) {
    const shared = !providerSetup(name).needsKey;
    if (!shared && !keys.has(name)) continue;
    let account: string | null = null;
    try {
      const opened = await providerWithAccount(env, db, orgId, name);
      account = opened.account;
      if (!opened.provider.capabilities.list_by_label) throw new ProviderError(name, "unavailable", `${name} cannot list machines by label`);
      const listed = (await opened.provider.listMachines(installationPrefix(installation))).filter((m) => m.status !== "terminated");
      const leases = await leasesOfMachines(db, installation, listed);
      const mine = listed.filter((m) => {
        const leaseId = parseLabel(installation, m.label)?.leaseId;
        if (leaseId === undefined) return false; // another installation's or nobody's: never shown, never touched
        return !shared || leases.get(leaseId)?.org_id === orgId;
      });
      const seen = await orphansSeen(db, name, mine);
      const limits = orphanLimits(env, opened.provider);
      for (const m of mine) {
        const leaseId = parseLabel(installation, m.label)!.leaseId;
        const orphan = isOrphan(leases.get(leaseId));
        const row = seen.get(m.id);
        const due = orphan ? orphanSchedule({ status: m.status, first_seen_at: row?.first_seen_at ?? null, stopped_at: row?.stopped_at ?? null }, limits, now) : null;
        data.push(render(name, opened.account, m, leaseId, due));
      }
      providers.push({ provider: name, account: opened.account, ok: true, machines: mine.length });
    } catch (e) {
      providers.push({ provider: name, account, ok: false, error: failure(e) });
    }
  }
  return { data, providers };
}

function render(provider: string, account: string, m: Machine, leaseId: string, due: { stop_at: number | null; destroy_at: number } | null): MachineView {
  return {
    provider,
    account,
    id: m.id,
    label: m.label,
    status: m.status,
    lease_id: leaseId,
    orphan: due !== null,
    orphan_stop_at: iso(due?.stop_at ?? null),
    orphan_destroy_at: iso(due?.destroy_at ?? null),
    hourly_usd: known(m.hourly_usd),
    stopped_hourly_usd: known(m.stopped_hourly_usd),
    region: m.region,
    created_at: m.created_at > 0 ? iso(m.created_at) : null,
  };
}

/** What the reconciler remembers of these machines as orphans (the `orphans` table). */
async function orphansSeen(db: Db, provider: string, machines: readonly Machine[]): Promise<Map<string, { first_seen_at: number; stopped_at: number | null }>> {
  const out = new Map<string, { first_seen_at: number; stopped_at: number | null }>();
  const ids = machines.map((m) => m.id);
  for (let i = 0; i < ids.length; i += 90) {
    const rows = await db
      .selectFrom("orphans")
      .select(["machine_id", "first_seen_at", "stopped_at"])
      .where("provider", "=", provider)
      .where("machine_id", "in", ids.slice(i, i + 90))
      .execute();
    for (const r of rows) out.set(r.machine_id, r);
  }
  return out;
}
