/**
 * Billing reconciliation, the cron's billing step (docs/design.md guarantee 7). Level-triggered
 * and idempotent (STYLE.md rule 8): a run that repeats or overlaps another changes nothing.
 *
 * 1. Fetch: for each provider account that publishes billing records, ask for the records of
 *    closed windows from a little before where the last run left off (or, the first time, from
 *    the oldest lease still open), and store each by the provider's own record identity: a record
 *    already stored is left as it is. The provider also says how far its records are complete.
 * 2. Attribute: a record belongs to the lease that held its machine (`lease_machines`). A record
 *    for a machine no lease owns is kept, unattributed, and reported; it is attributed later if a
 *    lease turns out to own the machine.
 * 3. Settle: a released lease whose every window has closed and been fetched (it was released at
 *    or before the account's `complete_through`) gets its receipt: the sum of its records, their
 *    parts and windows, with the estimate beside it; `disputed` when the two differ beyond
 *    max($0.01, 1%). A receipt is written once (the table refuses updates) and its lease's object
 *    is told, which writes the lease's billing status through to the index.
 */
import { sql } from "kysely";
import { database, type Db } from "../db";
import type { Env } from "../env";
import { errorText } from "../errors";
import { newId } from "../ids";
import { releaseSweepLock, takeSweepLock } from "../lease/reaper";
import type { BillingRecord, Provider } from "../providers/contract";
import { providerAccounts } from "../providers/registry";
import { beyondTolerance, microsToUsd, usdToMicros } from "./money";
import { sumRecords } from "./receipts";
import { settleVolumes, type VolumeSettleReport } from "./volume-receipts";

const HOUR = 3_600_000;
/** Each run fetches again this far behind where the last one was complete: overlap is harmless. */
export const BILLING_OVERLAP_MS = 2 * HOUR;
/** Never asks for records older than this. */
export const BILLING_LOOKBACK_MS = 35 * 24 * HOUR;
/** Leases settled in one run; the rest settle next minute. */
const SETTLE_BATCH = 200;
const SETTLE_CONCURRENCY = 10;
/** D1 statements in one batch. */
const INSERT_BATCH = 50;

/** One provider account whose billing records lessor reads. */
export interface BillingAccount {
  /** '' for an installation-wide account (the sim), else the org whose key it is. */
  account: string;
  provider: Provider;
}

/**
 * The accounts to fetch billing from: every provider account (the sim's, and each org's own with
 * its key) whose provider publishes billing records.
 */
export async function billingAccounts(env: Env, db: Db): Promise<BillingAccount[]> {
  return (await providerAccounts(env, db))
    .filter(({ provider: p }) => p.capabilities.billing_records && typeof p.listBillingRecords === "function")
    .map(({ account, provider }) => ({ account, provider }));
}

export interface AccountReport {
  provider: string;
  account: string;
  from: string;
  fetched: number;
  /** Records stored for the first time by this run. */
  stored: number;
  /** Records the provider answered that could not be read (left out, counted). */
  invalid: number;
  complete_through: string | null;
  /** Of the records stored by this run: for machines no lease owns. */
  unattributed: { records: number; amount_usd: number };
  /** Of the records stored by this run: for a lease (or a volume's period) whose receipt was already written. */
  after_receipt: number;
  error?: string;
}

export interface SettleReport {
  due: number;
  settled: number;
  disputed: number;
  failed: number;
}

export interface BillingReport {
  accounts: AccountReport[];
  settle: SettleReport;
  /** Volumes' storage: receipts written, one a volume a period (src/billing/volume-receipts.ts). */
  volumes: VolumeSettleReport;
}

export async function runBilling(env: Env, now: number): Promise<BillingReport | { skipped: true }> {
  const db = database(env.DB);
  const holder = await takeSweepLock(db, "billing", now);
  if (!holder) return { skipped: true };
  try {
    const accounts: AccountReport[] = [];
    for (const account of await billingAccounts(env, db)) accounts.push(await fetchAccount(env, db, account, now));
    const settle = await settleLeases(env, db, now);
    const volumes = await settleVolumes(db, now);
    return { accounts, settle, volumes };
  } finally {
    await releaseSweepLock(db, "billing", holder);
  }
}

async function fetchAccount(env: Env, db: Db, { account, provider }: BillingAccount, now: number): Promise<AccountReport> {
  const name = provider.name;
  const report: AccountReport = {
    provider: name,
    account,
    from: "",
    fetched: 0,
    stored: 0,
    invalid: 0,
    complete_through: null,
    unattributed: { records: 0, amount_usd: 0 },
    after_receipt: 0,
  };
  try {
    const cursor = await db
      .selectFrom("billing_cursors")
      .select("complete_through")
      .where("provider", "=", name)
      .where("account", "=", account)
      .executeTakeFirst();
    let from: number;
    if (cursor) from = cursor.complete_through - BILLING_OVERLAP_MS;
    else {
      // The first fetch goes back to the oldest lease still waiting for its bill.
      let q = db
        .selectFrom("leases")
        .select((eb) => eb.fn.min("billed_from").as("oldest"))
        .where("provider", "=", name)
        .where("billing_status", "in", ["accruing", "awaiting_windows"]);
      if (account !== "") q = q.where("org_id", "=", account);
      // ...and to the oldest volume storage not yet on a receipt.
      let v = db.selectFrom("volume_bills").select((eb) => eb.fn.min("settled_through").as("oldest")).where("provider", "=", name);
      if (account !== "") v = v.where("org_id", "=", account);
      const oldest = [(await q.executeTakeFirst())?.oldest, (await v.executeTakeFirst())?.oldest].filter((x): x is number => typeof x === "number");
      from = oldest.length > 0 ? Math.min(...oldest) : now;
    }
    from = Math.max(from, now - BILLING_LOOKBACK_MS);
    report.from = new Date(from).toISOString();

    const listing = await provider.listBillingRecords!({ from, to: now });
    report.fetched = listing.records.length;
    const valid = listing.records.filter(isValidRecord);
    report.invalid = listing.records.length - valid.length;
    report.stored = await storeRecords(env.DB, db, name, account, valid, now);
    await attribute(db, name, now);

    const fresh = await db
      .selectFrom("billing_records")
      .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.sum<number>("amount_micro_usd").as("micros")])
      .where("provider", "=", name)
      .where("fetched_at", "=", now)
      .where("lease_id", "is", null)
      .where("volume_id", "is", null)
      .executeTakeFirst();
    report.unattributed = { records: Number(fresh?.n ?? 0), amount_usd: microsToUsd(Number(fresh?.micros ?? 0)) };
    const late = await db
      .selectFrom("billing_records as r")
      .innerJoin("receipts as rc", "rc.lease_id", "r.lease_id")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("r.provider", "=", name)
      .where("r.fetched_at", "=", now)
      .executeTakeFirst();
    // ...or for a volume's period whose receipt was already written (src/billing/volume-receipts.ts).
    const lateVolume = await db
      .selectFrom("billing_records as r")
      .innerJoin("volume_bills as vb", "vb.volume_id", "r.volume_id")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("r.provider", "=", name)
      .where("r.fetched_at", "=", now)
      .whereRef("r.window_start", "<", "vb.settled_through")
      .executeTakeFirst();
    report.after_receipt = Number(late?.n ?? 0) + Number(lateVolume?.n ?? 0);
    if (report.unattributed.records > 0) {
      console.log(JSON.stringify({ msg: "billing records for machines no lease owns (or volumes no volume of lessor's is)", provider: name, account, ...report.unattributed }));
    }
    if (report.after_receipt > 0) {
      // A settled receipt never changes (guarantee 7); the record is kept and shows in usage.
      console.warn(JSON.stringify({ msg: "billing records arrived after their lease's receipt", provider: name, account, records: report.after_receipt }));
    }

    // The provider's word on completeness, as it is now: never carried forward past what it says.
    await db
      .insertInto("billing_cursors")
      .values({ provider: name, account, complete_through: listing.complete_through, fetched_at: now })
      .onConflict((oc) => oc.columns(["provider", "account"]).doUpdateSet({ complete_through: listing.complete_through, fetched_at: now }))
      .execute();
    report.complete_through = new Date(listing.complete_through).toISOString();
  } catch (e) {
    report.error = errorText(e);
  }
  return report;
}

function isValidRecord(r: BillingRecord): boolean {
  return (
    typeof r.record_id === "string" &&
    r.record_id.length > 0 &&
    r.record_id.length <= 256 &&
    typeof r.machine_id === "string" &&
    r.machine_id.length > 0 &&
    Number.isSafeInteger(r.window_start) &&
    Number.isSafeInteger(r.window_end) &&
    r.window_end > r.window_start &&
    Number.isFinite(r.amount_usd)
  );
}

/** Stores records by (provider, record id); one already stored is left exactly as it is. */
async function storeRecords(d1: D1Database, db: Db, provider: string, account: string, records: readonly BillingRecord[], now: number): Promise<number> {
  let stored = 0;
  for (let i = 0; i < records.length; i += INSERT_BATCH) {
    const statements = records.slice(i, i + INSERT_BATCH).map((r) => {
      const { sql, parameters } = db
        .insertInto("billing_records")
        .values({
          provider,
          account,
          record_id: r.record_id,
          machine_id: r.machine_id,
          window_start: r.window_start,
          window_end: r.window_end,
          amount_micro_usd: usdToMicros(r.amount_usd),
          components: JSON.stringify(numericOnly(r.components)),
          lease_id: null,
          org_id: null,
          fetched_at: now,
          resource: r.resource ?? "machine",
        })
        .onConflict((oc) => oc.columns(["provider", "record_id"]).doNothing())
        .compile();
      return d1.prepare(sql).bind(...parameters);
    });
    const results = await d1.batch(statements);
    for (const r of results) stored += r.meta.changes ?? 0;
  }
  return stored;
}

function numericOnly(components: Record<string, number> | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(components ?? {})) if (typeof v === "number" && Number.isFinite(v)) out[k] = v;
  return out;
}

/**
 * Gives every recent unattributed record of the provider to the lease that held its machine, and
 * every volume's record to the volume's bill (migrations/0029: a bill outlives its volume's row).
 */
async function attribute(db: Db, provider: string, now: number): Promise<void> {
  const bill = (column: "volume_id" | "org_id") =>
    db
      .selectFrom("volume_bills as vb")
      .select(`vb.${column}`)
      .where("vb.provider", "=", sql.ref<string>("billing_records.provider"))
      .where("vb.provider_volume_id", "=", sql.ref<string>("billing_records.machine_id"));
  await db
    .updateTable("billing_records")
    .set({ volume_id: bill("volume_id"), org_id: bill("org_id") })
    .where("provider", "=", provider)
    .where("resource", "=", "volume")
    .where("volume_id", "is", null)
    .where("window_start", ">=", now - BILLING_LOOKBACK_MS - BILLING_OVERLAP_MS)
    .where((eb) => eb.exists(bill("volume_id")))
    .execute();
  const owner = (column: "lease_id" | "org_id") =>
    db
      .selectFrom("lease_machines as lm")
      .select(`lm.${column}`)
      .where("lm.provider", "=", sql.ref<string>("billing_records.provider"))
      .where("lm.machine_id", "=", sql.ref<string>("billing_records.machine_id"));
  await db
    .updateTable("billing_records")
    .set({ lease_id: owner("lease_id"), org_id: owner("org_id") })
    .where("provider", "=", provider)
    .where("resource", "=", "machine")
    .where("lease_id", "is", null)
    .where("window_start", ">=", now - BILLING_LOOKBACK_MS - BILLING_OVERLAP_MS)
    .where((eb) => eb.exists(owner("lease_id")))
    .execute();
}

/** Writes the receipt of every released lease whose windows have all closed and been fetched. */
async function settleLeases(env: Env, db: Db, now: number): Promise<SettleReport> {
  const due = await db
    .selectFrom("leases as l")
    .select(["l.id", "l.org_id", "l.provider", "l.gpu_class", "l.estimate_micro_usd", "l.billed_from", "l.released_at"])
    .where("l.billing_status", "=", "awaiting_windows")
    .where("l.released_at", "is not", null)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("billing_cursors as c")
          .select("c.provider")
          .whereRef("c.provider", "=", "l.provider")
          .where((w) => w.or([w("c.account", "=", ""), w("c.account", "=", w.ref("l.org_id"))]))
          .whereRef("c.complete_through", ">=", "l.released_at"),
      ),
    )
    .orderBy("l.released_at")
    .limit(SETTLE_BATCH)
    .execute();
  const report: SettleReport = { due: due.length, settled: 0, disputed: 0, failed: 0 };
  for (let i = 0; i < due.length; i += SETTLE_CONCURRENCY) {
    const results = await Promise.allSettled(
      due.slice(i, i + SETTLE_CONCURRENCY).map(async (lease) => {
        const receipt = (await receiptOfLease(db, lease.id)) ?? (await writeReceipt(db, { ...lease, released_at: lease.released_at! }, now));
        const settlement = { receipt_id: receipt.id, status: receipt.status, actual_micro_usd: receipt.actual_micro_usd };
        const shown = await env.LEASE.get(env.LEASE.idFromName(lease.id)).settleBilling(lease.org_id, settlement);
        if (!shown) throw new Error(`lease ${lease.id} did not take receipt ${receipt.id}`);
        return receipt.status;
      }),
    );
    for (const r of results) {
      if (r.status === "rejected") {
        report.failed++;
        console.error(JSON.stringify({ msg: "settling a lease failed; next run retries", error: String(r.reason) }));
      } else report[r.value]++;
    }
  }
  return report;
}

async function receiptOfLease(db: Db, leaseId: string) {
  return db.selectFrom("receipts").select(["id", "status", "actual_micro_usd"]).where("lease_id", "=", leaseId).executeTakeFirst();
}

interface DueLease {
  id: string;
  org_id: string;
  provider: string;
  gpu_class: string | null;
  estimate_micro_usd: number;
  billed_from: number | null;
  released_at: number;
}

async function writeReceipt(db: Db, lease: DueLease, now: number) {
  const records = await db
    .selectFrom("billing_records")
    .select(["record_id", "machine_id", "window_start", "window_end", "amount_micro_usd", "components"])
    .where("lease_id", "=", lease.id)
    .orderBy("window_start")
    .orderBy("record_id")
    .execute();
  const { actual, components, windows } = sumRecords(records);
  const status = beyondTolerance(actual, lease.estimate_micro_usd) ? ("disputed" as const) : ("settled" as const);
  await db
    .insertInto("receipts")
    .values({
      id: newId("rc", now),
      org_id: lease.org_id,
      lease_id: lease.id,
      provider: lease.provider,
      gpu_class: lease.gpu_class,
      status,
      actual_micro_usd: actual,
      estimate_micro_usd: lease.estimate_micro_usd,
      components: JSON.stringify(components),
      windows: JSON.stringify(windows),
      billed_from: lease.billed_from,
      released_at: lease.released_at,
      created_at: now,
    })
    // Another run got here first: its receipt stands (a receipt is written once).
    .onConflict((oc) => oc.column("lease_id").doNothing())
    .execute();
  return (await receiptOfLease(db, lease.id))!;
}
