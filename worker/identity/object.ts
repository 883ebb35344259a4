/**
 * The people of one tenant that signs them in (identity.oidc or identity.access), one object per
 * tenant: console sign-ins under way (single use, so a replayed callback or nonce finds nothing),
 * revoked sessions, the people who connected MCP clients, and the key that signs session cookies.
 * Made only for tenants with sign-in configured (signsPeopleIn, identity/config.ts); others never
 * address it. Bounded inputs: a value out of bounds is answered "invalid" and never stored (callers
 * check what a request sent first; this is the last wall, and an RPC that throws would be an error
 * reported far from its cause).
 */
import { DurableObject } from "cloudflare:workers";
import {
  beginLogin,
  createSchema,
  type GrantOwner,
  grantOwners,
  type LoginTransaction,
  noteGrantOwner,
  revokedSessions,
  revokeSession,
  secret,
  takeLogin,
} from "./store";

const HASH = /^[0-9a-f]{64}$/;
const TOKEN = /^[A-Za-z0-9._~-]{1,128}$/;
const SECRET_NAME = /^[a-z0-9_-]{1,64}$/;
const USER_KEY = /^u_[A-Za-z0-9_-]{32}$/;

const validLogin = (tx: LoginTransaction) =>
  HASH.test(tx.idHash) &&
  [tx.state, tx.nonce, tx.verifier].every((value) => TOKEN.test(value)) &&
  tx.returnTo.length <= 600 &&
  tx.origin.length <= 300 &&
  Number.isSafeInteger(tx.expiresAt);

/** What a write answers: "stored", or "invalid" for a value out of bounds (nothing stored). */
export type Stored = "stored" | "invalid";

export class Identity extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    createSchema(ctx.storage.sql);
  }

  /**
   * Stores a sign-in under way (its id's SHA-256, never the id): idHash 64 hex characters; state, nonce
   * and verifier 1-128 URL-safe characters; returnTo at most 600, origin at most 300.
   */
  async beginLogin(tx: LoginTransaction): Promise<Stored> {
    if (!validLogin(tx)) return "invalid";
    beginLogin(this.ctx.storage.sql, tx, Date.now());
    return "stored";
  }

  /** The sign-in with this id hash, deleted as it is read; null when absent, taken or expired. */
  async takeLogin(idHash: string): Promise<LoginTransaction | null> {
    if (!HASH.test(idHash)) return null;
    return takeLogin(this.ctx.storage.sql, idHash, Date.now());
  }

  /** Revokes a session id (1-128 URL-safe characters) until `expiresAt`, when its cookie expires anyway. */
  async revokeSession(sid: string, expiresAt: number): Promise<Stored> {
    if (!TOKEN.test(sid) || !Number.isSafeInteger(expiresAt)) return "invalid";
    revokeSession(this.ctx.storage.sql, sid, expiresAt, Date.now());
    return "stored";
  }

  /** Revoked session ids not expired yet (isolates re-read them every few seconds). */
  async revokedSessions(): Promise<string[]> {
    return revokedSessions(this.ctx.storage.sql, Date.now());
  }

  /** Notes a person who connected an MCP client for themselves (key: their user key; id 1-256, name ≤ 200). */
  async noteGrantOwner(key: string, user: { id: string; name?: string }): Promise<Stored> {
    if (!USER_KEY.test(key) || user.id.length < 1 || user.id.length > 256 || (user.name?.length ?? 0) > 200)
      return "invalid";
    noteGrantOwner(this.ctx.storage.sql, key, user, Date.now());
    return "stored";
  }

  /** People who connected clients, by key after `after` (null: from the start), at most `limit` (≤ 100). */
  async grantOwners(after: string | null, limit: number): Promise<GrantOwner[]> {
    return grantOwners(this.ctx.storage.sql, after, limit);
  }

  /** The tenant's 32-byte secret of this name (1-64 of a-z 0-9 _ -), made on first use and stable after. */
  async secret(name: string): Promise<Uint8Array | "invalid"> {
    if (!SECRET_NAME.test(name)) return "invalid";
    return secret(this.ctx.storage.sql, name);
  }
}
