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

/** A definition an admin refused: calls of a tool whose definition has this hash are refused. */
export interface Denial {
  tool: string;
  server: string;
  hash: string;
  deniedBy: string;
  deniedAt: number;
}

/** The pins and denials calls are checked against (one read for both). */
export interface PinState {
  pins: Pin[];
  denials: Denial[];
}

/** What an admin approves: the definition is kept for audit. */
export interface PinEntry {
  tool: string;
  server: string;
  hash: string;
  definition: unknown;
}

type PinRow = { tool: string; server: string; hash: string; approved_by: string; approved_at: number };
type DenialRow = { tool: string; server: string; hash: string; denied_by: string; denied_at: number };

export class AdapterPins extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS pins (tool TEXT PRIMARY KEY, server TEXT NOT NULL, hash TEXT NOT NULL,
        definition TEXT NOT NULL, approved_by TEXT NOT NULL, approved_at INTEGER NOT NULL)`,
    );
    // One refused definition per tool at most: a new approval of the tool clears it.
    ctx.storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS denials (tool TEXT PRIMARY KEY, server TEXT NOT NULL, hash TEXT NOT NULL,
        denied_by TEXT NOT NULL, denied_at INTEGER NOT NULL)`,
    );
  }

  /** Pins and denials together: what calls are checked against. */
  async state(): Promise<PinState> {
    const denials = this.ctx.storage.sql
      .exec<DenialRow>("SELECT tool, server, hash, denied_by, denied_at FROM denials ORDER BY tool")
      .toArray()
      .map((row) => ({
        tool: row.tool,
        server: row.server,
        hash: row.hash,
        deniedBy: row.denied_by,
        deniedAt: row.denied_at,
      }));
    return { pins: await this.all(), denials };
  }

  /** The definitions admins approved, by tool (for a review's diff against what the server lists now). */
  async approvedDefinitions(tools: string[]): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const tool of tools.slice(0, 500)) {
      const row = this.ctx.storage.sql
        .exec<{ definition: string }>("SELECT definition FROM pins WHERE tool = ?", tool)
        .toArray()[0];
      if (row) out[tool] = JSON.parse(row.definition) as unknown;
    }
    return out;
  }

  /**
   * Refuse these definitions (insert or replace the tool's denial). A pin of another definition stays
   * as it was; a pin of the denied definition itself is revoked (else the denial would change nothing).
   */
  async deny(entries: PinEntry[], deniedBy: string): Promise<PinState> {
    const now = Date.now();
    for (const entry of entries) {
      this.ctx.storage.sql.exec("DELETE FROM pins WHERE tool = ? AND hash = ?", entry.tool, entry.hash);
      this.ctx.storage.sql.exec(
        `INSERT INTO denials (tool, server, hash, denied_by, denied_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(tool) DO UPDATE SET server = excluded.server, hash = excluded.hash,
           denied_by = excluded.denied_by, denied_at = excluded.denied_at`,
        entry.tool,
        entry.server,
        entry.hash,
        deniedBy,
        now,
      );
    }
    return this.state();
  }

  /** Every pin of the tenant (a few hundred at most: one per remote tool). */
  async all(): Promise<Pin[]> {
    return this.ctx.storage.sql
      .exec<PinRow>("SELECT tool, server, hash, approved_by, approved_at FROM pins ORDER BY tool")
      .toArray()
      .map((row) => ({
        tool: row.tool,
        server: row.server,
        hash: row.hash,
        approvedBy: row.approved_by,
        approvedAt: row.approved_at,
      }));
  }

  /** Record approvals (insert or replace); the definition is kept for audit, and the tool's denial is lifted. */
  async approve(entries: PinEntry[], approvedBy: string): Promise<Pin[]> {
    const now = Date.now();
    for (const entry of entries) {
      this.ctx.storage.sql.exec("DELETE FROM denials WHERE tool = ?", entry.tool);
      this.ctx.storage.sql.exec(
        `INSERT INTO pins (tool, server, hash, definition, approved_by, approved_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT(tool) DO UPDATE SET server = excluded.server, hash = excluded.hash,
           definition = excluded.definition, approved_by = excluded.approved_by, approved_at = excluded.approved_at`,
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
