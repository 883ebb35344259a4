/**
 * The list of a tenant's gates, so GET /v1/gates can find every gate Durable Object (their ids are
 * hashes of names and cannot be listed). Each gate registers itself once, on its first acquire.
 */
import { DurableObject } from "cloudflare:workers";

export class GateIndex extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS gates (gate TEXT PRIMARY KEY, added_at INTEGER NOT NULL)");
  }

  async register(gate: string): Promise<void> {
    this.ctx.storage.sql.exec("INSERT OR IGNORE INTO gates (gate, added_at) VALUES (?, ?)", gate, Date.now());
  }

  /** Gate names in order, a page at a time: pass the last name of a page as `after` for the next. */
  async list(after: string, limit: number): Promise<{ gates: string[]; next?: string }> {
    const rows = this.ctx.storage.sql
      .exec<{ gate: string }>("SELECT gate FROM gates WHERE gate > ? ORDER BY gate LIMIT ?", after, limit + 1)
      .toArray();
    const gates = rows.slice(0, limit).map((r) => r.gate);
    return rows.length > limit ? { gates, next: gates[gates.length - 1]! } : { gates };
  }
}
