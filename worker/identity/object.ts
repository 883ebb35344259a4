/**
 * The people of one tenant that signs them in (identity.oidc or identity.access), one object per
 * tenant: console sign-ins under way (single use, so a replayed callback or nonce finds nothing),
 * revoked sessions, the people who connected MCP clients, and the key that signs session cookies.
 * Made only for tenants with sign-in configured (signsPeopleIn, identity/config.ts); others never
 * address it. Bounded inputs: what a request sent is checked before it is stored.
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

function check(ok: boolean, what: string): void {
  if (!ok) throw new TypeError(`Identity: ${what}`);
}

export class Identity extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    createSchema(ctx.storage.sql);
  }

  /** Stores a sign-in under way (its id's SHA-256, never the id). */
  async beginLogin(tx: LoginTransaction): Promise<void> {
    check(HASH.test(tx.idHash), "idHash must be 64 hex characters");
    check(
      [tx.state, tx.nonce, tx.verifier].every((value) => TOKEN.test(value)),
      "state, nonce, verifier malformed",
    );
    check(tx.returnTo.length <= 600 && tx.origin.length <= 300, "returnTo or origin too long");
    check(Number.isSafeInteger(tx.expiresAt), "expiresAt must be ms since the epoch");
    beginLogin(this.ctx.storage.sql, tx, Date.now());
  }

  /** The sign-in with this id hash, deleted as it is read; null when absent, taken or expired. */
  async takeLogin(idHash: string): Promise<LoginTransaction | null> {
    if (!HASH.test(idHash)) return null;
    return takeLogin(this.ctx.storage.sql, idHash, Date.now());
  }

  /** Revokes a session id until `expiresAt`, when its cookie expires anyway. */
  async revokeSession(sid: string, expiresAt: number): Promise<void> {
    check(TOKEN.test(sid), "sid malformed");
    revokeSession(this.ctx.storage.sql, sid, expiresAt, Date.now());
  }

  /** Revoked session ids not expired yet (isolates re-read them every few seconds). */
  async revokedSessions(): Promise<string[]> {
    return revokedSessions(this.ctx.storage.sql, Date.now());
  }

  /** Notes a person who connected an MCP client for themselves (key: their user key). */
  async noteGrantOwner(key: string, user: { id: string; name?: string }): Promise<void> {
    check(USER_KEY.test(key), "key must be a user key (u_ and 32 base64url characters)");
    check(user.id.length >= 1 && user.id.length <= 256 && (user.name?.length ?? 0) <= 200, "user out of bounds");
    noteGrantOwner(this.ctx.storage.sql, key, user, Date.now());
  }

  /** People who connected clients, by key after `after` (null: from the start), at most `limit` (≤ 100). */
  async grantOwners(after: string | null, limit: number): Promise<GrantOwner[]> {
    return grantOwners(this.ctx.storage.sql, after, limit);
  }

  /** The tenant's 32-byte secret of this name, made on first use and stable after. */
  async secret(name: string): Promise<Uint8Array> {
    check(SECRET_NAME.test(name), "secret name malformed");
    return secret(this.ctx.storage.sql, name);
  }
}
