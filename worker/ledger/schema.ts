/**
 * The ledger's SQLite schema as an append-only list of migrations. A shard records how many it has
 * applied; a new deploy applies the rest in one transaction before the object serves anything.
 */
import { METRICS_SCHEMA } from "./metrics";

type Migration = string | ((sql: SqlStorage) => void);

const MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE calls (
     call_id TEXT PRIMARY KEY,
     tool TEXT NOT NULL,
     args_hash TEXT NOT NULL,          -- '' for calls rejected before their id was claimed
     status TEXT NOT NULL,
     started_at INTEGER NOT NULL,      -- record.startedAt: the order of listings
     updated_at INTEGER NOT NULL,
     deadline INTEGER,                 -- running: lease end; pending: approval expiry; NULL once terminal
     owner TEXT,                       -- the claimant allowed to finish a running row
     cancel_requested INTEGER NOT NULL DEFAULT 0,
     approval TEXT,                    -- requested | approved | denied | expired | cancelled
     approval_reason TEXT,
     decided_at INTEGER,
     record TEXT NOT NULL,             -- masked CallRecord JSON, capped (see records.ts)
     truncated INTEGER NOT NULL DEFAULT 0,
     result_chars INTEGER              -- length of the full output text, when there is output
   );
   CREATE INDEX calls_by_time ON calls (started_at, call_id);
   CREATE INDEX calls_by_tool ON calls (tool, started_at);
   CREATE INDEX calls_by_status ON calls (status, started_at);
   CREATE INDEX calls_by_deadline ON calls (deadline) WHERE deadline IS NOT NULL;
   -- Values too large for a row (full outputs, arguments awaiting approval), cut into chunks.
   CREATE TABLE blobs (
     call_id TEXT NOT NULL,
     kind TEXT NOT NULL,               -- output (CallOutput JSON) | text (outputText) | args (raw JSON)
     start INTEGER NOT NULL,           -- offset of the chunk in UTF-16 code units
     body TEXT NOT NULL,
     PRIMARY KEY (call_id, kind, start)
   );
   CREATE TABLE events (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     type TEXT NOT NULL,
     data TEXT NOT NULL
   );
   CREATE TABLE tokens (
     hash TEXT PRIMARY KEY,
     scopes TEXT NOT NULL,
     expires_at INTEGER NOT NULL
   );`,
  // The name of the key (never the key) each call was made with: a call-scope key reads only its own
  // records and events. NULL for rows written before this migration (only admins see those).
  (sql) => {
    addColumn(sql, "calls", "key_name", "TEXT");
    addColumn(sql, "events", "key_name", "TEXT");
    addColumn(sql, "tokens", "key_name", "TEXT");
    sql.exec("CREATE INDEX IF NOT EXISTS calls_by_key ON calls (key_name, started_at)");
  },
  // Where each call came in (http, mcp, binding): the console filters by it. NULL for older rows.
  (sql) => {
    addColumn(sql, "calls", "surface", "TEXT");
    sql.exec("CREATE INDEX IF NOT EXISTS calls_by_surface ON calls (surface, started_at)");
  },
  // Legacy MCP sessions' state (worker/ledger/sessions.ts), on the shard of the session's reference.
  // IF NOT EXISTS: a shard whose recorded version is behind its tables runs this again harmlessly.
  `CREATE TABLE IF NOT EXISTS mcp_sessions (
     ref TEXT PRIMARY KEY,             -- a digest of the session id, never the id
     level TEXT,                       -- logging/setLevel; NULL: the default
     ended INTEGER NOT NULL DEFAULT 0, -- DELETE was sent: the id is refused from then on
     expires_at INTEGER NOT NULL       -- when the id expires and the row may go
   );
   CREATE INDEX IF NOT EXISTS mcp_sessions_by_expiry ON mcp_sessions (expires_at);`,
  // Keys the tenant's Worker signs with (worker/ledger/secrets.ts), made once on first use.
  `CREATE TABLE IF NOT EXISTS secrets (
     name TEXT PRIMARY KEY,
     value BLOB NOT NULL
   );`,
  // Questions a legacy MCP session's call put to its client (worker/ledger/asks.ts), while it asks.
  `CREATE TABLE IF NOT EXISTS mcp_asks (
     call_id TEXT PRIMARY KEY,         -- the session's tools/call (worker/mcp/v2025/call-ids.ts)
     round_call_id TEXT NOT NULL,      -- the ledger id its current round runs as: a cancel reaches it
     waiting TEXT NOT NULL,            -- JSON: the JSON-RPC id of each request sent to the client → its
                                       -- response, or null
     cancelled TEXT,                   -- why the client cancelled the call; NULL
     expires_at INTEGER NOT NULL       -- when the row may go (the wait's bound, and a margin)
   );
   CREATE INDEX IF NOT EXISTS mcp_asks_by_expiry ON mcp_asks (expires_at);`,
  // When the ledger first accepted each call (its first record's startedAt), kept while started_at
  // follows the re-runs: an MCP task's createdAt. NULL for older rows (their started_at stands in).
  (sql) => addColumn(sql, "calls", "created_at", "INTEGER"),
  // Who each call was made for (worker/ledger/viewer.ts): the user's id, which a person's reads and the
  // admin's ?user= filter match, and the UserRef as JSON; who decided an approval (user:<id> or
  // key:<name>); the user of each event and each event token. NULL for older rows: a person never
  // sees those, admins and the key that made them still do.
  (sql) => {
    addColumn(sql, "calls", "user_id", "TEXT");
    addColumn(sql, "calls", "user", "TEXT");
    addColumn(sql, "calls", "decided_by", "TEXT");
    addColumn(sql, "events", "user_id", "TEXT");
    addColumn(sql, "tokens", "user_id", "TEXT");
    addColumn(sql, "tokens", "viewer", "TEXT");
    sql.exec("CREATE INDEX IF NOT EXISTS calls_by_user ON calls (user_id, started_at)");
  },
  // Per-minute metrics of the calls as they end (worker/ledger/metrics.ts).
  METRICS_SCHEMA,
  // A call re-run after the alarm guessed `unknown` was counted then: its re-run's end is not counted again.
  (sql) => addColumn(sql, "calls", "counted", "INTEGER"),
];

/** ALTER TABLE … ADD COLUMN unless the column is there already, so re-running it is harmless. */
function addColumn(sql: SqlStorage, table: string, column: string, type: string): void {
  const present = sql.exec("SELECT 1 FROM pragma_table_info(?) WHERE name = ?", table, column).toArray().length > 0;
  if (!present) sql.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
}

export function migrate(storage: DurableObjectStorage): void {
  const sql = storage.sql;
  sql.exec("CREATE TABLE IF NOT EXISTS ledger_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)");
  const applied =
    sql.exec<{ value: number }>("SELECT value FROM ledger_meta WHERE key = 'schema'").toArray()[0]?.value ?? 0;
  if (applied >= MIGRATIONS.length) return;
  storage.transactionSync(() => {
    for (const step of MIGRATIONS.slice(applied)) {
      if (typeof step === "string") sql.exec(step);
      else step(sql);
    }
    sql.exec("INSERT OR REPLACE INTO ledger_meta (key, value) VALUES ('schema', ?)", MIGRATIONS.length);
  });
}
