/**
 * Keys created at runtime, one object per tenant: their SHA-256 hashes, scopes and rules. Isolates
 * read the active set (cache.ts) and batch their last-use times back; secrets never reach it.
 */
import { DurableObject } from "cloudflare:workers";
import { activeKeys, createSchema, insertKey, listKeys, revokeKey, rotateKey, touchKeys } from "./store";
import type { ActiveKey, KeyInfo, KeyInput } from "./types";

export class Keys extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    createSchema(ctx.storage.sql);
  }

  async list(): Promise<KeyInfo[]> {
    return listKeys(this.ctx.storage.sql, Date.now());
  }

  async active(): Promise<ActiveKey[]> {
    return activeKeys(this.ctx.storage.sql, Date.now());
  }

  async create(id: string, hash: string, input: KeyInput): Promise<KeyInfo | "name_taken"> {
    return insertKey(this.ctx.storage.sql, id, hash, input, Date.now());
  }

  async rotate(id: string, hash: string, graceMs: number): Promise<KeyInfo | "not_found"> {
    return rotateKey(this.ctx.storage.sql, id, hash, graceMs, Date.now());
  }

  async revoke(id: string): Promise<KeyInfo | "not_found"> {
    return revokeKey(this.ctx.storage.sql, id, Date.now());
  }

  async touch(uses: [string, number][]): Promise<void> {
    touchKeys(this.ctx.storage.sql, uses);
  }
}
