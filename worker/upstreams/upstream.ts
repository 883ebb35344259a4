/**
 * The shared rate limit of one upstream (an origin) of one tenant: every isolate's callers take
 * their send time here. State is two numbers in SQLite; each RPC reads and writes them without an
 * await in between, so concurrent callers never see the same token.
 */
import { DurableObject } from "cloudflare:workers";
import type { RateLimit } from "../../src/adapters/declarations";
import { backOff, take, type BucketState, type Grant } from "./bucket";

export class Upstream extends DurableObject<Env> {
  private state: BucketState;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    sql.exec(
      `CREATE TABLE IF NOT EXISTS bucket (
         id INTEGER PRIMARY KEY CHECK (id = 0), tat REAL NOT NULL, blocked_until REAL NOT NULL
       )`,
    );
    const row = sql
      .exec<{ tat: number; blocked_until: number }>("SELECT tat, blocked_until FROM bucket WHERE id = 0")
      .toArray()[0];
    this.state = row ? { tat: row.tat, blockedUntil: row.blocked_until } : { tat: 0, blockedUntil: 0 };
  }

  private save(next: BucketState): void {
    if (next === this.state) return;
    this.state = next;
    this.ctx.storage.sql.exec(
      `INSERT INTO bucket (id, tat, blocked_until) VALUES (0, ?, ?)
       ON CONFLICT(id) DO UPDATE SET tat = excluded.tat, blocked_until = excluded.blocked_until`,
      next.tat,
      next.blockedUntil,
    );
  }

  /** One send: its delay from now, or a refusal when the delay would exceed maxWaitMs. */
  async take(limit: RateLimit, maxWaitMs: number): Promise<Grant> {
    const { state, grant } = take(this.state, limit, Date.now(), maxWaitMs);
    this.save(state);
    return grant;
  }

  /** The upstream answered 429/503 with Retry-After. */
  async backOff(limit: RateLimit, ms: number): Promise<void> {
    this.save(backOff(this.state, limit, Date.now(), ms));
  }
}
