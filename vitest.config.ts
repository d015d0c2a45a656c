/**
 * `npm test` runs three projects:
 * - unit: pure code in Node (no bindings);
 * - workers: the Worker in the Workers pool with the real D1 migrations and Durable Objects;
 * - e2e: a real `wrangler dev` started through `npm start`'s own script, spoken to over HTTP.
 */
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { buildConsole } from "./scripts/build-console.mjs";

/** The Worker's provider settings for the stub clouds at `url` (null: none are served). */
function stubCloudBindings(url: string | null): Record<string, string> {
  const base = url ?? "http://127.0.0.1:9";
  return {
    LESSOR_PROVIDERS: "sim,runpod,vast,lambda",
    LESSOR_RUNPOD_BASE_URL: `${base}/runpod`,
    LESSOR_VAST_BASE_URL: `${base}/vast`,
    LESSOR_LAMBDA_BASE_URL: `${base}/lambda`,
  };
}

export default defineConfig(async () => {
  // wrangler.toml's [assets] folder must exist for the Workers pool, and the e2e tests open the
  // console: built once here, so `npm test` and `npx vitest run` need no other command.
  buildConsole();
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  return {
    test: {
      // Once for the whole run: says why the provider-contract tests skip where the documents are absent.
      globalSetup: ["./test/support/contracts-notice.ts"],
      projects: [
        {
          test: { name: "unit", include: ["test/unit/**/*.test.ts"], environment: "node" },
        },
        {
          plugins: [
            cloudflareTest(async ({ inject }) => ({
              main: "./functions/index.ts",
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: {
                bindings: {
                  // RunPod, Vast and Lambda are their stub clouds (test/support/stub-clouds), served
                  // from Node by the global setup; when the provider documents are absent nothing
                  // is served and the addresses point where nothing answers, never at a real cloud.
                  ...stubCloudBindings(inject("stubClouds")?.url ?? null),
                  TEST_MIGRATIONS: migrations,
                  LESSOR_BOOTSTRAP_TOKEN: "test-bootstrap-token-0123456789abcdef",
                  // Many tests send bad credentials on purpose, from no address (one shared
                  // bucket); the limit itself is tested with its default in auth-limits.test.ts.
                  LESSOR_AUTH_FAILURES_PER_MINUTE: "1000000",
                  // lease-logs.test.ts follows one lease 100 times with one key; the open-stream
                  // limits themselves are tested with their defaults in stream-limits.test.ts.
                  LESSOR_STREAMS_PER_CREDENTIAL: "1000",
                  LESSOR_STREAMS_PER_ORG: "1000",
                  LESSOR_MASTER_KEY: "test-master-key-0123456789abcdefghijklmnop",
                  // Orphans are stopped 1 s after first seen and destroyed 2 s after stopping.
                  LESSOR_ORPHAN_GRACE_S: "1",
                  LESSOR_ORPHAN_STOPPED_TTL_S: "2",
                  // Provisioning hands machines lessor's agent access only with a public URL; the
                  // sim's machines then report through the agent protocol (docs/sim.md "The agent").
                  LESSOR_PUBLIC_URL: "https://lessor.test",
                  // The gateway holds a request to a starting deployment 5 s, not 30, so that its
                  // 503 deployment_starting is seen in a test's time.
                  LESSOR_GATEWAY_WAKE_WAIT: "5s",
                  // Provider webhooks are taken in (docs/ingress.md), and the sim sends its own to
                  // the public URL above: test/integration/ingress-sink.ts answers them.
                  LESSOR_INGRESS_TOKEN: "test-ingress-token-0123456789abcdefghijkl",
                  LESSOR_VAST_WEBHOOK_SECRET: "test-vast-webhook-secret",
                  // An exec waits at most 1 s for its result, so that the fuzz's execs (which
                  // no agent answers) do not each hold a request for a minute.
                  LESSOR_EXEC_MAX_WAIT_MS: "1000",
                  // Where webhook and JWKS names are looked up (src/outbound/dns.ts): a stub in the
                  // pool (test/integration/dns-stub.ts), never the real DNS.
                  LESSOR_DNS_RESOLVER: "https://dns.lessor.test/dns-query",
                },
              },
            })),
          ],
          test: {
            name: "workers",
            include: ["test/integration/**/*.test.ts"],
            // Lease tests wait for real alarms and the sim's real boot delays.
            testTimeout: 60_000,
            setupFiles: ["./test/integration/apply-migrations.ts", "./test/integration/ingress-sink.ts", "./test/integration/agent-routes.ts", "./test/integration/dns-stub.ts"],
            globalSetup: ["./test/support/stub-clouds-global-setup.ts"],
            // One file at a time: the stub clouds are one process shared by every file, and a
            // file that resets a provider's account must not wipe another file's machines.
            maxWorkers: 1,
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
