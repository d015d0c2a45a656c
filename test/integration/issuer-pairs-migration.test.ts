/**
 * Migration 0006 (docs/design.md "Trusted issuers") run on registrations made before it: for each (iss, aud) held
 * by more than one org, the earliest registration keeps it and the later ones move to
 * `issuers_displaced`, so the unique index can be built. Its statements are run as written, on
 * copies of the tables under another name (the real ones were migrated in setup).
 */
import { env } from "cloudflare:test";
import { afterAll, expect, it } from "vitest";

/** The statements of the migration named `prefix`, with every `issuers` name moved to `t6_issuers`. */
function statements(prefix: string): string[] {
  const m = env.TEST_MIGRATIONS.find((x) => x.name.startsWith(prefix));
  if (!m) throw new Error(`no migration ${prefix}`);
  return m.queries.map((q) => q.replace(/\bissuers/g, "t6_issuers"));
}

afterAll(async () => {
  await env.DB.batch([env.DB.prepare("DROP TABLE IF EXISTS t6_issuers"), env.DB.prepare("DROP TABLE IF EXISTS t6_issuers_displaced")]);
});

it("migration 0006 keeps the earliest registration of each pair and moves the others aside", async () => {
  // The issuers table and its index exactly as 0001 made them (no orgs: foreign keys aside).
  const before = statements("0001").filter((q) => /t6_issuers/.test(q)).map((q) => q.replace(/REFERENCES orgs\(id\)/, ""));
  expect(before).toHaveLength(2);
  for (const q of before) await env.DB.prepare(q).run();
  const rows = [
    // A pair two orgs registered: org_a first, then org_b (whose tokens made org_a's fail).
    ["iss_1", "org_a", "https://a.test/jwks", "https://idp.test/", "shared", 1000],
    ["iss_2", "org_b", "https://b.test/jwks", "https://idp.test/", "shared", 2000],
    // Three at one instant: the smallest id keeps it.
    ["iss_5", "org_c", "https://c.test/jwks", "https://idp3.test/", "x", 3000],
    ["iss_4", "org_d", "https://d.test/jwks", "https://idp3.test/", "x", 3000],
    ["iss_6", "org_e", "https://e.test/jwks", "https://idp3.test/", "x", 3000],
    // Unshared pairs stay, including one iss with two audiences.
    ["iss_7", "org_a", "https://a.test/jwks", "https://idp.test/", "only-a", 4000],
    ["iss_8", "org_b", "https://b.test/jwks", "https://idp2.test/", "shared", 5000],
  ];
  for (const r of rows) {
    await env.DB.prepare("INSERT INTO t6_issuers (id, org_id, jwks_url, iss, aud, created_at) VALUES (?, ?, ?, ?, ?, ?)").bind(...r).run();
  }
  for (const q of statements("0006")) await env.DB.prepare(q).run();

  const kept = await env.DB.prepare("SELECT id FROM t6_issuers ORDER BY id").all<{ id: string }>();
  expect(kept.results.map((r) => r.id)).toEqual(["iss_1", "iss_4", "iss_7", "iss_8"]);
  const moved = await env.DB.prepare("SELECT id, org_id, kept_id, displaced_at FROM t6_issuers_displaced ORDER BY id").all();
  expect(moved.results).toEqual([
    { id: "iss_2", org_id: "org_b", kept_id: "iss_1", displaced_at: expect.any(Number) },
    { id: "iss_5", org_id: "org_c", kept_id: "iss_4", displaced_at: expect.any(Number) },
    { id: "iss_6", org_id: "org_e", kept_id: "iss_4", displaced_at: expect.any(Number) },
  ]);
  // And from now on a pair is held once.
  await expect(
    env.DB.prepare("INSERT INTO t6_issuers (id, org_id, jwks_url, iss, aud, created_at) VALUES ('iss_9', 'org_z', 'https://z.test/jwks', 'https://idp.test/', 'shared', 9000)").run(),
  ).rejects.toThrow(/UNIQUE/);
});

it("the installation's issuers table holds each (iss, aud) once", async () => {
  const indexes = await env.DB.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'issuers'").all<{ name: string; sql: string | null }>();
  expect(indexes.results.find((i) => i.name === "issuers_iss_aud")?.sql).toMatch(/UNIQUE INDEX issuers_iss_aud ON issuers \(iss, aud\)/);
});
