/**
 * What the per-minute metrics add to the ledger's write that ends a call (worker/ledger/metrics.ts
 * countFinished, in the same transaction). SQLite as Node 22 ships it (node:sqlite), the engine
 * Durable Objects run: each operation is one transaction inserting a finished call's row (its record
 * as JSON, ~1 KB) and its finished event, as the ledger's commit does, with and without the rollup
 * (one upsert into metrics; a gated call's second one; an error code's row).
 * Usage: node scripts/run-ts.mjs bench/metrics-rollup.ts
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { CallRecord } from "../src/result";
import { countFinished, METRICS_SCHEMA, type MetricsSql } from "../worker/ledger/metrics";
import { fmt, table } from "./harness";
import { CLOCK, interleave } from "./peers/rounds";

const db = new DatabaseSync(":memory:");
db.exec(`CREATE TABLE calls (call_id TEXT PRIMARY KEY, tool TEXT NOT NULL, status TEXT NOT NULL,
  started_at INTEGER NOT NULL, record TEXT NOT NULL);
  CREATE INDEX calls_by_time ON calls (started_at, call_id);
  CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT NOT NULL, data TEXT NOT NULL);
  ${METRICS_SCHEMA};`);
const statements = new Map<string, StatementSync>();
/** The slice of SqlStorage the rollup uses, over node:sqlite (statements prepared once, as workerd caches them). */
const sql: MetricsSql = {
  exec(query: string, ...bindings: (string | number | null)[]) {
    let statement = statements.get(query);
    if (!statement) statements.set(query, (statement = db.prepare(query)));
    statement.run(...bindings);
  },
};

const TOOLS = ["lookup", "search", "send", "fetch_page", "summarize"];
let n = 0;
function record(): CallRecord {
  n++;
  const failed = n % 10 === 0;
  return {
    callId: `call_${n}`,
    tenant: "acme",
    tool: TOOLS[n % TOOLS.length]!,
    source: "valibot",
    schemaHash: "a".repeat(64),
    validation: { ok: true },
    attempts: 1,
    startedAt: Date.now(),
    durationMs: (n * 7919) % 900,
    status: failed ? "failed" : "succeeded",
    args: { id: `o-${n}`, note: "x".repeat(300) },
    ...(failed
      ? { error: { code: "upstream_error", message: "the upstream answered 503" } }
      : { output: { content: [{ type: "text", text: "y".repeat(500) }] } }),
    ...(n % 3 === 0 ? { gate: { name: "tool:lookup", waitedMs: n % 40 } } : {}),
  } as CallRecord;
}

function write(rollUp: boolean): void {
  const rec = record();
  db.exec("BEGIN");
  const json = JSON.stringify(rec);
  sql.exec(
    "INSERT INTO calls (call_id, tool, status, started_at, record) VALUES (?, ?, ?, ?, ?)",
    rec.callId,
    rec.tool,
    rec.status,
    rec.startedAt,
    json,
  );
  sql.exec(
    "INSERT INTO events (type, data) VALUES (?, ?)",
    "call.finished",
    `{"type":"call.finished","record":${json}}`,
  );
  if (rollUp) countFinished(sql, rec, Date.now());
  db.exec("COMMIT");
}

const timed = await interleave([
  { name: "finished call's write", op: () => write(false) },
  { name: "… with the metrics rollup", op: () => write(true) },
]);
const base = timed[0]!.nsPerOp;
console.log(
  `The ledger's write of a finished call (${CLOCK} clock, node:sqlite)\n` +
    table(
      timed.map((t) => ({
        write: t.name,
        "per call": fmt(t.nsPerOp),
        "vs without": `${(t.nsPerOp / base).toFixed(2)}×`,
        spread: `${Math.round(t.spread * 100)}%`,
      })),
    ),
);
