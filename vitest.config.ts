/**
 * `npm test` runs three projects:
 * - unit: pure code in Node (no bindings);
 * - workers: the Worker in the Workers pool with the real D1 migrations and Durable Objects;
 * - e2e: a real `wrangler dev` started through `npm start`'s own script, spoken to over HTTP.
 */
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  return {
    test: {
      projects: [
        {
          test: { name: "unit", include: ["test/unit/**/*.test.ts"], environment: "node" },
        },
        {
          plugins: [
            cloudflareTest({
              main: "./functions/index.ts",
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: {
                bindings: {
                  TEST_MIGRATIONS: migrations,
                  LESSOR_BOOTSTRAP_TOKEN: "test-bootstrap-token",
                  // Orphans are stopped 1 s after first seen and destroyed 2 s after stopping.
                  LESSOR_ORPHAN_GRACE_S: "1",
                  LESSOR_ORPHAN_STOPPED_TTL_S: "2",
                },
              },
            }),
          ],
          test: {
            name: "workers",
            include: ["test/integration/**/*.test.ts"],
            // Lease tests wait for real alarms and the sim's real boot delays.
            testTimeout: 60_000,
            setupFiles: ["./test/integration/apply-migrations.ts"],
          },
        },
        {
          test: {
            name: "e2e",
            include: ["test/e2e/**/*.test.ts"],
            environment: "node",
            testTimeout: 120_000,
            hookTimeout: 120_000,
          },
        },
      ],
    },
  };
});
