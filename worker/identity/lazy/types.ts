import type { UserRef } from "../../../src/contract/users";

/**
 * The Worker's shapes this module works on. It imports nothing of the Worker's (docs/architecture.json),
 * so they are declared here: the caller (worker/env.ts re-exports it), what it reads of a tenant and
 * its `identity` block (worker/identity/config.ts's schema gives more; tsc checks each adapter's
 * argument fits), and the Identity object's methods it calls.
 */

/** What a key, grant or role may do: "call" tools and read its own calls; "admin" everything. */
export type Scope = "call" | "admin";

/** What a key may send to act for users (`keys[].actAs`, POST /v1/keys): see ActAs in src/contract/keys.ts. */
export type ActAs = "token" | "header";

/** A key's code mode (`keys[].codeMode`, POST /v1/keys): see CodeMode in worker/code-mode/modes.ts. */
export type CodeMode = "on" | "off" | "only";

/**
 * The user a request acts for (a person signed in, a person's OAuth grant, or a key acting for its app's
 * user): who they are, and what the tenant's roles made of them. Bounded (claims.ts, user.ts).
 */
export interface CallerUser extends UserRef {
  /** The user's groups that some role names (others are dropped: sessions and grants stay small). */
  groups: readonly string[];
  /** The names of the tenant's roles that matched. */
  roles: readonly string[];
  /** userKey(tenant, id): `u_` and 32 base64url characters; the OAuth library's user id, rate buckets, bindings. */
  key: string;
}

/** A rate limit of the caller's: calls per minute across isolates, counted in one bucket per `id`. */
export interface CallerRateLimit {
  /** `key:<runtime key id>`, `grant:<grant id>` or `user:<user key>`: the bucket, and whose limit a 429 names. */
  id: string;
  perMinute: number;
}

/** Who a request authenticated as (never the key or token itself): a key, an OAuth grant, or a person. */
export interface Caller {
  /**
   * Whose records its calls are: a key's name, `oauth:<client_id>#<grant_id>`, or a person's own console
   * credential, `session:<user key>` (OIDC sign-in) or `access:<user key>` (Cloudflare Access).
   */
  keyName: string;
  /** What it may do, already narrowed to the user's roles when it acts for one (caller.ts). */
  scopes: ReadonlySet<Scope>;
  /**
   * 32 bytes MCP sessions are bound to: a configured key's hash, a runtime key's id, a grant's id, a
   * person's session; a key acting for a user binds to both, so a session opened for one user is not another's.
   */
  binding: Uint8Array;
  /** Only these tools are listed and may be called; absent: every tool. */
  tools?: ReadonlySet<string>;
  /** Its key's code mode (docs/code-mode.md); absent: the tenant's default. */
  codeMode?: CodeMode;
  /** Every limit its calls count against (the key's or grant's, the user's): each must allow a call. */
  rateLimits?: readonly CallerRateLimit[];
  /** An OAuth grant's caller: the client and grant, and the resource metadata 403s point to. */
  oauth?: { clientId: string; grantId: string; metadataUrl: string };
  /** A key that may act for its app's users: what it may send (act-as.ts). */
  actAs?: ActAs;
  /** A person's own credential (the console's cookie, or an Access assertion), not a key or grant. */
  person?: { via: "cookie" | "access"; sessionId?: string; expiresAt: number };
  /** The user the request acts for; absent: a key or tenant grant acting for no one (as before users). */
  user?: CallerUser;
}

/** Which claims give the user's id, name, email and groups: names or dot paths (worker/identity/config.ts). */
export interface ClaimNames {
  id: string;
  name: string;
  email: string;
  groups: string;
}

/** A role of `identity.roles`: who has it, and what it may do. */
export interface RoleView {
  groups?: readonly string[];
  users?: readonly string[];
  scopes?: readonly Scope[];
  tools?: readonly string[];
  ratePerMinute?: number;
}

/** `identity.oidc`, as sign-in reads it. */
export interface OidcView {
  issuer: string;
  clientId: string;
  clientAuth: "client_secret_basic" | "client_secret_post";
  scopes: readonly string[];
  algorithms: readonly string[];
  requiredClaims: Readonly<Record<string, string | number | boolean>>;
  claims: Partial<ClaimNames>;
}

/** `identity.access`, as the ambient credential reads it. */
export interface AccessView {
  teamDomain: string;
  audience: string;
  claims: Partial<ClaimNames>;
}

/** An entry of `identity.appTokens`. */
export interface AppTokenView {
  issuer: string;
  audience: string;
  jwksUri: string;
  algorithms: readonly string[];
  maxLifetimeSeconds: number;
  claims: Partial<ClaimNames>;
}

/** A tenant's `identity` block, as parsed (defaults filled in). */
export interface IdentityView {
  oidc?: OidcView;
  access?: AccessView;
  appTokens: readonly AppTokenView[];
  claims: Partial<ClaimNames>;
  roles?: Readonly<Record<string, RoleView>>;
  sessionHours: number;
}

/** A tenant, as this module reads it: its name and identity block. */
export interface TenantView {
  name: string;
  config: { identity?: IdentityView };
}

/** A console sign-in under way, from /auth/login to its callback: single use, ten minutes at most. */
export interface LoginTransaction {
  /** SHA-256 (hex) of the random id the login cookie carries: storage alone never gives a usable cookie. */
  idHash: string;
  /** OAuth `state`, OIDC `nonce` and the PKCE code verifier the callback must match. */
  state: string;
  nonce: string;
  verifier: string;
  /** The console's hash route to return to (`#/…`), and the origin the sign-in started on. */
  returnTo: string;
  origin: string;
  expiresAt: number;
}

/** What a write answers: "stored", or "invalid" for a value out of bounds (nothing stored). */
export type Stored = "stored" | "invalid";
/** The Identity object's methods this module calls (worker/identity/object.ts). */
export interface IdentityObjectView {
  beginLogin(tx: LoginTransaction): Promise<Stored>;
  takeLogin(idHash: string): Promise<LoginTransaction | null>;
  revokeSession(sid: string, expiresAt: number): Promise<Stored>;
  revokedSessions(): Promise<string[]>;
  secret(name: string): Promise<Uint8Array | "invalid">;
  grantOwners(after: string | null, limit: number): Promise<{ key: string }[]>;
}

/** Where a tenant's Identity object is (worker/identity/address.ts makes one). */
export interface IdentityAddressView {
  readonly tenant: string;
  object(): IdentityObjectView;
}
