/**
 * Migration 0029 rebuilds `receipts` so that a receipt may be a volume's (docs/storage.md): run on
 * receipts written before it, every one is kept as it was, a lease's receipt still needs its
 * estimate, a volume's period is held once, and a receipt still never changes (guarantee 7). Its
 * statements are run as written, on copies of the table under another name (the real one was
 * migrated in setup), as test/integration/issuer-pairs-migration.test.ts does.
 */
import { env } from "cloudflare:test";
import { afterAll, expect, it } from "vitest";

/** The statements of migration `prefix` about receipts (comments aside), `receipts` renamed `t29_receipts`. */
function statements(prefix: string): string[] {
  const m = env.TEST_MIGRATIONS.find((x) => x.name.startsWith(prefix));
  if (!m) throw new Error(`no migration ${prefix}`);
  return m.queries
    .map((q) => q.replace(/^\s*--.*$/gm, "").trim())
    .filter((q) => /\breceipts/.test(q))
    .map((q) => q.replace(/\breceipts/g, "t29_receipts"));
}

afterAll(async () => {
  await env.DB.batch([env.DB.prepare("DROP TABLE IF EXISTS t29_receipts"), env.DB.prepare("DROP TABLE IF EXISTS t29_receipts_0028")]);
});

it("migration 0029 keeps every receipt written before it, and a receipt still never changes", async () => {
  const before = statements("0004");
  expect(before).toHaveLength(3); // the table, its index, its trigger
  for (const q of before) await env.DB.prepare(q).run();
  const insert = `INSERT INTO t29_receipts (id, org_id, lease_id, provider, gpu_class, status, actual_micro_usd, estimate_micro_usd, components, windows, billed_from, released_at, created_at)
    VALUES (?, 'org_a', ?, 'sim', 'l4', ?, ?, ?, '{}', '[]', 1000, 2000, 3000)`;
  await env.DB.prepare(insert).bind("rc_1", "ls_1", "settled", 500_000, 500_100).run();
  await env.DB.prepare(insert).bind("rc_2", "ls_2", "disputed", 900_000, 100_000).run();

  for (const q of statements("0029")) await env.DB.prepare(q).run();

  const kept = await env.DB.prepare("SELECT id, lease_id, volume_id, status, actual_micro_usd, estimate_micro_usd FROM t29_receipts ORDER BY id").all();
  expect(kept.results).toEqual([
    { id: "rc_1", lease_id: "ls_1", volume_id: null, status: "settled", actual_micro_usd: 500_000, estimate_micro_usd: 500_100 },
    { id: "rc_2", lease_id: "ls_2", volume_id: null, status: "disputed", actual_micro_usd: 900_000, estimate_micro_usd: 100_000 },
  ]);
  await expect(env.DB.prepare("UPDATE t29_receipts SET actual_micro_usd = 1 WHERE id = 'rc_1'").run()).rejects.toThrow(/a receipt never changes/);

  const volumeReceipt = `INSERT INTO t29_receipts (id, org_id, lease_id, volume_id, provider, status, actual_micro_usd, estimate_micro_usd, components, windows, billed_from, released_at, created_at)
    VALUES (?, 'org_a', NULL, 'vol_1', 'runpod', 'settled', 42, NULL, '{}', '[]', ?, 5000, 6000)`;
  // A volume's, without an estimate (its provider states no price): taken; its period once only.
  await env.DB.prepare(volumeReceipt).bind("rc_3", 4000).run();
  await expect(env.DB.prepare(volumeReceipt).bind("rc_4", 4000).run()).rejects.toThrow(/UNIQUE/);
  // A lease's needs its estimate; a receipt is a lease's or a volume's, never both or neither.
  await expect(env.DB.prepare(insert).bind("rc_5", "ls_5", "settled", 1, null).run()).rejects.toThrow(/CHECK|NOT NULL/);
  await expect(
    env.DB.prepare(`INSERT INTO t29_receipts (id, org_id, provider, status, actual_micro_usd, estimate_micro_usd, components, windows, released_at, created_at) VALUES ('rc_6', 'org_a', 'sim', 'settled', 1, 1, '{}', '[]', 1, 1)`).run(),
  ).rejects.toThrow(/CHECK/);
  expect((await env.DB.prepare("SELECT name FROM sqlite_master WHERE name = 't29_receipts_0028'").all()).results).toEqual([]);
});
