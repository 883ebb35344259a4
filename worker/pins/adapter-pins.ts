/**
 * Approved definitions of remote (MCP) tools, one object per tenant: the hash an admin approved,
 * with who approved it and when. Calls compare the live definition's hash with this pin.
 */
import { DurableObject } from "cloudflare:workers";

/** One approved definition: what calls compare the live definition's hash with. */
export interface Pin {
  tool: string;
  server: string;
  hash: string;
  approvedBy: string;
  approvedAt: number;
}

/** What an admin approves: the definition is kept for audit. */
export interface PinEntry {
  tool: string;
  server: string;
  hash: string;
  definition: unknown;
}

type PinRow = { tool: string; server: string; hash: string; approved_by: string; approved_at: number };

export class AdapterPins extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS pins (tool TEXT PRIMARY KEY, server TEXT NOT NULL, hash TEXT NOT NULL,
        definition TEXT NOT NULL, approved_by TEXT NOT NULL, approved_at INTEGER NOT NULL)`,
    );
  }

  /** Every pin of the tenant (a few hundred at most: one per remote tool). */
  async all(): Promise<Pin[]> {
    return this.ctx.storage.sql
      .exec<PinRow>("SELECT tool, server, hash, approved_by, approved_at FROM pins ORDER BY tool")
      .toArray()
      .map((row) => ({ tool: row.tool, server: row.server, hash: row.hash, approvedBy: row.approved_by, approvedAt: row.approved_at }));
  }

  /** Record approvals (insert or replace); the definition is kept for audit. */
  async approve(entries: PinEntry[], approvedBy: string): Promise<Pin[]> {
    const now = Date.now();
    for (const entry of entries) {
      this.ctx.storage.sql.exec(
        `INSERT INTO pins (tool, server, hash, definition, approved_by, approved_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT(tool) DO UPDATE SET server = excluded.server, hash = excluded.hash, definition = excluded.definition,
           approved_by = excluded.approved_by, approved_at = excluded.approved_at`,
        entry.tool,
        entry.server,
        entry.hash,
        JSON.stringify(entry.definition),
        approvedBy,
        now,
      );
    }
    return this.all();
  }
}
