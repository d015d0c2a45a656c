/**
 * The pure steps of `npm run deploy` (scripts/deploy.mjs), kept apart so that tests can check them
 * without a Cloudflare account: reading the D1 id `wrangler d1 create` prints, writing it into the
 * production environment of wrangler.toml, deciding which secrets a deploy must still set, and
 * which queues it must create.
 */

/** The id wrangler.toml holds until a production database has been created. */
export const PLACEHOLDER_D1_ID = "00000000-0000-0000-0000-000000000000";

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** The database id in `wrangler d1 create`'s output (TOML or JSON snippet), or null. */
export function parseCreatedD1Id(output) {
  const m = /database_id["']?\s*[=:]\s*["']([0-9a-f-]{36})["']/i.exec(output) ?? null;
  if (m && UUID.test(m[1]) && m[1] !== PLACEHOLDER_D1_ID) return m[1].toLowerCase();
  return null;
}

/** The `[env.production]` part of wrangler.toml: from its header to the next top-level table that is not its own. */
function productionSpan(toml) {
  const start = toml.search(/^\[env\.production\]\s*$/m);
  if (start < 0) return null;
  const rest = toml.slice(start + 1);
  const next = rest.search(/^\[{1,2}(?!\[)(?!env\.production[.\]])[^\]]+\]{1,2}\s*$/m);
  return { start, end: next < 0 ? toml.length : start + 1 + next };
}

/** The production D1 id wrangler.toml holds (the placeholder until one is created), or null if it names none. */
export function productionD1Id(toml) {
  const span = productionSpan(toml);
  if (!span) return null;
  const m = /^database_id\s*=\s*"([^"]*)"/m.exec(toml.slice(span.start, span.end));
  return m ? m[1] : null;
}

/** wrangler.toml with the production database id set to `id`; the development one is left alone. */
export function withProductionD1Id(toml, id) {
  if (!UUID.test(id)) throw new Error(`not a D1 database id: ${id}`);
  const span = productionSpan(toml);
  if (!span) throw new Error("wrangler.toml has no [env.production]");
  const section = toml.slice(span.start, span.end);
  if (!/^database_id\s*=\s*"[^"]*"/m.test(section)) throw new Error("[env.production] has no d1 database_id");
  const updated = section.replace(/^database_id\s*=\s*"[^"]*"/m, `database_id = "${id}"`);
  return toml.slice(0, span.start) + updated + toml.slice(span.end);
}

/**
 * What each Worker secret is for. `required`: the Worker refuses to serve without it
 * (src/config.ts). `generate`: the deploy may make one when the operator gave none.
 */
export const SECRETS = [
  { name: "LESSOR_INSTALLATION_ID", required: true, generate: false, purpose: "this installation's own id (1-24 lowercase letters and digits); it tags every machine lessor labels, so two installations sharing a provider account never touch each other's machines" },
  { name: "LESSOR_MASTER_KEY", required: true, generate: true, purpose: "encrypts the orgs' provider keys; rotating it makes every stored key unreadable, so keep it" },
  // Not a secret, but the operator's own value that no repository file can hold, set the same way.
  { name: "LESSOR_PUBLIC_URL", required: true, generate: false, purpose: "the https origin machines reach lessor at (e.g. https://lessor.example.com): their agent fetches its script and reports there" },
  { name: "LESSOR_BOOTSTRAP_TOKEN", required: false, generate: true, purpose: "creates orgs (POST /v1/orgs); delete it once your orgs exist to close that door" },
];

/**
 * The secrets this deploy must upload: those the Worker does not have yet (`existing`), from the
 * operator's environment (`given`) or generated. Throws, naming every missing one, when a required
 * secret can be neither found nor generated. `generate(name)` makes a new random value.
 */
export function secretsToUpload(existing, given, generate) {
  const upload = {};
  const generated = [];
  const missing = [];
  for (const s of SECRETS) {
    const value = given[s.name];
    if (value) {
      upload[s.name] = value;
      continue;
    }
    if (existing.includes(s.name)) continue;
    if (s.generate) {
      upload[s.name] = generate(s.name);
      generated.push(s.name);
    } else if (s.required) {
      missing.push(s);
    }
  }
  if (missing.length > 0) {
    throw new Error(
      `set ${missing.map((s) => s.name).join(", ")} in the environment for the first deploy:\n` +
        missing.map((s) => `  ${s.name}: ${s.purpose}`).join("\n"),
    );
  }
  return { upload, generated };
}

/** The queues `[env.production]` names (producers, consumers and dead-letter queues), each once, in order. */
export function productionQueues(toml) {
  const span = productionSpan(toml);
  if (!span) return [];
  const names = [...toml.slice(span.start, span.end).matchAll(/^(?:queue|dead_letter_queue)\s*=\s*"([^"]+)"/gm)].map((m) => m[1]);
  return [...new Set(names)];
}

/** What `wrangler queues create NAME` came to: made now, there already (each deploy asks again), or failed. */
export function queueCreated(ok, output) {
  if (ok) return "created";
  return /already (exists|taken)|\b11009\b/i.test(output) ? "exists" : "failed";
}
