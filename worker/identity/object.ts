/**
 * The people of one tenant that signs them in (identity.oidc or identity.access), one object per
 * tenant: console sign-ins under way (single use, so a replayed callback or nonce finds nothing),
 * revoked sessions, the people who connected MCP clients, and the key that signs session cookies.
 * Made only for tenants with sign-in configured (signsPeopleIn, identity/config.ts); others never
 * address it. Its rows and bounds are the library module's (lazy/store.ts), loaded as the object
 * starts: no other isolate's startup compiles them.
 */
import { DurableObject } from "cloudflare:workers";
import { type IdentityLibrary, identityLibrary } from "../identity-library";
import type { GrantOwner, LoginTransaction, Stored } from "./lazy/store";

export class Identity extends DurableObject<Env> {
  private store!: IdentityLibrary["identityStore"];

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Requests wait for this: the store is there before any method runs.
    void ctx.blockConcurrencyWhile(async () => {
      this.store = (await identityLibrary()).identityStore;
      this.store.createSchema(ctx.storage.sql);
    });
  }

  /** Stores a sign-in under way (its id's SHA-256, never the id); "invalid" when out of bounds. */
  async beginLogin(tx: LoginTransaction): Promise<Stored> {
    return this.store.beginLogin(this.ctx.storage.sql, tx, Date.now());
  }

  /** The sign-in with this id hash, deleted as it is read; null when absent, taken or expired. */
  async takeLogin(idHash: string): Promise<LoginTransaction | null> {
    return this.store.takeLogin(this.ctx.storage.sql, idHash, Date.now());
  }

  /** Revokes a session id until `expiresAt`, when its cookie expires anyway. */
  async revokeSession(sid: string, expiresAt: number): Promise<Stored> {
    return this.store.revokeSession(this.ctx.storage.sql, sid, expiresAt, Date.now());
  }

  /** Revoked session ids not expired yet (isolates re-read them every few seconds). */
  async revokedSessions(): Promise<string[]> {
    return this.store.revokedSessions(this.ctx.storage.sql, Date.now());
  }

  /** Notes a person who connected an MCP client for themselves (key: their user key). */
  async noteGrantOwner(key: string, user: { id: string; name?: string }): Promise<Stored> {
    return this.store.noteGrantOwner(this.ctx.storage.sql, key, user, Date.now());
  }

  /** People who connected clients, by key after `after` (null: from the start), at most `limit` (≤ 100). */
  async grantOwners(after: string | null, limit: number): Promise<GrantOwner[]> {
    return this.store.grantOwners(this.ctx.storage.sql, after, limit);
  }

  /** The tenant's 32-byte secret of this name, made on first use and stable after; "invalid" for a bad name. */
  async secret(name: string): Promise<Uint8Array | "invalid"> {
    return this.store.secret(this.ctx.storage.sql, name);
  }
}
