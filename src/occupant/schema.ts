/**
 * The tables a lease's object keeps for its machine agent (docs/storage.md, `LeaseObject`),
 * beside the lease's own and versioned on their own: `agent_schema_version` in `meta`.
 * Created only in the object of a lease that exists, like the lease's tables, so an agent call
 * that names a lease never created leaves no storage behind. The log's, the commands' and the
 * outputs' tables are made at their first write (`LAZY_TABLES`): a lease whose agent never logs,
 * gets a command or sends a manifest (a box with no `cmd` and no exec) never writes them.
 */
import { META_TABLE, setMeta } from "../object-meta";

export const AGENT_SCHEMA_VERSION = 6;
export const COMMAND_KINDS = ["exec", "signal", "collect"] as const;
export const COMMAND_STATES = ["queued", "delivered", "done"] as const;

const list = (values: readonly string[]) => values.map((v) => `'${v}'`).join(", ");

const OUTPUTS_TABLE = `
  CREATE TABLE IF NOT EXISTS outputs (
    path   TEXT PRIMARY KEY,
    size   INTEGER NOT NULL CHECK (size >= 0),
    sha256 TEXT NOT NULL CHECK (length(sha256) = 64),
    stored INTEGER NOT NULL DEFAULT 0 CHECK (stored IN (0, 1))
  )
`;

const LOGS_TABLE = `
  CREATE TABLE IF NOT EXISTS agent_logs (
    seq  INTEGER PRIMARY KEY CHECK (seq >= 0),
    at   INTEGER NOT NULL,
    data BLOB NOT NULL
  )
`;

const COMMANDS_COLUMNS = `(
    id           TEXT PRIMARY KEY,
    n            INTEGER NOT NULL UNIQUE,
    kind         TEXT NOT NULL CHECK (kind IN (${list(COMMAND_KINDS)})),
    arg          TEXT NOT NULL,
    state        TEXT NOT NULL CHECK (state IN (${list(COMMAND_STATES)})),
    created_at   INTEGER NOT NULL,
    delivered_at INTEGER,
    exit_code    INTEGER,
    output       TEXT,
    done_at      INTEGER,
    CHECK ((state = 'done') = (done_at IS NOT NULL))
  )`;
const COMMANDS_TABLE = `CREATE TABLE agent_commands ${COMMANDS_COLUMNS};`;
const COMMANDS_INDEX = `CREATE INDEX agent_commands_open ON agent_commands (state, n) WHERE state != 'done';`;

/**
 * The tables made at their first write, each statement its own exec (the meter counts an exec's
 * last statement only: docs/cost.md). A lease made before has them all; one made since has those
 * it wrote. Their readers take a missing table for an empty one (`hasTable`).
 */
export const LAZY_TABLES = {
  agent_logs: [LOGS_TABLE],
  agent_commands: [
    `CREATE TABLE IF NOT EXISTS agent_commands ${COMMANDS_COLUMNS}`,
    `CREATE INDEX IF NOT EXISTS agent_commands_open ON agent_commands (state, n) WHERE state != 'done'`,
  ],
  outputs: [OUTPUTS_TABLE],
} as const;
export type LazyTable = keyof typeof LAZY_TABLES;

export function makeTable(sql: SqlStorage, name: LazyTable): void {
  for (const statement of LAZY_TABLES[name]) sql.exec(statement);
}

export function hasTable(sql: SqlStorage, name: LazyTable): boolean {
  return sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`, name).toArray().length > 0;
}

export function ensureAgentSchema(sql: SqlStorage): void {
  sql.exec(META_TABLE);
  const row = sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'agent_schema_version'`).toArray()[0];
  const version = row ? Number(row.value) : 0;
  if (version < 1) {
    sql.exec(`
      CREATE TABLE agent (
        id                INTEGER PRIMARY KEY CHECK (id = 1),
        token_hash        TEXT CHECK (token_hash IS NULL OR length(token_hash) = 64),
        token_minted_at   INTEGER,
        last_heartbeat_at INTEGER,
        exit_code         INTEGER CHECK (exit_code IS NULL OR exit_code BETWEEN 0 AND 255),
        exit_signal       TEXT,
        exit_at           INTEGER,
        log_bytes         INTEGER NOT NULL DEFAULT 0 CHECK (log_bytes >= 0),
        log_chunks        INTEGER NOT NULL DEFAULT 0 CHECK (log_chunks >= 0),
        dropped_bytes     INTEGER NOT NULL DEFAULT 0 CHECK (dropped_bytes >= 0),
        dropped_through   INTEGER NOT NULL DEFAULT -1,
        last_output_at    INTEGER,
        metrics_read_at   INTEGER,
        metrics_failed_at INTEGER,
        metrics_counters  TEXT,
        enroll_hash       TEXT CHECK (enroll_hash IS NULL OR length(enroll_hash) = 64),
        enroll_open_until INTEGER,
        enroll_nonce_hash TEXT CHECK (enroll_nonce_hash IS NULL OR length(enroll_nonce_hash) = 64),
        collects_at       INTEGER,
        collected_at      INTEGER,
        CHECK ((exit_at IS NULL) = (exit_code IS NULL AND exit_signal IS NULL))
      )
    `);
    sql.exec(`INSERT INTO agent (id) VALUES (1)`);
  }
  // 5 added the outputs' manifest (docs/artifacts.md), now made at its first write (`LAZY_TABLES`).
  // A new lease's tables are made above as the newest version has them; the steps below bring
  // older ones up to it (each ALTER is a row written, docs/cost.md).
  if (version >= 1 && version < 2) {
    // When output last arrived, kept beside the log so the lease's rules need not scan it.
    sql.exec(`
      ALTER TABLE agent ADD COLUMN last_output_at INTEGER;
      UPDATE agent SET last_output_at = (SELECT MAX(at) FROM agent_logs) WHERE id = 1;
    `);
  }
  if (version >= 1 && version < 3) {
    // The model server's metrics as the agent last read them (src/lease/model-metrics.ts): when a
    // read last showed them, when one last failed, and the counters the next read is compared with.
    sql.exec(`
      ALTER TABLE agent ADD COLUMN metrics_read_at INTEGER;
      ALTER TABLE agent ADD COLUMN metrics_failed_at INTEGER;
      ALTER TABLE agent ADD COLUMN metrics_counters TEXT;
    `);
  }
  if (version >= 1 && version < 4) {
    // The machine's enrollment (token.ts): what the create carries instead of the lease token.
    sql.exec(`
      ALTER TABLE agent ADD COLUMN enroll_hash TEXT CHECK (enroll_hash IS NULL OR length(enroll_hash) = 64);
      ALTER TABLE agent ADD COLUMN enroll_open_until INTEGER;
      ALTER TABLE agent ADD COLUMN enroll_nonce_hash TEXT CHECK (enroll_nonce_hash IS NULL OR length(enroll_nonce_hash) = 64);
    `);
  }
  if (version >= 1 && version < 6) {
    // The `collect` command (a release waits for the outputs, docs/artifacts.md): the kinds' CHECK
    // is rebuilt with the table (SQLite alters no constraint), and the agent says it can collect.
    sql.exec(`
      ALTER TABLE agent ADD COLUMN collects_at INTEGER;
      ALTER TABLE agent ADD COLUMN collected_at INTEGER;
      ALTER TABLE agent_commands RENAME TO agent_commands_v5;
      DROP INDEX IF EXISTS agent_commands_open;
      ${COMMANDS_TABLE}
      INSERT INTO agent_commands SELECT * FROM agent_commands_v5;
      DROP TABLE agent_commands_v5;
      ${COMMANDS_INDEX}
    `);
  }
  // Written only when it changes: every start of the object runs this.
  if (version < AGENT_SCHEMA_VERSION) setMeta(sql, "agent_schema_version", AGENT_SCHEMA_VERSION);
}
