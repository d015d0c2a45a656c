/**
 * `npm run deploy` deploys a production configuration (docs/design.md "Configuration"): wrangler.toml's
 * `[env.production]` as wrangler itself reads it, the bundle wrangler would upload (a dry run,
 * which needs no account), and the pure steps of scripts/deploy.mjs.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { unstable_readConfig } from "wrangler";
import { describe, expect, it } from "vitest";
import { parseCreatedD1Id, PLACEHOLDER_D1_ID, productionD1Id, productionQueues, queueCreated, secretsToUpload, withProductionD1Id } from "../../scripts/deploy-lib.mjs";
import { configProblems } from "../../src/config";
import { MAX_ATTEMPTS } from "../../src/webhooks/schedule";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const tomlPath = path.join(root, "wrangler.toml");
const toml = readFileSync(tomlPath, "utf8");

describe("wrangler.toml's production environment", () => {
  const prod = unstable_readConfig({ config: tomlPath, env: "production" }, { hideWarnings: true });
  const dev = unstable_readConfig({ config: tomlPath }, { hideWarnings: true });

  it("rents from real providers only, and says it is production", () => {
    const vars = prod.vars as Record<string, string>;
    expect(vars.LESSOR_ENVIRONMENT).toBe("production");
    expect(String(vars.LESSOR_PROVIDERS).split(",")).not.toContain("sim");
    // The installation id is the operator's own secret, never a value in the repository.
    expect(vars.LESSOR_INSTALLATION_ID).toBeUndefined();
  });

  it("has every binding the development installation has, and the cron", () => {
    expect(prod.durable_objects.bindings.map((b: { name: string }) => b.name).sort()).toEqual(dev.durable_objects.bindings.map((b: { name: string }) => b.name).sort());
    expect(prod.d1_databases.map((d: { binding: string }) => d.binding)).toEqual(["DB"]);
    expect(prod.d1_databases[0]!.migrations_dir).toBe("migrations");
    expect(prod.triggers.crons).toEqual(dev.triggers.crons);
  });

  it("produces to and consumes the webhook queue as the development installation does, with its dead-letter queue", () => {
    expect(prod.queues.producers).toEqual(dev.queues.producers);
    expect(prod.queues.consumers).toEqual(dev.queues.consumers);
    expect(prod.queues.producers).toEqual([expect.objectContaining({ binding: "WEBHOOKS", queue: "lessor-webhooks" })]);
    const [main, dlq] = prod.queues.consumers!;
    // Eight attempts a message, the delivery schedule's (src/webhooks/schedule.ts), then the dead-letter queue.
    expect(main).toMatchObject({ queue: "lessor-webhooks", max_batch_size: 100, max_retries: MAX_ATTEMPTS - 1, dead_letter_queue: "lessor-webhooks-dlq" });
    expect(dlq).toMatchObject({ queue: "lessor-webhooks-dlq" });
    expect(productionQueues(toml)).toEqual(["lessor-webhooks", "lessor-webhooks-dlq"]);
  });

  it("would refuse to serve until the operator sets the public URL, installation id and master key", () => {
    const vars = prod.vars as Record<string, string>;
    expect(configProblems(vars)).toEqual([
      expect.stringMatching(/^LESSOR_INSTALLATION_ID must be set/),
      expect.stringMatching(/^LESSOR_MASTER_KEY must be set/),
      expect.stringMatching(/^LESSOR_PUBLIC_URL must be set/),
    ]);
    expect(configProblems({ ...vars, LESSOR_PUBLIC_URL: "https://lessor.example.com", LESSOR_INSTALLATION_ID: "acme", LESSOR_MASTER_KEY: "k".repeat(44) })).toEqual([]);
  });

  it("bundles with wrangler (a dry run of the deploy)", () => {
    const out = mkdtempSync(path.join(tmpdir(), "lessor-dry-"));
    try {
      const r = spawnSync(path.join(root, "node_modules", ".bin", "wrangler"), ["deploy", "--dry-run", "--env", "production", "--outdir", out], {
        cwd: root,
        encoding: "utf8",
        env: { ...process.env, CI: "true" },
      });
      const output = `${r.stdout}${r.stderr}`;
      expect(r.status, output).toBe(0);
      expect(output).not.toMatch(/WARNING/);
      expect(output).toContain('env.LESSOR_PROVIDERS ("runpod,vast,lambda")');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("scripts/deploy-lib.mjs", () => {
  const id = "4b0a2f3e-1c2d-4e5f-8a9b-0c1d2e3f4a5b";

  it("reads the id from wrangler d1 create's output, TOML or JSON", () => {
    expect(parseCreatedD1Id(`[[d1_databases]]\nbinding = "DB"\ndatabase_name = "lessor"\ndatabase_id = "${id}"\n`)).toBe(id);
    expect(parseCreatedD1Id(`{"d1_databases": [{"binding": "lessor", "database_name": "lessor", "database_id": "${id.toUpperCase()}"}]}`)).toBe(id);
    expect(parseCreatedD1Id("✘ [ERROR] A database with that name already exists")).toBeNull();
    expect(parseCreatedD1Id(`database_id = "${PLACEHOLDER_D1_ID}"`)).toBeNull();
  });

  it("writes the production database id and leaves the development one alone", () => {
    expect(productionD1Id(toml)).toBe(PLACEHOLDER_D1_ID);
    const updated = withProductionD1Id(toml, id);
    expect(productionD1Id(updated)).toBe(id);
    const devPart = (t: string) => t.slice(0, t.search(/^\[env\.production\]/m));
    expect(devPart(updated)).toBe(devPart(toml));
    expect(updated.split("\n").length).toBe(toml.split("\n").length);
    expect(() => withProductionD1Id(toml, "not-an-id")).toThrow();
  });

  it("creates each queue once: a queue the account has already is no failure", () => {
    expect(queueCreated(true, "Created queue lessor-webhooks.")).toBe("created");
    expect(queueCreated(false, "✘ [ERROR] A request to the Cloudflare API failed. Queue name already taken [code: 11009]")).toBe("exists");
    expect(queueCreated(false, "✘ [ERROR] Authentication error [code: 10000]")).toBe("failed");
    expect(productionQueues("[env.production]\nname = \"x\"\n")).toEqual([]);
  });

  it("uploads only the secrets the Worker lacks, generates what it may, and names what it must be given", () => {
    const gen = (name: string) => `generated-${name}`;
    expect(() => secretsToUpload([], {}, gen)).toThrow(/set LESSOR_INSTALLATION_ID, LESSOR_PUBLIC_URL in the environment for the first deploy/);
    expect(() => secretsToUpload([], { LESSOR_INSTALLATION_ID: "acme" }, gen)).toThrow(/set LESSOR_PUBLIC_URL in the environment/);
    const first = secretsToUpload([], { LESSOR_INSTALLATION_ID: "acme", LESSOR_PUBLIC_URL: "https://lessor.example.com" }, gen);
    expect(first.upload).toEqual({
      LESSOR_INSTALLATION_ID: "acme",
      LESSOR_PUBLIC_URL: "https://lessor.example.com",
      LESSOR_MASTER_KEY: "generated-LESSOR_MASTER_KEY",
      LESSOR_BOOTSTRAP_TOKEN: "generated-LESSOR_BOOTSTRAP_TOKEN",
    });
    expect(first.generated).toEqual(["LESSOR_MASTER_KEY", "LESSOR_BOOTSTRAP_TOKEN"]);
    // A later deploy replaces nothing the Worker holds, in particular never its master key.
    const later = secretsToUpload(["LESSOR_INSTALLATION_ID", "LESSOR_PUBLIC_URL", "LESSOR_MASTER_KEY"], {}, gen);
    expect(later.upload).toEqual({ LESSOR_BOOTSTRAP_TOKEN: "generated-LESSOR_BOOTSTRAP_TOKEN" });
    const none = secretsToUpload(["LESSOR_INSTALLATION_ID", "LESSOR_PUBLIC_URL", "LESSOR_MASTER_KEY", "LESSOR_BOOTSTRAP_TOKEN"], {}, gen);
    expect(none.upload).toEqual({});
  });
});
