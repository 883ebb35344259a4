/**
 * The list of a tenant's gates, so GET /v1/gates can find every gate Durable Object (their ids are
 * hashes of names and cannot be listed). Each gate registers itself on its first acquire, and removes
 * itself when it forgets its state after a long idle time (per-resource gates would pile up forever).
 */
import { DurableObject } from "cloudflare:workers";

export class GateIndex extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS gates (gate TEXT PRIMARY KEY, added_at INTEGER NOT NULL)");
  }

  /** `at`: the gate's clock when it registered (added_at keeps the latest registration). */
  async register(gate: string, at = Date.now()): Promise<void> {
    this.ctx.storage.sql.exec(
      `INSERT INTO gates (gate, added_at) VALUES (?, ?)
       ON CONFLICT (gate) DO UPDATE SET added_at = MAX(added_at, excluded.added_at)`,
      gate,
      at,
    );
  }

  /**
   * A gate that forgot itself, idle since `idleSince`: removed unless it registered again after that,
   * so a removal that arrives after a newer registration of the same gate changes nothing.
   */
  async unregister(gate: string, idleSince: number): Promise<void> {
    this.ctx.storage.sql.exec("DELETE FROM gates WHERE gate = ? AND added_at <= ?", gate, idleSince);
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
